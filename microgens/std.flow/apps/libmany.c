/* libmany.c - see many.h: each row gets 8 numbers, none zero (std.diff counts a zero
 * written into a new block as no change) */
#include "many.h"

void fill_rows(double **rows, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < 8; j++)
			rows[i][j] = i + j + 1;
}
