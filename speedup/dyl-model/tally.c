/* tally.c - see tally.h. */
#include <stdlib.h>
#include "grow.h"
#include "tally.h"

int tally_add(struct tallies *ts, size_t i, int64_t t_ns, enum sample_faults faults)
{
	if (grow_to(&ts->v, sizeof(*ts->v), i + 1, &ts->room, 64) != 0)
		return -1;
	struct tally *t = &ts->v[i];
	if (faults == SAMPLE_FAULTED)
		return qsketch_add(&t->ft, t_ns);
	t->clean += faults == SAMPLE_NO_FAULTS;
	t->sum += (double)t_ns;
	return qsketch_add(&t->t, t_ns);
}

static void add_sum(void *ctx, double v, uint64_t count)
{
	double *sum = ctx;
	*sum += count == 1 ? v : v * (double)count;	/* exact values in order, as samples.c */
}

int tallies_settle_faults(struct tallies *ts, size_t n, uint64_t *left_out, uint64_t *kept,
			  uint64_t *kept_groups)
{
	*left_out = *kept = *kept_groups = 0;
	for (size_t i = 0; i < n && i < ts->room; i++) {
		struct tally *t = &ts->v[i];
		if (t->ft.n == 0)
			continue;
		if (t->clean > 0) {
			*left_out += t->ft.n;
		} else {
			/* nothing better at this size: the faulted calls are samples too */
			qsketch_each(&t->ft, add_sum, &t->sum);
			if (qsketch_merge(&t->t, &t->ft) != 0)
				return -1;
			*kept += t->ft.n;
			*kept_groups += 1;
		}
		qsketch_free(&t->ft);
	}
	return 0;
}

struct clip {
	double cap, sum;
	uint64_t kept;
};

static void add_clipped(void *ctx, double v, uint64_t count)
{
	struct clip *c = ctx;
	if (v <= c->cap) {
		c->sum += count == 1 ? v : v * (double)count;
		c->kept += count;
	}
}

double tally_stat(struct tallies *ts, size_t i, enum sample_stat stat)
{
	struct tally *t = &ts->v[i];
	double med, cap;

	switch (stat) {
	case STAT_CLIPPED:
		/* samples_stat's rule (samples.c says why) */
		med = qsketch_median(&t->t);
		cap = med * SAMPLES_CLIP;
		if (med * SAMPLES_CLIP_LONG > med + SAMPLES_CLIP_SLICE_NS)
			cap = med * SAMPLES_CLIP_LONG;
		else if (med + SAMPLES_CLIP_SLICE_NS < cap)
			cap = med + SAMPLES_CLIP_SLICE_NS;
		struct clip c = { cap, 0, 0 };
		qsketch_each(&t->t, add_clipped, &c);
		return c.kept ? c.sum / (double)c.kept : med;
	case STAT_MIN:
		return (double)t->t.min;
	case STAT_MEAN:
		return t->sum / (double)t->t.n;
	case STAT_MEDIAN:
	default:
		return qsketch_median(&t->t);
	}
}

void tallies_free(struct tallies *ts, size_t n)
{
	for (size_t i = 0; i < n && i < ts->room; i++) {
		qsketch_free(&ts->v[i].t);
		qsketch_free(&ts->v[i].ft);
	}
	free(ts->v);
}
