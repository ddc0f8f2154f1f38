/* followbench - N calls of p1 (ptrs.h) handed the head of a list of K nodes of 32
 * bytes, the same list every call: what std.flow's follow= adds per call and per node
 * reached.  ints: each node's two pad words hold integers that look like addresses
 * (2^32 + i, two packed ints: in the user address space, in no heap block).  Prints the
 * loop's CPU time per call.   followbench K N [ints] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../cputime.h"
#include "ptrs.h"

struct node {			/* p1 reads the value */
	double value;
	struct node *next;
	double pad[2];
};

int main(int argc, char **argv)
{
	long k = atol(argv[1]), n = atol(argv[2]), s = 0;
	int ints = argc > 3;
	struct node *head = NULL;

	for (long i = 0; i < k; i++) {
		struct node *e = calloc(1, sizeof(*e));
		e->value = (double)i;
		long m = (1L << 32) | i;
		if (ints) {
			memcpy(&e->pad[0], &m, sizeof(m));
			memcpy(&e->pad[1], &m, sizeof(m));
		}
		e->next = head;
		head = e;
	}
	double t0 = cpu_ns();
	for (long i = 0; i < n; i++)
		s += p1(&head->value);
	printf("cpu_ns_per_call %.2f\n", (cpu_ns() - t0) / (double)n);
	return s == 42;
}
