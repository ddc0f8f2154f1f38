/* librl.c - rl.h */
#include "rl.h"

void mv(const double *a, const double *x, double *y, int n)
{
	for (int i = 0; i < n; i++) {
		double s = 0;
		for (int j = 0; j < n; j++)
			s += a[(long)i * n + j] * x[j];
		y[i] = s;
	}
}

void twice(const double *x, double *y, int n)
{
	for (int i = 0; i < n; i++)
		y[i] = 2 * x[i] + 1;
}

double total(const double *x, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += x[i];
	return s;
}
