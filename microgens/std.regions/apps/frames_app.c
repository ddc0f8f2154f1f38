/* frames_app.c - test_std_regions_frames.py's program: one call place reached through
 * frames that change */
#include <stdio.h>
#include "fr.h"

static volatile double sink;

/* two callers with arrays of different sizes, called in turn: the same take() call
 * place in each, two chains of frames */
__attribute__((noinline)) static double small(int k)
{
	double a[5];
	for (int i = 0; i < 5; i++)
		a[i] = k + i;
	__asm__ volatile("" : : "r"(a) : "memory");
	return take(a);
}

__attribute__((noinline)) static double big(int k)
{
	double b[50];
	for (int i = 0; i < 50; i++)
		b[i] = k + i;
	__asm__ volatile("" : : "r"(b) : "memory");
	return take(b);
}

/* the same code at several depths: a 3-double array in each frame, the call made from
 * the deepest one with a pointer to the outermost one's */
__attribute__((noinline)) static double deep(int depth, const double *outer)
{
	double c[3] = { depth, depth + 1, depth + 2 };
	__asm__ volatile("" : : "r"(c) : "memory");
	if (depth == 0)
		return take(outer ? outer : c);
	return deep(depth - 1, outer ? outer : c) + c[0];
}

/* a VLA: the frame's size changes from call to call */
__attribute__((noinline)) static double vla(int n)
{
	double v[n];
	for (int i = 0; i < n; i++)
		v[i] = i;
	__asm__ volatile("" : : "r"(v) : "memory");
	return take(v);
}

int main(void)
{
	double s = 0;
	for (int k = 0; k < 3; k++)
		s += small(k) + big(k);
	for (int d = 1; d <= 4; d++)
		s += deep(d, NULL);
	for (int k = 0; k < 2; k++)
		s += vla(4) + vla(40);
	printf("%.1f\n", s);
	return 0;
}
