/* bornbench SIZE N - N rounds of malloc(SIZE), one byte written, free: the cost std.diff
 * adds to a malloc by copying the new block (diff.c, born()); prints the CPU ns
 * per round.  glibc's mmap threshold is raised first (a 64 MiB block made and freed), so
 * that big blocks come from the heap, reused, as in a long-running program. */
#include <stdio.h>
#include <stdlib.h>
#include "../cputime.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bornbench SIZE N\n");
		return 2;
	}
	size_t size = (size_t)atol(argv[1]);
	long n = atol(argv[2]);
	void *keep = malloc(size);	/* one live block: the others reuse one place */

	free(malloc(64 << 20));
	double t0 = cpu_ns();
	for (long i = 0; i < n; i++) {
		char *p = malloc(size);
		p[i % (long)size] = 1;
		__asm__ volatile("" : : "r"(p) : "memory");
		free(p);
	}
	printf("cpu_ns_per_round %.1f\n", (cpu_ns() - t0) / (double)n);
	free(keep);
	return 0;
}
