/* libsleepk.c - sleepk.h built three ways, one soname (libsleepk.so.1), chosen with
 * LD_LIBRARY_PATH:
 *   -DSLEEPK_DIV=1   the slow library: sleeps us microseconds
 *   -DSLEEPK_DIV=4   its faster twin: a quarter of it; any number of callers at once
 *   -DSLEEPK_DIV=4 -DSLEEPK_ONE_DEVICE
 *                    the faster twin as one device: callers take turns (a mutex, which
 *                    glibc hands over in no particular order; the calls here never queue
 *                    more than one deep where order would matter, see run.py)
 * The sleep is to an absolute deadline, so a wakeup late for one call is not added to
 * the next. */
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include "sleepk.h"

#ifndef SLEEPK_DIV
#define SLEEPK_DIV 1
#endif

#ifdef SLEEPK_ONE_DEVICE
static pthread_mutex_t device = PTHREAD_MUTEX_INITIALIZER;
#endif

void sleepk(long us)
{
	struct timespec t;

#ifdef SLEEPK_ONE_DEVICE
	pthread_mutex_lock(&device);
#endif
	clock_gettime(CLOCK_MONOTONIC, &t);
	long long ns = (long long)t.tv_nsec + us * 1000LL / SLEEPK_DIV;
	t.tv_sec += ns / 1000000000LL;
	t.tv_nsec = ns % 1000000000LL;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
		;
#ifdef SLEEPK_ONE_DEVICE
	pthread_mutex_unlock(&device);
#endif
}
