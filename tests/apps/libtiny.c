/* libtiny.c - a tiny library for the runtime's process tests (tests/runtime/test_process.py).
 * Build: cc -O2 -fPIC -shared -Wl,-soname,libtiny.so -o libtiny.so libtiny.c */
#include <errno.h>
#include <time.h>
#include "tiny.h"

int tiny_add(int a, int b)
{
	return a + b;
}

/* To an absolute deadline: a sleep restarted after each signal of a fast timer would
 * otherwise never end (each restart sleeps the rest plus the timer slack). */
void tiny_sleep_us(int us)
{
	struct timespec end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_nsec += (long)(us % 1000000) * 1000;
	end.tv_sec += us / 1000000 + end.tv_nsec / 1000000000;
	end.tv_nsec %= 1000000000;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) == EINTR)
		;
}

int tiny_fail_errno(void)
{
	errno = EDOM;
	return -1;
}

int tiny_inner(int x)
{
	return 2 * x;
}

/* Calls tiny_inner through the PLT (an exported, interposable function), so a
 * preloaded wrapper sees the nested call. */
int tiny_outer(int x)
{
	return tiny_inner(x) + 1;
}

int tiny_apply(tiny_cb cb, int x)
{
	return cb(x);
}
