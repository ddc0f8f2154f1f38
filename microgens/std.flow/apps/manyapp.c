/* manyapp.c - N rows of 8 doubles, each its own heap block, filled by one call:
 * manyapp N.  Prints the sum. */
#include <stdio.h>
#include <stdlib.h>
#include "many.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	double **rows = malloc((size_t)n * sizeof(*rows)), sum = 0;

	if (!rows)
		return 1;
	for (int i = 0; i < n; i++)
		if (!(rows[i] = calloc(8, sizeof(double))))
			return 1;
	fill_rows(rows, n);
	for (int i = 0; i < n; i++)
		sum += rows[i][7];
	printf("%g\n", sum);
	for (int i = 0; i < n; i++)
		free(rows[i]);
	free(rows);
	return 0;
}
