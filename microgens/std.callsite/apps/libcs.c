/* libcs.c - test_std_callsite.py's library: one function with some work, and two that
 * call it from inside the library (through the PLT: the wrapper sees those calls) */
#include "cs.h"
long cs_work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i;
	return s;
}

long cs_outer(long n)
{
	return cs_work(n) + 1;	/* CALL_IN */
}

long cs_tail(long n)
{
	return cs_work(n);
}
