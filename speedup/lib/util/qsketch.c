/* qsketch.c - see qsketch.h. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "qsketch.h"
#include "select.h"

/* Bucket i holds (g^(i-1), g^i]: BOUND[i] = g^i, for i up to NBOUNDS - 1 (g^2200 is past
 * any int64).  A value's bucket is the least i with BOUND[i] >= v, found without a log:
 * CELL[e][m] is that of the least value with leading bit e and next 8 bits m; a cell is
 * 1/256 of an octave wide, under a bucket's width (2 %), so the value's bucket is the
 * cell's or the next one. */
#define NBOUNDS 2240
static double bound[NBOUNDS], gamma_;
static uint16_t cell[64][256];

static int least_at_or_above(double v)
{
	int lo = 0, hi = NBOUNDS - 1;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (bound[mid] >= v)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static void init_gamma(void)
{
	if (gamma_ != 0)
		return;
	gamma_ = (1 + QSKETCH_ERROR) / (1 - QSKETCH_ERROR);
	bound[0] = 1;
	for (int i = 1; i < NBOUNDS; i++)
		bound[i] = bound[i - 1] * gamma_;
	for (int e = 0; e < 64; e++)
		for (int m = 0; m < 256; m++)
			cell[e][m] = (uint16_t)least_at_or_above(ldexp(1 + m / 256.0, e));
}

/* The bucket of V > 0. */
static inline int bucket_of(int64_t v)
{
	int e = 63 - __builtin_clzll((unsigned long long)v);
	unsigned m = (unsigned)(e >= 8 ? (uint64_t)v >> (e - 8) : (uint64_t)v << (8 - e)) & 255;
	int i = cell[e][m];

	return (double)v > bound[i] ? i + 1 : i;
}

/* What bucket I answers for its values: within QSKETCH_ERROR of each. */
static double bucket_value(int i)
{
	return 2 * bound[i] / (gamma_ + 1);
}

/* Room for bucket I in the dense range lo .. lo + nbins - 1. */
static int reach(struct qsketch *q, int i)
{
	if (q->nbins && i >= q->lo && i < q->lo + q->nbins)
		return 0;
	int lo = q->nbins ? (i < q->lo ? i : q->lo) : i;
	int hi = q->nbins ? (i >= q->lo + q->nbins ? i : q->lo + q->nbins - 1) : i;
	uint64_t *b = calloc((size_t)(hi - lo + 1), sizeof(*b));
	if (!b)
		return -1;
	if (q->nbins)
		memcpy(b + (q->lo - lo), q->bins, (size_t)q->nbins * sizeof(*b));
	free(q->bins);
	q->bins = b;
	q->lo = lo;
	q->nbins = hi - lo + 1;
	return 0;
}

static int bin_add(struct qsketch *q, int64_t v)
{
	if (v <= 0) {
		q->zeros++;
		return 0;
	}
	int i = bucket_of(v);
	if (reach(q, i) != 0)
		return -1;
	q->bins[i - q->lo]++;
	return 0;
}

/* From exact values to buckets: the first value past QSKETCH_EXACT. */
static int to_bins(struct qsketch *q)
{
	init_gamma();
	for (size_t i = 0; i < q->n; i++)
		if (bin_add(q, q->exact[i]) != 0)
			return -1;
	free(q->exact);
	q->exact = NULL;
	q->room = 0;
	q->binned = 1;
	return 0;
}

int qsketch_add(struct qsketch *q, int64_t v)
{
	if (v < 0)
		v = 0;
	if (q->binned && v > 0) {	/* the common case: a bucket already there */
		unsigned k = (unsigned)(bucket_of(v) - q->lo);
		if (k < (unsigned)q->nbins) {
			q->bins[k]++;
			goto seen;
		}
	}
	if (q->n < QSKETCH_EXACT) {
		if (grow(&q->exact, sizeof(*q->exact), q->n, &q->room, 16) != 0)
			return -1;
		q->exact[q->n] = v;
	} else {
		if (!q->binned && to_bins(q) != 0)
			return -1;
		if (bin_add(q, v) != 0)
			return -1;
	}
seen:
	q->min = !q->n || v < q->min ? v : q->min;
	q->max = !q->n || v > q->max ? v : q->max;
	q->n++;
	return 0;
}

double qsketch_rank(struct qsketch *q, uint64_t k)
{
	if (!q->binned)
		return (double)select_kth(q->exact, q->n, k);
	if (k < q->zeros)
		return 0;
	uint64_t seen = q->zeros;
	for (int i = 0; i < q->nbins; i++) {
		seen += q->bins[i];
		if (k < seen) {
			/* in whole ns, as the times are (below 50 ns a bucket holds one whole
			 * number: that one); the least and the most are known exactly */
			double v = round(bucket_value(q->lo + i));
			return v < (double)q->min ? (double)q->min : v > (double)q->max ? (double)q->max : v;
		}
	}
	return (double)q->max;
}

double qsketch_median(struct qsketch *q)
{
	if (q->n == 0)
		return -1;
	if (!q->binned)
		return select_median(q->exact, q->n);
	double hi = qsketch_rank(q, q->n / 2);
	if (q->n % 2)
		return hi;
	return (qsketch_rank(q, q->n / 2 - 1) + hi) / 2;
}

void qsketch_each(struct qsketch *q, void (*fn)(void *ctx, double v, uint64_t count), void *ctx)
{
	if (!q->binned) {
		for (size_t i = 0; i < q->n; i++)
			fn(ctx, (double)q->exact[i], 1);
		return;
	}
	if (q->zeros)
		fn(ctx, 0, q->zeros);
	for (int i = 0; i < q->nbins; i++)
		if (q->bins[i]) {
			double v = bucket_value(q->lo + i);
			fn(ctx, v < (double)q->min ? (double)q->min : v > (double)q->max ?
			   (double)q->max : v, q->bins[i]);
		}
}

int qsketch_merge(struct qsketch *q, struct qsketch *from)
{
	if (!from->binned) {
		for (size_t i = 0; i < from->n; i++)
			if (qsketch_add(q, from->exact[i]) != 0)
				return -1;
		return 0;
	}
	if (!q->binned && to_bins(q) != 0)
		return -1;
	if (from->nbins && (reach(q, from->lo) != 0 || reach(q, from->lo + from->nbins - 1) != 0))
		return -1;
	for (int i = 0; i < from->nbins; i++)
		q->bins[from->lo + i - q->lo] += from->bins[i];
	q->zeros += from->zeros;
	q->min = !q->n || from->min < q->min ? from->min : q->min;
	q->max = !q->n || from->max > q->max ? from->max : q->max;
	q->n += from->n;
	return 0;
}

void qsketch_free(struct qsketch *q)
{
	free(q->exact);
	free(q->bins);
	memset(q, 0, sizeof(*q));
}
