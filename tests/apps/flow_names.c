/* flow_names.c - a program never run: tests/tools/test_dyl_flow.py's
 * test_names_made_offline names addresses in it (a site in make, the static table, a
 * frame of fill seen from two places) as a run's TRACE.flow would hold them. */
#include <stdlib.h>

double table[32];

__attribute__((noinline)) double *make(int n)
{
	return malloc(sizeof(double) * (size_t)n);
}

__attribute__((noinline)) double fill(int n)
{
	volatile double local[16];
	for (int i = 0; i < 16; i++)
		local[i] = table[i] * n;
	return local[n & 15];
}

int main(int argc, char **argv)
{
	double *p = make(argc + 1);
	(void)argv;
	p[0] = fill(argc);
	return (int)p[0];
}
