/* real_lu.c - factor once, solve many: an ordinary program over LAPACK (bench/residency/real.sh,
 * tests/tools/test_resid_real.py).  dgetrf_ factors A (N x N) once in place, with its pivots
 * in ipiv; then each of STEPS steps the program writes a right-hand side b, dgetrs_ solves
 * A x = b in place, and the program reads x (its sum).  A port keeps the LU factors and the
 * pivots on the accelerator: they never come back, since the program never reads them.
 * The arrays come from malloc, as any program's would.
 *
 *   real_lu N STEPS     prints "lu info=0 steps=STEPS sum=..."
 *
 * Build: cc -O2 -o real_lu real_lu.c /usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3 \
 *           /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 -Wl,-rpath,...
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../examples/lapack.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 500, steps = argc > 2 ? atoi(argv[2]) : 10;
	int one = 1, info = -99;
	if (n <= 0 || steps < 0) {
		fprintf(stderr, "usage: real_lu N STEPS\n");
		return 2;
	}
	double *a = malloc(sizeof(double) * (size_t)n * (size_t)n);
	double *b = malloc(sizeof(double) * (size_t)n);
	int *ipiv = malloc(sizeof(int) * (size_t)n);
	if (!a || !b || !ipiv)
		return 1;
	/* diagonally dominant, no element zero: every one is written, and pivots exist */
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			a[(size_t)j * n + i] = (i == j ? 2.0 * n : 0.0) + 1.0 / (1 + (i + 3 * j) % 11);
	dgetrf_(&n, &n, a, &n, ipiv, &info);
	if (info != 0) {
		printf("lu info=%d\n", info);
		return 1;
	}
	double sum = 0.0;
	for (int s = 0; s < steps; s++) {
		for (int i = 0; i < n; i++)
			b[i] = 1.0 + (double)((i + s) % 5);	/* never 0: all of b is written */
		dgetrs_("N", &n, &one, a, &n, ipiv, b, &n, &info, 1);
		for (int i = 0; i < n; i++)
			sum += b[i];
	}
	printf("lu info=%d steps=%d sum=%.6f\n", info, steps, sum);
	free(ipiv);
	free(b);
	free(a);
	return 0;
}
