/* libfort.c - a Fortran routine's C face (gfortran's: every argument by reference):
 * reads n, writes b[0..n) and info */
#include "fort.h"
void solve_(const int *n, double *b, int *info)
{
	for (int i = 0; i < *n; i++)
		b[i] = b[i] / 2;
	*info = 0;
}
