/* blas.c - this machine's CPU through a BLAS library, for bench/devices/host.sh:
 *   blas LIB MIN_S KIND:N...
 * KIND dgemm or sgemm (n x n matrices), daxpy or saxpy (n elements, in cache), or call
 * (daxpy of n elements: n = 1 gives the cost of one small call).  Prints "KIND N VALUE"
 * a line: flop/s, or ns per call for 'call'.  LIB is opened by path, so the BLAS measured
 * is the one named, whatever the system's alternatives say.  Each measure repeats the call
 * until MIN_S seconds of this thread's CPU time: other processes' time does not count. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The Fortran interfaces; the trailing lengths are the character arguments' (gfortran). */
typedef void gemm_fn(const char *, const char *, const int *, const int *, const int *,
		     const void *, const void *, const int *, const void *, const int *,
		     const void *, void *, const int *, size_t, size_t);
typedef void axpy_fn(const int *, const void *, const void *, const int *, void *,
		     const int *);

struct bench {
	gemm_fn *gemm[2];	/* sgemm_, dgemm_ */
	axpy_fn *axpy[2];	/* saxpy_, daxpy_ */
	void *a, *b, *c;	/* the largest size's operands, in double */
	double min_s;
};

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* One call of KIND (0 gemm, 1 axpy, in precision D: 0 s, 1 d) on n. */
static void once(const struct bench *b, int kind, int d, int n)
{
	static const double one_d = 1, zero_d = 0, small_d = 1e-9;
	static const float one_s = 1, zero_s = 0, small_s = 1e-9f;
	static const int inc = 1;

	if (kind == 0)
		b->gemm[d]("N", "N", &n, &n, &n, d ? (const void *)&one_d : &one_s, b->a, &n, b->b,
			   &n, d ? (const void *)&zero_d : &zero_s, b->c, &n, 1, 1);
	else
		b->axpy[d](&n, d ? (const void *)&small_d : &small_s, b->a, &inc, b->c, &inc);
}

/* Seconds per call: after one call to warm the caches, batches that double until one
 * takes MIN_S. */
static double per_call(const struct bench *b, int kind, int d, int n)
{
	once(b, kind, d, n);
	for (long reps = 1;; reps *= 2) {
		double t0 = cpu_s(), t;
		for (long i = 0; i < reps; i++)
			once(b, kind, d, n);
		t = cpu_s() - t0;
		if (t >= b->min_s || reps >= 1L << 40)
			return t / (double)reps;
	}
}

/* Measures one "KIND:N" and prints its line.  0, or -1 when it is not one. */
static int measure(const struct bench *b, const char *spec, int max_n)
{
	static const char *const kinds[] = { "sgemm", "dgemm", "saxpy", "daxpy", "call" };
	const char *colon = strchr(spec, ':');
	int n = colon ? atoi(colon + 1) : 0;

	for (int k = 0; colon && n > 0 && k < 5; k++) {
		if (strncmp(spec, kinds[k], (size_t)(colon - spec)) || strlen(kinds[k]) !=
		    (size_t)(colon - spec) || (k < 2 ? (long)n * n > (long)max_n : n > max_n))
			continue;
		double s = per_call(b, k >= 2, k == 4 || k % 2, n);
		double flops = k < 2 ? 2.0 * n * n * n : 2.0 * n;
		printf("%s %d %.6g\n", kinds[k], n, k == 4 ? s * 1e9 : flops / s);
		return 0;
	}
	fprintf(stderr, "blas: '%s' is not KIND:N within the arrays' %d elements\n", spec, max_n);
	return -1;
}

/* The largest array the specs need, in elements. */
static int elements(int argc, char **argv)
{
	long most = 1;

	for (int i = 3; i < argc; i++) {
		const char *colon = strchr(argv[i], ':');
		long n = colon ? atol(colon + 1) : 0;
		if (strstr(argv[i], "gemm:"))
			n *= n;
		most = n > most ? n : most;
	}
	return most < 1L << 28 ? (int)most : 1 << 28;
}

static int load(struct bench *b, const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "blas: %s\n", dlerror());
		return -1;
	}
	b->gemm[0] = (gemm_fn *)dlsym(h, "sgemm_");
	b->gemm[1] = (gemm_fn *)dlsym(h, "dgemm_");
	b->axpy[0] = (axpy_fn *)dlsym(h, "saxpy_");
	b->axpy[1] = (axpy_fn *)dlsym(h, "daxpy_");
	if (!b->gemm[0] || !b->gemm[1] || !b->axpy[0] || !b->axpy[1]) {
		fprintf(stderr, "blas: %s lacks sgemm_, dgemm_, saxpy_ or daxpy_\n", lib);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bench b = { .min_s = argc > 2 ? atof(argv[2]) : 0 };

	if (argc < 4 || b.min_s <= 0) {
		fputs("usage: blas LIB MIN_S KIND:N...  (KIND: dgemm sgemm daxpy saxpy call)\n",
		      stderr);
		return 2;
	}
	int n = elements(argc, argv);
	if (load(&b, argv[1]) != 0)
		return 1;
	b.a = malloc(sizeof(double) * (size_t)n);
	b.b = malloc(sizeof(double) * (size_t)n);
	b.c = calloc((size_t)n, sizeof(double));
	if (!b.a || !b.b || !b.c)
		return perror("blas"), 1;
	for (int i = 0; i < n; i++)	/* ordinary numbers in both precisions: no denormals */
		((double *)b.a)[i] = ((double *)b.b)[i] = 1.0 / (i % 7 + 1);
	for (int i = 3; i < argc; i++)
		if (measure(&b, argv[i], n) != 0)
			return 2;
	return 0;
}
