/* gemm_shapes - matrix products of given shapes through the Fortran BLAS dgemm_, for the
 * validation harness (bench/validate/run.py).
 *
 *   gemm_shapes [--sweep [--cold]] COUNT:MxNxK ...
 *
 * Default (an application): for each COUNT:MxNxK, COUNT times: fill fresh A (M x K),
 * B (K x N) and C (M x N) with pseudo-random numbers, C = A B + C, add C up.  Filling and
 * adding up are the application's own work, which an accelerator does not speed up.
 *
 * --sweep (a model's run): for each COUNT:MxNxK, fill A, B, C once, then call dgemm_ COUNT
 * times back to back (data warm in the caches, as in most micro-benchmarks); with --cold,
 * read and write a 64 MiB buffer before every call, so that the call starts with A, B and
 * C out of the caches.  Prints a checksum either way.
 *
 * Where each matrix starts within a cache line is drawn again for every call (0, 16, 32
 * or 48 bytes past a 64-byte boundary, as malloc's 16-byte alignment lands them; --sweep
 * draws once per shape).  OpenBLAS's 32^3 dgemm_ takes 800 ns on a 64-byte aligned A and
 * 940 ns on one 16 bytes past it: with malloc's layout, which earlier allocations decide
 * (even libgfortran's buffer for a stderr that is a file rather than a pipe), a model's
 * sweep and an application differed by 18 % for reasons of layout alone.  Drawn per
 * call, both see the same mixture of layouts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
	    const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
	    const double *beta, double *c, const int *ldc, size_t transa_len, size_t transb_len);

static unsigned seed = 12345u;

static void fill(double *x, long len)
{
	for (long i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		x[i] = (double)(seed >> 16 & 0x7fff) / 32768.0 - 0.5;
	}
}

static unsigned layout_seed = 777u;

/* x, moved 0, 16, 32 or 48 bytes past the 64-byte boundary at or above raw */
static double *placed(void *raw)
{
	layout_seed = layout_seed * 1103515245u + 12345u;
	uintptr_t line = ((uintptr_t)raw + 63) & ~(uintptr_t)63;
	return (double *)(line + 16 * (layout_seed >> 16 & 3));
}

static volatile double sink;

static void flush_caches(void)
{
	static double *junk;
	const long len = 64L << 20 >> 3;
	if (!junk && !(junk = calloc((size_t)len, sizeof(double))))
		exit(1);
	double s = 0;
	for (long i = 0; i < len; i += 8) {
		s += junk[i];
		junk[i] = s;
	}
	sink = s;
}

int main(int argc, char **argv)
{
	int sweep = 0, cold = 0, first = 1;
	double check = 0;
	const double one = 1.0;

	for (; first < argc && argv[first][0] == '-'; first++) {
		if (!strcmp(argv[first], "--sweep"))
			sweep = 1;
		else if (!strcmp(argv[first], "--cold"))
			cold = 1;
		else
			break;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: %s [--sweep [--cold]] COUNT:MxNxK ...\n", argv[0]);
		return 2;
	}
	for (int i = first; i < argc; i++) {
		long count;
		int m, n, k;
		if (sscanf(argv[i], "%ld:%dx%dx%d", &count, &m, &n, &k) != 4 || count < 0 || m < 1 ||
		    n < 1 || k < 1) {
			fprintf(stderr, "gemm_shapes: bad shape '%s' (COUNT:MxNxK)\n", argv[i]);
			return 2;
		}
		void *ra = malloc(sizeof(double) * (size_t)m * (size_t)k + 128);
		void *rb = malloc(sizeof(double) * (size_t)k * (size_t)n + 128);
		void *rc = malloc(sizeof(double) * (size_t)m * (size_t)n + 128);
		if (!ra || !rb || !rc)
			return 1;
		double *a = placed(ra), *b = placed(rb), *c = placed(rc);
		if (sweep) {
			fill(a, (long)m * k);
			fill(b, (long)k * n);
			fill(c, (long)m * n);
		}
		for (long r = 0; r < count; r++) {
			if (!sweep) {
				a = placed(ra);
				b = placed(rb);
				c = placed(rc);
				fill(a, (long)m * k);
				fill(b, (long)k * n);
				fill(c, (long)m * n);
			} else if (cold)
				flush_caches();
			dgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &one, c, &m, 1, 1);
			if (!sweep)
				for (long j = 0; j < (long)m * n; j++)
					check += c[j];
		}
		check += c[0];
		free(ra);
		free(rb);
		free(rc);
	}
	printf("checksum %.6f\n", check);
	return 0;
}
