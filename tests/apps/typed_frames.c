/* test_std_diff_typed's program: reference BLAS dgemm_ on three 24 x 24 stack arrays
 * of doubles filled in one corner (M x M); before each product another function
 * leaves its own words where those arrays will be, as printf's frames do between two
 * calls of an application.  argv[1] names it: ints (integers, addresses, negative
 * integers), frames (a recursion's canaries and return addresses over those integers)
 * or doubles (plain numbers); the sizes M follow.  Built with -g -fstack-protector-all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blas.h"

#define MAX 24
#define WORDS (3 * MAX * MAX + 64)	/* over the three arrays of product's frame */
static volatile long sink;

/* integers, addresses and negative integers, as a printf's frames leave */
__attribute__((noinline)) static void ints(int seed)
{
	volatile long w[WORDS];
	for (int i = 0; i < WORDS; i++)
		w[i] = i % 3 == 0 ? (long)i * seed : i % 3 == 1 ? (long)&w[i] : -(long)i - seed;
	sink = w[seed];
}

/* a recursion's frames: each a canary (built with -fstack-protector-all), a return
 * address and two words of its own (never zero: depth + 1 and its negative).  gcc
 * leaves two of the frame's six words unwritten (alignment): they keep what ints()
 * laid there just before, not what libc left there earlier (the dynamic linker's
 * saved vector registers, strtol's or printf's frames: they differ with the CPU and
 * the libc build, and hold numbers) */
__attribute__((noinline)) static long frames(int depth)
{
	volatile long w[2] = { depth + 1, -depth - 1 };
	long r = depth > 0 ? frames(depth - 1) : 0;
	return r + w[0] + w[1];
}

/* numbers: indistinguishable from the program's own doubles */
__attribute__((noinline)) static void doubles(int seed)
{
	volatile double w[WORDS];
	for (int i = 0; i < WORDS; i++)
		w[i] = seed + i * 0.25;
	sink = (long)w[seed];
}

static double fresh(void)
{
	static unsigned long s = 88172645463325252ul;
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return 0.5 + (double)(s >> 11) * 0x1p-53;
}

/* C = A B + C, each M x M in a corner of its 24 x 24 array */
__attribute__((noinline)) static void product(int m)
{
	double a[MAX * MAX], b[MAX * MAX], c[MAX * MAX];
	char t = 'N';
	int n = m, k = m, ld = m;
	double alpha = 1.0, beta = 1.0;
	for (int i = 0; i < m * m; i++) {
		a[i] = fresh();
		b[i] = fresh();
		c[i] = fresh();
	}
	dgemm_(&t, &t, &m, &n, &k, &alpha, a, &ld, b, &ld, &beta, c, &ld, 1, 1);
	sink = (long)c[m * m - 1];
}

int main(int argc, char **argv)
{
	for (int i = 2; i < argc; i++) {
		int m = atoi(argv[i]);
		if (!strcmp(argv[1], "ints")) {
			ints(m);
		} else if (!strcmp(argv[1], "frames")) {
			ints(m);
			sink = frames(300 + 7 * m);
		} else {
			doubles(m);
		}
		product(m);
		printf("%d\n", m);
	}
	return 0;
}
