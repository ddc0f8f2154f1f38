/* fort_app.c - test_std_regions_frames.py's program: a C function with a small frame
 * passes &n and &info, scalars by reference as f2py does, and an array on its stack
 * to a Fortran-style routine.  The struct fixes their order in the frame, whatever the
 * compiler: b, then info, then n. */
#include <stdio.h>
#include "fort.h"

struct args {
	double b[4];
	int info, n;
};

__attribute__((noinline)) static double call(int k)
{
	struct args s = { { k, k + 1, k + 2, k + 3 }, -1, 4 };
	__asm__ volatile("" : : "r"(&s) : "memory");
	solve_(&s.n, s.b, &s.info);
	return s.b[0] + s.b[3] + s.info;
}

int main(void)
{
	double t = 0;
	for (int k = 0; k < 3; k++)
		t += call(k);
	printf("%.1f\n", t);
	return 0;
}
