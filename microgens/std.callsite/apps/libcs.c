/* libcs.c - test_std_callsite.py's library: one function, some work */
#include "cs.h"
long cs_work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i;
	return s;
}
