/* libnested.c - nested_outer(n) calls nested_inner n times.  nested_inner is exported
 * and interposable, so the call goes through the PLT and a preloaded wrapper of it sees
 * every one: many short nested calls, where tracing's cost inside the outer call is
 * most of the outer call's time. */
#include "nested.h"

long nested_inner(long x)
{
	return x * 3 + 1;
}

long nested_outer(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += nested_inner(i);
	return s;
}
