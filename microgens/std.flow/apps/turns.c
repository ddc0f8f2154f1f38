/* turns.c - two buffers read in turn (double buffering): produce a and b, consume a, b,
 * a, b, a, then transform b into a and a into b twice (each call's pair of buffers the
 * one before last's), a call with no pointer, and consume b.  std.flow writes a call
 * that repeats the accesses of the call before last as one word (DYL_REF_BEFORE). */
#include <stdio.h>
#include <stdlib.h>
#include "fl.h"

int main(void)
{
	double *a = malloc(100 * sizeof(double)), *b = malloc(100 * sizeof(double)), s = 0;

	if (!a || !b)
		return 1;
	produce(a, 100);
	produce(b, 100);
	for (int i = 0; i < 5; i++)
		s += consume(i % 2 ? b : a, 100);
	transform(b, a, 100);
	transform(a, b, 100);
	transform(b, a, 100);
	transform(a, b, 100);
	tick(1);
	s += consume(b, 100);
	printf("%g\n", s);
	free(a);
	free(b);
	return 0;
}
