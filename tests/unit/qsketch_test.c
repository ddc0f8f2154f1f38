/* sources: speedup/lib/util/qsketch.c speedup/lib/util/grow.c speedup/lib/model/select.c */
/* qsketch_test.c - qsketch.c: exact quantiles up to QSKETCH_EXACT values (the median
 * select_median gives), then within the stated error (1 % + 0.5 ns) of the exact ones,
 * computed here by sorting, on known distributions: uniform, log-uniform over 6 decades,
 * bimodal, constant, with zeros; the least and the most stay exact; merging two sketches
 * is adding their values; memory stays bounded (buckets) whatever the count. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "check.h"
#include "qsketch.h"
#include "select.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)	/* xorshift64: the same values on every machine */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double unit(void)
{
	return (double)(next() >> 11) / 9007199254740992.0;
}

static int cmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* Adds V[0..N) to a sketch and checks its quantiles against the sorted values. */
static void check_quantiles(const char *what, int64_t *v, size_t n)
{
	struct qsketch q = { 0 };
	static const double qs[] = { 0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1 };

	for (size_t i = 0; i < n; i++)
		CHECK(qsketch_add(&q, v[i]) == 0);
	qsort(v, n, sizeof(*v), cmp);
	CHECK(q.n == n && q.min == v[0] && q.max == v[n - 1]);
	CHECK(qsketch_exact(&q) == (n <= QSKETCH_EXACT));
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		uint64_t rank = (uint64_t)(qs[k] * (double)(n - 1));
		double got = qsketch_rank(&q, rank), want = (double)v[rank];
		double bound = n <= QSKETCH_EXACT ? 0 : QSKETCH_ERROR * want + 0.5;
		CHECK_MSG(fabs(got - want) <= bound, "%s, n=%zu, quantile %g: %.1f, exact %.0f",
			  what, n, qs[k], got, want);
	}
	double med = qsketch_median(&q);
	double want = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
	CHECK_MSG(fabs(med - want) <= (n <= QSKETCH_EXACT ? 0 : QSKETCH_ERROR * want + 0.5),
		  "%s median %.1f, exact %.1f", what, med, want);
	/* bounded: at most ~2200 buckets of an int64, whatever n */
	CHECK(q.nbins <= 2300);
	qsketch_free(&q);
}

static void distributions(size_t n)
{
	int64_t *v = malloc(n * sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = 100 + (int64_t)(unit() * 100000);
	check_quantiles("uniform", v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = (int64_t)exp(log(10.0) * (1 + 6 * unit()));	/* 10 ns .. 10 ms */
	check_quantiles("log-uniform", v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = next() % 10 ? 800 + (int64_t)(next() % 50) : 3000000 + (int64_t)(next() % 1000);
	check_quantiles("bimodal", v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = 1500;
	check_quantiles("constant", v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = next() % 3 ? 0 : (int64_t)(next() % 40);	/* small: exact */
	check_quantiles("zeros and small", v, n);
	free(v);
}

/* Below 50 ns a bucket holds one whole number: even binned, small times are exact. */
static void small_exact(void)
{
	struct qsketch q = { 0 };

	for (int i = 0; i < 3 * QSKETCH_EXACT; i++)
		qsketch_add(&q, 1 + i % 49);
	CHECK(qsketch_rank(&q, 0) == 1 && qsketch_rank(&q, q.n - 1) == 49);
	for (uint64_t k = 0; k < q.n; k += 97) {
		double got = qsketch_rank(&q, k);
		CHECK_MSG(got == floor(got), "rank %llu: %f", (unsigned long long)k, got);
	}
	qsketch_free(&q);
}

/* Merged, two sketches answer as one fed both streams. */
static void merge(void)
{
	struct qsketch a = { 0 }, b = { 0 }, all = { 0 };

	for (int i = 0; i < 10000; i++) {
		int64_t x = 1000 + (int64_t)(next() % 5000), y = 200 + (int64_t)(next() % 100);
		qsketch_add(&a, x);
		qsketch_add(&all, x);
		if (i < 3000) {
			qsketch_add(&b, y);
			qsketch_add(&all, y);
		}
	}
	CHECK(qsketch_merge(&a, &b) == 0);
	CHECK(a.n == all.n && a.min == all.min && a.max == all.max);
	for (uint64_t k = 0; k < a.n; k += 500)
		CHECK(qsketch_rank(&a, k) == qsketch_rank(&all, k));
	qsketch_free(&a);
	qsketch_free(&b);
	qsketch_free(&all);
}

int main(void)
{
	distributions(1001);
	distributions(QSKETCH_EXACT);
	distributions(200001);
	small_exact();
	merge();
	return check_failures != 0;
}
