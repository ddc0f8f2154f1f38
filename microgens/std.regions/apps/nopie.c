/* nopie.c - test_std_regions.py's test_heap_tracked_behind_a_canonical_plt_entry: built
 * without PIE, it takes malloc's address, so that malloc is a canonical PLT entry in the
 * program (dlsym finds the program's entry, as in /usr/bin/python3).  fill() gets a heap
 * block of 1000 doubles: its out_bytes is the block's size only if the heap is tracked. */
#include <stdio.h>
#include <stdlib.h>
#include "regs.h"

int main(void)
{
	/* an immediate address in code built without PIC: the link needs a canonical entry */
	void *(*volatile alloc)(size_t) = malloc;
	double *y = alloc(1000 * sizeof(double));
	fill(y, 10, 1.0);
	printf("%g\n", y[9]);
	free(y);
	return 0;
}
