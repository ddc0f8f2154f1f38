/* flow_sites.c - heap blocks from several allocation sites, for the check of std.flow's
 * objects against Valgrind's DHAT (tests/tools/test_flow_dhat.py): both name each site
 * by file and line and count its blocks and bytes.
 *
 *   flow_sites [N]          (default 12)
 *
 * Sites: a loop of N mallocs of growing sizes (one site, N blocks), a calloc, a helper's
 * malloc called from two lines (two sites), a posix_memalign.  Every block is handed
 * to the reference BLAS's dasum_ so a wrapped call sees it.  The helper is not inlined:
 * both tools then name the same frames.
 */
#include <stdio.h>
#include <stdlib.h>
#include "../../examples/blas.h"

static __attribute__((noinline)) double *make(int n)
{
	double *p = malloc(sizeof(double) * n);	/* SITE HELPER */
	for (int i = 0; i < n; i++)
		p[i] = i % 3 + 1;
	return p;
}

static double sum(const double *v, int n)
{
	int one = 1;
	return dasum_(&n, v, &one);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 12;
	double total = 0;
	double *loop[64];

	if (n < 1 || n > 64)
		return 2;
	for (int i = 0; i < n; i++) {
		int len = 16 + 8 * i;
		loop[i] = malloc(sizeof(double) * len);	/* SITE LOOP */
		for (int j = 0; j < len; j++)
			loop[i][j] = j + 1;
		total += sum(loop[i], len);
	}
	double *zeros = calloc(300, sizeof(double));	/* SITE CALLOC */
	total += sum(zeros, 300);
	double *first = make(100);	/* SITE FIRST */
	double *second = make(250);	/* SITE SECOND */
	total += sum(first, 100) + sum(second, 250);
	void *aligned = NULL;
	if (posix_memalign(&aligned, 64, 4096) != 0)	/* SITE ALIGNED */
		return 1;
	for (int i = 0; i < 512; i++)
		((double *)aligned)[i] = 2;
	total += sum(aligned, 512);
	printf("%.1f\n", total);
	for (int i = 0; i < n; i++)
		free(loop[i]);
	free(zeros);
	free(first);
	free(second);
	free(aligned);
	return 0;
}
