/* rewrite_plain.c - (c) a program rewriting part of an input between calls: each of
 * STEPS steps, the program sets COLS columns of the N x N matrix A (a contiguous run of
 * COLS * N doubles: column-major), then y = A x (dgemv_), and reads y.  A careful port
 * moves A and x once, then only the rewritten columns each step, and y back:
 * rewrite_port.c.  The new values differ from the old in every byte (see newval), so
 * the bytes the program changed are the bytes it wrote.  Usage: rewrite_plain [N [STEPS [COLS]]] */
#include "progs.h"

/* 1.5 * 2^(k+1) + a fraction with bits in every byte: never equal to fill()'s values
 * (at most 1) in any of the 8 bytes, nor to the previous step's */
static double newval(int step, int i)
{
	return (double)(2 << (step % 8)) * (1.5 + 0x1.1111111111111p-4 * (1 + i % 3));
}

int main(int argc, char **argv)
{
	int n = arg(argc, argv, 1, 512), steps = arg(argc, argv, 2, 8), cols = arg(argc, argv, 3, 8);
	int inc = 1;
	size_t nn = (size_t)n * n;
	double *a = pages_of_doubles(nn), *x = pages_of_doubles((size_t)n);
	double *y = pages_of_doubles((size_t)n), one = 1, zero = 0, total = 0;

	fill(a, nn, 4);
	fill(x, (size_t)n, 5);
	for (int s = 0; s < steps; s++) {
		if (s > 0) {
			double *col = a + (size_t)((s * cols) % n) * n;
			for (size_t i = 0; i < (size_t)cols * n; i++)
				col[i] = newval(s, (int)i);
		}
		dgemv_("N", &n, &n, &one, a, &n, x, &inc, &zero, y, &inc, 1);
		total += sum(y, (size_t)n);
	}
	printf("rewrite: n %d steps %d cols %d sum %.6f\n", n, steps, cols, total);
	free(a);
	free(x);
	free(y);
	return 0;
}
