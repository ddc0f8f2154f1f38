/* align - how much a dgemm_'s time depends on where its matrices start within a cache
 * line: N x N x N products on operands placed OA, OB, OC bytes past a page boundary,
 * median of 3000 calls (operands rewritten before each, as gemm_shapes does).
 *
 *   cc -O2 -o align bench/validate/align.c /usr/lib/x86_64-linux-gnu/openblas-serial/libblas.so.3
 *   OPENBLAS_CORETYPE=SkylakeX ./align 32 0 0 0; OPENBLAS_CORETYPE=SkylakeX ./align 32 16 16 16
 *
 * Found while a model's sweep and an application disagreed by 18 % on the same shape: the
 * only difference was where malloc had put the matrices (BENCHMARKS.md, issue 5). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
	    const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
	    const double *beta, double *c, const int *ldc, size_t transa_len, size_t transb_len);

#define CALLS 3000

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s N OA OB OC\n", argv[0]);
		return 2;
	}
	int n = atoi(argv[1]);
	long off[3] = { atol(argv[2]), atol(argv[3]), atol(argv[4]) };
	size_t span = ((size_t)n * (size_t)n * sizeof(double) + 8191) & ~(size_t)4095;
	char *pool;
	if (n < 1 || posix_memalign((void **)&pool, 4096, 3 * span))
		return 1;
	for (int i = 0; i < 3; i++)
		if (off[i] < 0 || off[i] > 4096 || off[i] % 8) {
			fprintf(stderr, "align: offsets are multiples of 8 in 0..4096\n");
			return 2;
		}
	double *a = (double *)(pool + off[0]), *b = (double *)(pool + span + off[1]);
	double *c = (double *)(pool + 2 * span + off[2]);
	static double t[CALLS];
	const double one = 1.0;
	for (int r = 0; r < CALLS; r++) {
		for (long i = 0; i < (long)n * n; i++) {
			a[i] = (double)(i % 7);
			b[i] = (double)(i % 5);
			c[i] = 0;
		}
		double t0 = now_ns();
		dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &one, c, &n, 1, 1);
		t[r] = now_ns() - t0;
	}
	qsort(t, CALLS, sizeof(t[0]), by_value);
	printf("n=%d offsets %ld %ld %ld: median %.0f ns\n", n, off[0], off[1], off[2], t[CALLS / 2]);
	return 0;
}
