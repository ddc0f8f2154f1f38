/* streambench - N rounds over 8 live 64 KiB heap buffers, one library call a round
 * (p1 on buffer i % 8): the live set is fixed, the run's length is N (bench/flow/stream.sh).
 * Prints the sum, and the CPU seconds up to the end of main (the exit's are the rest).
 *   streambench N */
#include <stdio.h>
#include <stdlib.h>
#include "../cputime.h"
#include "ptrs.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 300000, s = 0;
	double *b[8];

	for (int i = 0; i < 8; i++) {
		b[i] = malloc(65536);
		for (int j = 0; j < 8192; j++)
			b[i][j] = i;
	}
	for (long r = 0; r < n; r++)
		s += p1(b[r % 8]);
	for (int i = 0; i < 8; i++)
		free(b[i]);
	printf("%ld %.3f\n", s, cpu_ns() / 1e9);
	return 0;
}
