/* callbench - N calls of a library function with three heap pointers (three), with one
 * pointer to a 64-byte array in the caller's stack frame (one: std.regions unwinds for
 * it), or with one pointer to a static 64-byte array (one: sized by the program's
 * symbols); prints the loop's CPU time per call.   callbench heap|stack|static N */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../cputime.h"
#include "args.h"

__attribute__((noinline)) static long stack_call(void)
{
	char buf[64];
	memset(buf, 1, sizeof(buf));
	long r = one(buf);
	__asm__ volatile("" : : "r"(buf) : "memory");
	return r;
}

static char sbuf[64] = { 1 };

int main(int argc, char **argv)
{
	int stack = !strcmp(argv[1], "stack"), stat = !strcmp(argv[1], "static");
	long n = atol(argv[2]), s = 0;
	double *a = malloc(4096), *b = malloc(8192), *c = malloc(1024);

	a[0] = b[0] = 1;
	double t0 = cpu_ns();
	for (long i = 0; i < n; i++)
		s += stack ? stack_call() : stat ? one(sbuf) : three(a, b, c);
	printf("cpu_ns_per_call %.2f\n", (cpu_ns() - t0) / (double)n);
	return s == 42;
}
