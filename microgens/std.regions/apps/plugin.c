/* plugin.c - test_std_regions_dwarf.py's plugins, built twice: OTHER longs and N doubles
 * of locals, and (PAD) a function before run that moves it */
#include "dw.h"
static volatile long sink;
#ifdef PAD
__attribute__((noinline)) double pad(double a) { return a * a + 1; }
#endif
__attribute__((noinline)) double run(int k)
{
	long other[OTHER];
	int n = N;
	double x[N], y;
	for (int i = 0; i < OTHER; i++)
		other[i] = k + i;
	for (int i = 0; i < N; i++)
		x[i] = k + i;
	__asm__ volatile("" : : "r"(other), "r"(&n), "r"(x) : "memory");
	double r = take(&n, x, &y);
	for (int i = 0; i < OTHER; i++)
		sink += other[i];
	return r + y;
}
