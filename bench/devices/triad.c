/* triad.c - memory bandwidth for bench/devices/host.sh: STREAM's triad a = b + s c on
 * three arrays of BYTES in all, counted as STREAM counts them (3 x 8 bytes an element).
 *   triad MIN_S BYTES...
 * Prints "triad BYTES bytes/s" a line.  Each size repeats the loop until MIN_S seconds of
 * this thread's CPU time: other processes' time does not count. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Kept out of line: the loop's passes must not merge. */
__attribute__((noinline)) static void triad(double *restrict a, const double *restrict b,
					    const double *restrict c, double s, long n)
{
	for (long i = 0; i < n; i++)
		a[i] = b[i] + s * c[i];
}

/* Seconds per pass over N elements: one pass to fault the pages in and warm the caches,
 * then batches that double until one takes MIN_S. */
static double per_pass(double *a, double *b, double *c, long n, double min_s)
{
	triad(a, b, c, 0.5, n);
	for (long reps = 1;; reps *= 2) {
		double t0 = cpu_s(), t;
		for (long r = 0; r < reps; r++)
			triad(a, b, c, r & 1 ? 0.5 : 0.25, n);
		t = cpu_s() - t0;
		if (t >= min_s || reps >= 1L << 40)
			return t / (double)reps;
	}
}

int main(int argc, char **argv)
{
	double min_s = argc > 1 ? atof(argv[1]) : 0;

	if (argc < 3 || min_s <= 0) {
		fputs("usage: triad MIN_S BYTES...\n", stderr);
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		long n = atol(argv[i]) / 24;
		double *a = malloc(8 * (size_t)n), *b = malloc(8 * (size_t)n),
		       *c = malloc(8 * (size_t)n);
		if (n <= 0 || !a || !b || !c) {
			fprintf(stderr, "triad: cannot take '%s' bytes\n", argv[i]);
			return 1;
		}
		for (long j = 0; j < n; j++)
			a[j] = 0, b[j] = 1, c[j] = 2;
		double s = per_pass(a, b, c, n, min_s);
		sink = a[n / 2];	/* the passes' results are used */
		printf("triad %s %.6g\n", argv[i], 24.0 * (double)n / s);
		free(a), free(b), free(c);
	}
	return 0;
}
