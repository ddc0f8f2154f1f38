/* qsketch.h - quantiles (the median) of a stream of non-negative times in bounded memory.
 *
 * The first QSKETCH_EXACT values are kept as they are: up to there a quantile is exact,
 * the same number a sort would give.  Past that the values go into a log-bucketed
 * histogram, as DDSketch does (Masson et al., VLDB 2019): bucket i holds the values in
 * (g^(i-1), g^i] with g = (1 + a) / (1 - a), and answers 2 g^i / (g + 1) for them, within
 * a relative error a = QSKETCH_ERROR (1 %) of any value in it.  A quantile is then within
 * 1 % of the exact one, rounded to a whole ns (so within 1 % + 0.5 ns; exact below 50 ns),
 * and between the least and the most value seen.  An int64 has at
 * most ~2200 such buckets: at most 18 KB a sketch, whatever the number of values.
 */
#ifndef SPEEDUP_QSKETCH_H
#define SPEEDUP_QSKETCH_H

#include <stddef.h>
#include <stdint.h>

#define QSKETCH_EXACT 4096	/* values kept exactly */
#define QSKETCH_ERROR 0.01	/* past them: the relative error of a quantile */

struct qsketch {
	uint64_t n;		/* values added */
	int64_t min, max;	/* exact, once n > 0 */
	int64_t *exact;		/* the first values, while n <= QSKETCH_EXACT; then NULL */
	size_t room;
	uint64_t *bins;		/* counts of buckets lo .. lo + nbins - 1 */
	int lo, nbins;
	uint64_t zeros;		/* values of 0 (no bucket holds them) */
	int binned;		/* past QSKETCH_EXACT: the values are in the buckets */
};

/* Adds V (>= 0; a negative counts as 0).  0, or -1 out of memory. */
int qsketch_add(struct qsketch *q, int64_t v);
/* The value of rank K (0-based, K < n) in sorted order: exact while n <= QSKETCH_EXACT.
 * Reorders the exact values. */
double qsketch_rank(struct qsketch *q, uint64_t k);
/* The median, as select_median (select.h) gives it: of an even count, the mean of the
 * two middle values.  -1 when empty. */
double qsketch_median(struct qsketch *q);
/* Is it exact (still every value kept)? */
static inline int qsketch_exact(const struct qsketch *q)
{
	return !q->binned;
}
/* Calls FN(CTX, value, count) for each value (exact: in the order they are kept, which
 * qsketch_rank and qsketch_median change) or bucket (its representative, in increasing
 * order). */
void qsketch_each(struct qsketch *q, void (*fn)(void *ctx, double v, uint64_t count), void *ctx);
/* Adds FROM's values to Q (exact ones one by one, in their order).  0, or -1 out of
 * memory. */
int qsketch_merge(struct qsketch *q, struct qsketch *from);
void qsketch_free(struct qsketch *q);

#endif
