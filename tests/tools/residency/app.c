/* app.c - the residency tests' programs over librl (tests/tools/test_residency.py works
 * out their transfers by hand).  N = 32: the matrix is 8192 B, a vector 256 B.  Every
 * value a call or the program writes differs from the one before (std.diff sees every
 * element change). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rl.h"

#define N 32
#define STEPS 5

static double *vec(void)
{
	double *v = malloc(N * sizeof(double));
	for (int i = 0; i < N; i++)
		v[i] = i + 1;
	return v;
}

/* an output: zeros, which std.diff does not count as the program's input */
static double *out_vec(void)
{
	return calloc(N, sizeof(double));
}

static double *matrix(void)
{
	double *a = malloc(N * N * sizeof(double));
	for (int i = 0; i < N * N; i++)
		a[i] = 1.0 / (1 + i % 7);
	return a;
}

/* STEPS times y = A x; the program reads y and writes a new x from it (with TOTAL, a
 * library call on the host reads y first) */
static void loop(int with_total)
{
	double *a = matrix(), *x = vec(), *y = out_vec(), s = 0;
	for (int k = 0; k < STEPS; k++) {
		mv(a, x, y, N);
		if (with_total)
			s += total(y, N);
		for (int i = 0; i < N; i++)
			x[i] = y[i] * 1e-3 + k + 2;
	}
	printf("%.6g %.6g\n", x[0], s);
	free(a);
	free(x);
	free(y);
}

/* in -> mv -> mid -> twice -> out; the program prints out */
static void pipeline(void)
{
	double *a = matrix(), *in = vec(), *mid = out_vec(), *out = out_vec();
	mv(a, in, mid, N);
	twice(mid, out, N);
	printf("%.6g\n", out[0]);
	free(a);
	free(in);
	free(mid);
	free(out);
}

/* y = A x twice; between the calls the program rewrites A's row 3 (A[96..127]: bytes
 * 768..1024) */
static void rewrite(void)
{
	double *a = matrix(), *x = vec(), *y = out_vec();
	mv(a, x, y, N);
	for (int j = 0; j < N; j++)
		a[3 * N + j] = -1 - j;
	mv(a, x, y, N);
	printf("%.6g\n", y[3]);
	free(a);
	free(x);
	free(y);
}

/* y = A x, and y is never read */
static void unread(void)
{
	double *a = matrix(), *x = vec(), *y = out_vec();
	mv(a, x, y, N);
	printf("done\n");
	free(a);
	free(x);
	free(y);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "loop";

	if (!strcmp(what, "loop"))
		loop(0);
	else if (!strcmp(what, "loop-total"))
		loop(1);
	else if (!strcmp(what, "pipeline"))
		pipeline();
	else if (!strcmp(what, "rewrite"))
		rewrite();
	else if (!strcmp(what, "unread"))
		unread();
	else
		return 2;
	return 0;
}
