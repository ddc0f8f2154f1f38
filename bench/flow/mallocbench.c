/* mallocbench - N malloc/free pairs of mixed sizes (16 B to 4 KiB, 8 live at a time),
 * as bench/malloc/mallocbench.c on one thread, after one wrapped call (p1): the trace
 * and its spool exist, as in a program that calls its library before it allocates
 * (std.flow keeps its events in memory until the spool exists).  Prints the loop's CPU
 * time per pair.   mallocbench N */
#include <stdio.h>
#include <stdlib.h>
#include "../cputime.h"
#include "ptrs.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	void *live[8] = { 0 };
	unsigned x = 1;
	double one = 1;

	long s = p1(&one);
	double t0 = cpu_ns();
	for (long i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		int slot = (int)(x >> 8 & 7);
		free(live[slot]);
		live[slot] = malloc(16 + (x >> 12 & 4095));
		__asm__ volatile("" : : "r"(live[slot]) : "memory");
	}
	printf("cpu_ns_per_pair %.2f\n", (cpu_ns() - t0) / (double)n);
	for (int i = 0; i < 8; i++)
		free(live[i]);
	return s == 42;
}
