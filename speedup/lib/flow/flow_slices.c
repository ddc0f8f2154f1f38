/* flow_slices.c - see flow_slices.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flow_slices.h"
#include "grow.h"

#define MAX_CELLS (UINT64_C(1) << 24)
#define SHARE 0.1	/* a function is active in a slice with this share of its bytes */
#define JUMP 4.0	/* a traffic change that starts a phase */

static uint64_t mix(uint64_t x)
{
	x = (x + 1) * UINT64_C(0x9E3779B97F4A7C15);
	x ^= x >> 31;
	return x * UINT64_C(0xBF58476D1CE4E5B9);
}

/* Spreads BYTES over [A, B) (ns from t0) into ROW (node column NODE). */
static void spread(const struct flow_slices *s, double *row, uint32_t node, int64_t a,
		   int64_t b, double bytes)
{
	uint64_t k0 = (uint64_t)(a / s->ns), k1 = b > a ? (uint64_t)((b - 1) / s->ns) : k0;

	if (k0 >= s->n)		/* a call of 0 ns at the very end */
		k0 = k1 = s->n - 1;
	if (bytes == 0)
		return;
	if (k0 == k1) {
		row[k0 * s->nnodes + node] += bytes;
		return;
	}
	for (uint64_t k = k0; k <= k1; k++) {
		int64_t lo = (int64_t)k * s->ns, hi = lo + s->ns;
		if (lo < a)
			lo = a;
		if (hi > b)
			hi = b;
		row[k * s->nnodes + node] += bytes * (double)(hi - lo) / (double)(b - a);
	}
}

/* The slices' total bytes and active-set signatures. */
static void sets(const struct flow_slices *s, double *total, uint64_t *sig)
{
	for (uint64_t k = 0; k < s->n; k++) {
		const double *r = s->read + k * s->nnodes, *w = s->written + k * s->nnodes;
		double t = 0;
		uint64_t g = 0;
		for (size_t i = 0; i < s->nnodes; i++)
			t += r[i] + w[i];
		for (size_t i = 0; i < s->nnodes && t > 0; i++)
			if (r[i] + w[i] >= SHARE * t)
				g ^= mix(i);
		total[k] = t;
		sig[k] = g;
	}
}

static int add_phase(struct flow_slices *s, size_t *room, uint64_t first, uint64_t last,
		     double bytes, uint64_t sig)
{
	if (grow(&s->phase, sizeof(*s->phase), s->nphases, room, 16) != 0)
		return -1;
	s->phase[s->nphases++] = (struct flow_phase){ first, last, bytes, sig };
	return 0;
}

/* Do phases A and B move about as many bytes a slice (within JUMP of each other)? */
static int same_level(const struct flow_phase *a, const struct flow_phase *b)
{
	double x = a->bytes / (double)(a->last - a->first + 1);
	double y = b->bytes / (double)(b->last - b->first + 1);

	return !(x > JUMP * y || y > JUMP * x);
}

int flow_phase_has(const struct flow_slices *s, const struct flow_phase *p, uint32_t node)
{
	double t = 0, n = 0;

	for (uint64_t k = p->first; k <= p->last; k++)
		for (size_t i = 0; i < s->nnodes; i++) {
			double b = s->read[k * s->nnodes + i] + s->written[k * s->nnodes + i];
			t += b;
			if (i == node)
				n += b;
		}
	return t > 0 && n >= SHARE * t;
}

static int phases(struct flow_slices *s)
{
	double *total = malloc(s->n * sizeof(double));
	uint64_t *sig = malloc(s->n * sizeof(uint64_t));
	uint64_t minlen = s->n / 50 > 2 ? s->n / 50 : 2;
	size_t room = 0, n;
	double sum = 0;
	int rc = -1;

	if (!total || !sig)
		goto out;
	sets(s, total, sig);
	/* runs of one set and one level of traffic (SUM: the bytes of slices [start, k)) */

	for (uint64_t k = 1, start = 0; k <= s->n; k++) {
		double mean;
		sum += total[k - 1];
		mean = sum / (double)(k - start);
		if (k < s->n && sig[k] == sig[start] &&
		    !(mean > 0 && (total[k] > JUMP * mean || total[k] * JUMP < mean)))
			continue;
		if (add_phase(s, &room, start, k - 1, sum, sig[start]) != 0)
			goto out;
		start = k;
		sum = 0;
	}
	/* short runs join a neighbour; then neighbours of one set join */
	n = 0;
	for (size_t i = 0; i < s->nphases; i++) {
		struct flow_phase p = s->phase[i];
		if (p.last - p.first + 1 < minlen && n > 0) {
			s->phase[n - 1].last = p.last;
			s->phase[n - 1].bytes += p.bytes;
		} else if (p.last - p.first + 1 < minlen && i + 1 < s->nphases) {
			s->phase[i + 1].first = p.first;
			s->phase[i + 1].bytes += p.bytes;
		} else {
			s->phase[n++] = p;
		}
	}
	s->nphases = n;
	/* a joined run keeps the set of the phase it joined: neighbours of one set and one
	 * level of traffic are one phase */
	n = 0;
	for (size_t i = 0; i < s->nphases; i++) {
		if (n > 0 && s->phase[n - 1].sig == s->phase[i].sig &&
		    same_level(&s->phase[n - 1], &s->phase[i])) {
			s->phase[n - 1].last = s->phase[i].last;
			s->phase[n - 1].bytes += s->phase[i].bytes;
		} else {
			s->phase[n++] = s->phase[i];
		}
	}
	s->nphases = n;
	rc = 0;
out:
	free(total);
	free(sig);
	return rc;
}

int flow_slices_make(struct flow_slices *s, const struct flow *f, int64_t ns, char *err,
		     size_t room)
{
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;

	memset(s, 0, sizeof(*s));
	s->ns = ns;
	s->nnodes = f->nnodes;
	for (uint64_t q = 0; q < f->max_seq; q++) {
		const struct flow_call *c = &f->call[q];
		if (!c->known || c->depth)
			continue;
		if (c->t_start < 0 || c->t_ns < 0) {
			s->untimed++;
			continue;
		}
		if (c->t_start < t0)
			t0 = c->t_start;
		if (c->t_start + c->t_ns > t1)
			t1 = c->t_start + c->t_ns;
	}
	if (t0 == INT64_MAX) {
		snprintf(err, room, "no timed calls: --slices needs t_start_ns and t_ns");
		return -1;
	}
	s->t0 = t0;
	/* slices up to the last call's end (a call of 0 ns there goes to the last slice) */
	s->n = (uint64_t)((t1 - t0 + ns - 1) / ns);
	if (s->n == 0)
		s->n = 1;
	if (s->n > MAX_CELLS / (s->nnodes ? s->nnodes : 1)) {
		snprintf(err, room, "%llu slices of %lld ns for %zu functions: too many, give a "
			 "larger NS (the run spans %lld ns)", (unsigned long long)s->n,
			 (long long)ns, s->nnodes, (long long)(t1 - t0));
		return -1;
	}
	s->read = calloc(s->n * s->nnodes, sizeof(double));
	s->written = calloc(s->n * s->nnodes, sizeof(double));
	s->first_ns = malloc(s->nnodes * sizeof(int64_t));
	s->last_ns = malloc(s->nnodes * sizeof(int64_t));
	s->peak = calloc(s->nnodes, sizeof(double));
	if (!s->read || !s->written || !s->first_ns || !s->last_ns || !s->peak) {
		snprintf(err, room, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < s->nnodes; i++)
		s->first_ns[i] = s->last_ns[i] = -1;
	for (uint64_t q = 0; q < f->max_seq; q++) {
		const struct flow_call *c = &f->call[q];
		int64_t a, b;
		if (!c->known || c->depth || c->t_start < 0 || c->t_ns < 0)
			continue;
		a = c->t_start - t0;
		b = a + c->t_ns;
		spread(s, s->read, c->node, a, b, (double)c->read);
		spread(s, s->written, c->node, a, b, (double)c->written);
		if (s->first_ns[c->node] < 0 || a < s->first_ns[c->node])
			s->first_ns[c->node] = a;
		if (b > s->last_ns[c->node])
			s->last_ns[c->node] = b;
	}
	for (uint64_t k = 0; k < s->n; k++)
		for (size_t i = 0; i < s->nnodes; i++) {
			double bw = (s->read[k * s->nnodes + i] + s->written[k * s->nnodes + i]) *
				    1e9 / (double)ns;
			if (bw > s->peak[i])
				s->peak[i] = bw;
		}
	if (phases(s) != 0) {
		snprintf(err, room, "out of memory");
		return -1;
	}
	return 0;
}

void flow_slices_free(struct flow_slices *s)
{
	free(s->read);
	free(s->written);
	free(s->first_ns);
	free(s->last_ns);
	free(s->peak);
	free(s->phase);
	memset(s, 0, sizeof(*s));
}
