/* samples.c - call times grouped by (function, work size[, bytes]).
 *
 * Traces reach 10^7 rows and usually hold few distinct (func, work) pairs, so a row
 * costs one hash probe and one append; the median is then found by selection (Hoare's
 * quickselect, linear on average) rather than by sorting each group.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "func_names.h"
#include "grow.h"
#include "samples.h"
#include "select.h"
#include "slots.h"

static inline size_t hash(uint32_t func, int64_t work, int64_t bytes)
{
	uint64_t h = ((uint64_t)work ^ ((uint64_t)func << 40)) * UINT64_C(0x9e3779b97f4a7c15);
	h ^= (uint64_t)bytes * UINT64_C(0xc2b2ae3d27d4eb4f);
	return (size_t)(h >> 17);
}

static size_t hash_at(const void *ctx, size_t i)
{
	const struct sample_group *g = &((const struct samples *)ctx)->groups[i];

	return hash(g->func, g->work, g->bytes);
}

struct sample_group *samples_find(struct samples *s, uint32_t func, int64_t work, int64_t bytes,
				  int create)
{
	size_t j;

	if (!create && s->nslots == 0)
		return NULL;
	/* grown before the probe, so that a new group's slot is the one the probe ends on */
	if (create && 2 * (s->n + 1) > s->nslots &&
	    slots_grow(&s->slots, &s->nslots, 1024, s->n, hash_at, s) != 0)
		return NULL;
	j = hash(func, work, bytes) & (s->nslots - 1);
	for (; s->slots[j]; j = (j + 1) & (s->nslots - 1)) {
		struct sample_group *g = &s->groups[s->slots[j] - 1];
		if (g->func == func && g->work == work && g->bytes == bytes)
			return g;
	}
	if (!create)
		return NULL;
	if (grow(&s->groups, sizeof(*s->groups), s->n, &s->room, 256))
		return NULL;
	s->slots[j] = (uint32_t)s->n + 1;
	s->groups[s->n] = (struct sample_group){ .func = func, .work = work, .bytes = bytes };
	return &s->groups[s->n++];
}

static int push(int64_t **t, size_t *n, size_t *room, int64_t t_ns)
{
	if (grow(t, sizeof(**t), *n, room, 8))
		return -1;
	(*t)[(*n)++] = t_ns;
	return 0;
}

int samples_push(struct sample_group *g, int64_t t_ns)
{
	return push(&g->t, &g->n, &g->room, t_ns);
}

int samples_add(struct samples *s, uint32_t func, int64_t work, int64_t bytes, int64_t t_ns,
		enum sample_faults faults)
{
	struct sample_group *g = samples_find(s, func, work, bytes, 1);

	if (!g)
		return -1;
	if (faults == SAMPLE_FAULTED)
		return push(&g->ft, &g->fn, &g->froom, t_ns);
	g->clean += faults == SAMPLE_NO_FAULTS;
	return push(&g->t, &g->n, &g->room, t_ns);
}

int samples_settle_faults(struct samples *s, uint64_t *left_out, uint64_t *kept,
			  uint64_t *kept_groups)
{
	*left_out = *kept = *kept_groups = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct sample_group *g = &s->groups[i];
		if (g->fn == 0)
			continue;
		if (g->clean > 0) {
			*left_out += g->fn;
		} else {
			/* nothing better at this size: the faulted calls are samples too */
			for (size_t j = 0; j < g->fn; j++)
				if (samples_push(g, g->ft[j]) != 0)
					return -1;
			*kept += g->fn;
			*kept_groups += 1;
		}
		free(g->ft);
		g->ft = NULL;
		g->fn = g->froom = 0;
	}
	return 0;
}

static int by_name_then_work(const void *x, const void *y)
{
	const struct sample_group *a = x, *b = y;
	int c = a->func == b->func ? 0 : strcmp(funcs_get((int)a->func)->name,
						funcs_get((int)b->func)->name);

	if (c)
		return c;
	if (a->work != b->work)
		return a->work < b->work ? -1 : 1;
	return a->bytes < b->bytes ? -1 : a->bytes > b->bytes;
}

static const struct samples *sorting;	/* samples_sorted's, for its comparison */

static int by_index(const void *x, const void *y)
{
	return by_name_then_work(&sorting->groups[*(const size_t *)x],
				 &sorting->groups[*(const size_t *)y]);
}

size_t *samples_sorted(const struct samples *s)
{
	size_t *idx = malloc((s->n ? s->n : 1) * sizeof(*idx));

	if (!idx)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		idx[i] = i;
	sorting = s;
	qsort(idx, s->n, sizeof(*idx), by_index);
	return idx;
}

void samples_sort(struct samples *s)
{
	qsort(s->groups, s->n, sizeof(*s->groups), by_name_then_work);
	/* the hash slots point at the old order: lookups are over once sorting is asked for */
	free(s->slots);
	s->slots = NULL;
	s->nslots = 0;
}

double samples_stat(struct sample_group *g, enum sample_stat stat)
{
	size_t n = g->n;
	int64_t lo;
	double sum = 0, med, cap;
	size_t kept = 0;

	switch (stat) {
	case STAT_CLIPPED:
		/* The mean of the calls left after the machine's own delays.  A prediction sums
		 * calls, so a kernel's own slow mode must count (OpenBLAS's small products: 3 to
		 * 6 x the median, one call in ten).  A preempted call is the machine: a time slice
		 * (milliseconds) on a call of microseconds is over CLIP x its median; on a 3.6 ms
		 * product, 30 ms were 9.3 x, and one such call in 108 made a model 9 % slow, so a
		 * call over CLIP_LONG x the median by more than a time slice is left out too. */
		med = samples_stat(g, STAT_MEDIAN);
		cap = med * SAMPLES_CLIP;
		if (med * SAMPLES_CLIP_LONG > med + SAMPLES_CLIP_SLICE_NS)
			cap = med * SAMPLES_CLIP_LONG;
		else if (med + SAMPLES_CLIP_SLICE_NS < cap)
			cap = med + SAMPLES_CLIP_SLICE_NS;
		for (size_t i = 0; i < n; i++)
			if ((double)g->t[i] <= cap)
				sum += (double)g->t[i], kept++;
		return kept ? sum / (double)kept : med;
	case STAT_MIN:
		lo = g->t[0];
		for (size_t i = 1; i < n; i++)
			lo = g->t[i] < lo ? g->t[i] : lo;
		return (double)lo;
	case STAT_MEAN:
		for (size_t i = 0; i < n; i++)
			sum += (double)g->t[i];
		return sum / (double)n;
	case STAT_MEDIAN:
	default:
		return select_median(g->t, n);
	}
}

void samples_free(struct samples *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->groups[i].t);
		free(s->groups[i].ft);
	}
	free(s->groups);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}
