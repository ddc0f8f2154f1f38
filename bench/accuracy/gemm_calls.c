/* gemm_calls - matrix products through the Fortran BLAS dgemm_, one call per case, for
 * the accuracy harness (bench/accuracy/run.py): how the automatic estimates of bytes in
 * and out compare with the exact ones.
 *
 *   gemm_calls CASE...        CASE = STORAGE:TT:MxNxK:BETA
 *
 *   STORAGE  where A, B and C live:
 *            heap    three blocks of exactly their size (malloc), freed after the call;
 *                    the scalars are locals of the calling function (the usual C idiom:
 *                    dgemm_(&ta, &tb, &m, ...));
 *            lit     heap blocks as above, the transposes as string literals ("N", "T")
 *                    and alpha, beta as static constants (dgemm_("N", "T", &m, ..., &one,
 *                    ...)): the pointers go into the program's read-only data;
 *            sub     submatrices of bigger blocks (a blocked algorithm's tiles): leading
 *                    dimensions 7 elements more than the rows, the tile 3 columns in;
 *            pool    A, B and C carved out of one block (a workspace), one after another;
 *            stack   arrays in the calling function's frame (up to 24 x 24 each);
 *            static  static arrays of the program (up to 64 x 64 each).
 *   TT       the transposes of A and B: NN, NT, TN or TT.
 *   BETA     0 (C is written only) or 1 (C = alpha A B + C: C is read too).
 *
 * Before every call the program writes fresh pseudo-random nonzero doubles into the parts
 * of A and B the call reads, and into C when beta != 0, as an application producing new
 * data would: the full (content) method counts only what changed.  It prints a line per
 * case, "case CASE FIRST COUNT" (the number of its first dgemm_ call, from 0, and how many
 * it made), then one checksum over every C; the calls and their data are the same on
 * every run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
	    const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
	    const double *beta, double *c, const int *ldc, size_t transa_len, size_t transb_len);

#define STACK_MAX 24
#define STATIC_MAX 64

static uint64_t state = 0x9e3779b97f4a7c15ull;
static double checksum;
static double static_a[STATIC_MAX * STATIC_MAX], static_b[STATIC_MAX * STATIC_MAX],
	static_c[STATIC_MAX * STATIC_MAX];

/* xorshift64*: a new value in [0.5, 1.5) every time (never 0) */
static double fresh(void)
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return 0.5 + (double)((state * 0x2545f4914f6cdd1dull) >> 11) * 0x1p-53;
}

/* fills the ROWS x COLS matrix at X (leading dimension LD) with fresh values */
static void fill(double *x, int rows, int cols, int ld)
{
	for (int j = 0; j < cols; j++)
		for (int i = 0; i < rows; i++)
			x[(size_t)j * ld + i] = fresh();
}

static void add_up(const double *c, int m, int n, int ldc)
{
	for (int j = 0; j < n; j++)
		for (int i = 0; i < m; i++)
			checksum += c[(size_t)j * ldc + i];
}

struct shape {
	char ta, tb;
	int m, n, k;
	double beta;
	int ar, ac, br, bc;	/* stored rows and columns of A and B */
};

/* A, B (and C when beta != 0) refilled, then the call with the scalars in this frame */
static __attribute__((noinline)) void product(const struct shape *s, double *a, int lda, double *b,
					      int ldb, double *c, int ldc)
{
	char ta = s->ta, tb = s->tb;
	int m = s->m, n = s->n, k = s->k;
	double alpha = 0.75, beta = s->beta;

	fill(a, s->ar, s->ac, lda);
	fill(b, s->br, s->bc, ldb);
	if (beta != 0.0)
		fill(c, m, n, ldc);
	dgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
	add_up(c, m, n, ldc);
}

/* the same with literals and static constants, as much C code calls the Fortran BLAS */
static __attribute__((noinline)) void product_lit(const struct shape *s, double *a, double *b,
						  double *c)
{
	static const double one = 1.0, zero = 0.0;
	int m = s->m, n = s->n, k = s->k, lda = s->ar, ldb = s->br;

	fill(a, s->ar, s->ac, lda);
	fill(b, s->br, s->bc, ldb);
	if (s->beta != 0.0)
		fill(c, m, n, m);
	dgemm_(s->ta == 'N' ? "N" : "T", s->tb == 'N' ? "N" : "T", &m, &n, &k, &one, a, &lda, b, &ldb,
	       s->beta != 0.0 ? &one : &zero, c, &m, 1, 1);
	add_up(c, m, n, m);
}

/* the matrices in this frame, next to the scalars */
static __attribute__((noinline)) void product_stack(const struct shape *s)
{
	double a[STACK_MAX * STACK_MAX], b[STACK_MAX * STACK_MAX], c[STACK_MAX * STACK_MAX];
	char ta = s->ta, tb = s->tb;
	int m = s->m, n = s->n, k = s->k, lda = s->ar, ldb = s->br, ldc = s->m;
	double alpha = 0.75, beta = s->beta;

	fill(a, s->ar, s->ac, lda);
	fill(b, s->br, s->bc, ldb);
	if (beta != 0.0)
		fill(c, m, n, ldc);
	dgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
	add_up(c, m, n, ldc);
}

static void *alloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "gemm_calls: out of memory\n");
		exit(1);
	}
	return p;
}

static void run_case(const char *arg)
{
	char storage[16], tt[3];
	struct shape s;
	int beta;

	if (sscanf(arg, "%15[a-z]:%2[NT]:%dx%dx%d:%d", storage, tt, &s.m, &s.n, &s.k, &beta) != 6
	    || s.m < 1 || s.n < 1 || s.k < 1 || (beta != 0 && beta != 1)) {
		fprintf(stderr, "gemm_calls: bad case '%s' (STORAGE:TT:MxNxK:BETA)\n", arg);
		exit(2);
	}
	s.ta = tt[0];
	s.tb = tt[1];
	s.beta = beta;
	s.ar = s.ta == 'N' ? s.m : s.k;
	s.ac = s.ta == 'N' ? s.k : s.m;
	s.br = s.tb == 'N' ? s.k : s.n;
	s.bc = s.tb == 'N' ? s.n : s.k;
	size_t na = (size_t)s.ar * s.ac, nb = (size_t)s.br * s.bc, nc = (size_t)s.m * s.n;

	if (!strcmp(storage, "heap") || !strcmp(storage, "lit")) {
		double *a = alloc(na * 8), *b = alloc(nb * 8), *c = alloc(nc * 8);
		if (storage[0] == 'h')
			product(&s, a, s.ar, b, s.br, c, s.m);
		else
			product_lit(&s, a, b, c);
		free(a);
		free(b);
		free(c);
	} else if (!strcmp(storage, "sub")) {
		/* each a tile of a bigger matrix: 7 more rows, starting 3 columns in */
		int lda = s.ar + 7, ldb = s.br + 7, ldc = s.m + 7;
		double *a = alloc((size_t)lda * (s.ac + 5) * 8), *b = alloc((size_t)ldb * (s.bc + 5) * 8),
		       *c = alloc((size_t)ldc * (s.n + 5) * 8);
		product(&s, a + 3 * lda, lda, b + 3 * ldb, ldb, c + 3 * ldc, ldc);
		free(a);
		free(b);
		free(c);
	} else if (!strcmp(storage, "pool")) {
		double *w = alloc((na + nb + nc) * 8);
		product(&s, w, s.ar, w + na, s.br, w + na + nb, s.m);
		free(w);
	} else if (!strcmp(storage, "stack")) {
		if (na > STACK_MAX * STACK_MAX || nb > STACK_MAX * STACK_MAX || nc > STACK_MAX * STACK_MAX) {
			fprintf(stderr, "gemm_calls: '%s' too big for the stack arrays\n", arg);
			exit(2);
		}
		product_stack(&s);
	} else if (!strcmp(storage, "static")) {
		if (na > STATIC_MAX * STATIC_MAX || nb > STATIC_MAX * STATIC_MAX
		    || nc > STATIC_MAX * STATIC_MAX) {
			fprintf(stderr, "gemm_calls: '%s' too big for the static arrays\n", arg);
			exit(2);
		}
		product(&s, static_a, s.ar, static_b, s.br, static_c, s.m);
	} else {
		fprintf(stderr, "gemm_calls: unknown storage '%s'\n", storage);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s STORAGE:TT:MxNxK:BETA...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		run_case(argv[i]);
		printf("case %s %d 1\n", argv[i], i - 1);
	}
	printf("calls=%d checksum=%.17g\n", argc - 1, checksum);
	return 0;
}
