/* libfl.c - fl.h: each function reads its const buffer and writes its other one */
#include "fl.h"

void produce(double *out, int count)
{
	for (int i = 0; i < count; i++)
		out[i] = i + 1;	/* no zero: std.diff sees every element change */
}

void transform(const double *in, double *out, int count)
{
	for (int i = 0; i < count; i++)
		out[i] = 2 * in[i];
}

double consume(const double *in, int count)
{
	double s = 0;
	for (int i = 0; i < count; i++)
		s += in[i];
	return s;
}

void tick(int k)
{
	(void)k;
}
