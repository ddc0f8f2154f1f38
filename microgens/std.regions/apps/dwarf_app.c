/* dwarf_app.c - test_std_regions_dwarf.py's program: calls whose pointers point into
 * stack variables among other locals */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "dw.h"

/* the size of the first local below: 32, or 40 in another build (the test's app_other) */
#ifndef OTHER
#define OTHER 32
#endif

struct out { char name[100]; double y; };
static volatile long sink;

/* n, x and st among 256 bytes of other locals, rewritten before each call */
__attribute__((noinline)) static double locals(int k)
{
	long other[OTHER];
	int n = 5;
	double x[5];
	struct out st;
	for (int i = 0; i < 32; i++)
		other[i] = k * 1000 + i;
	for (int i = 0; i < 5; i++)
		x[i] = k + i;
	memset(st.name, 'a' + k, sizeof(st.name));
	__asm__ volatile("" : : "r"(other), "r"(&n), "r"(x), "r"(&st) : "memory");
	double r = take(&n, x, &st.y);
	for (int i = 0; i < 32; i++)
		sink += other[i] + st.name[i];
	return r;
}

/* the seventh int is passed on the stack, in the caller's frame, next to its locals */
__attribute__((noinline)) static double seventh(int a, int b, int c, int d, int e, int f, int g)
{
	double x[8];
	for (int i = 0; i < 8; i++)
		x[i] = a + b + c + d + e + f + i;
	__asm__ volatile("" : : "r"(x) : "memory");
	double y;
	double r = take(&g, x, &y);
	return r + y;
}

__attribute__((noinline)) static double calls_seventh(int k)
{
	long busy[16];
	for (int i = 0; i < 16; i++)
		busy[i] = k + i;
	__asm__ volatile("" : : "r"(busy) : "memory");
	double r = seventh(k, 2, 3, 4, 5, 6, 7);
	for (int i = 0; i < 16; i++)
		sink += busy[i];
	return r;
}

int main(void)
{
	double s = 0;
	for (int k = 1; k <= 3; k++)
		s += locals(k);
	s += calls_seventh(1);
	printf("%.1f\n", s);
	/* the next descriptor number, appended for the test (each run adds its line) */
	FILE *f = fopen("fd.txt", "a");
	fprintf(f, "%d\n", open("/dev/null", O_RDONLY));
	fclose(f);
	return 0;
}
