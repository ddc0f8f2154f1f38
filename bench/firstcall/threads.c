/* threads: the first and the second call of nop() (bench/percall/libnop.c) in each of
 * NT threads that all stay alive until the last one has made its calls, so that each
 * needs a spool window of its own (a finished thread's window goes to the next thread);
 * with "seq" (threads NT seq) each thread ends before the next starts: what a program
 * that makes short threads one after another sees.
 * The main thread calls first (the trace and spool exist before the threads start).
 * Each call is timed by the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID) and the wall
 * clock; prints "thread I cpu_first cpu_second wall_first wall_second" a line, after
 * the same for the main thread's first call ("main -"), which also claims the trace.  Run plain
 * and with a wrapper of libnop preloaded (bench/firstcall/threads.sh). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "nop.h"

static int64_t ns(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static pthread_barrier_t all_done;
static int seq;
static volatile int sink;
static int64_t times[256][4];

static void *run(void *arg)
{
	int64_t *t = times[(intptr_t)arg];
	int64_t c0, c1, c2, w0, w1, w2;

	ns(CLOCK_THREAD_CPUTIME_ID);	/* the vDSO's and the clock's first use */
	ns(CLOCK_MONOTONIC);
	c0 = ns(CLOCK_THREAD_CPUTIME_ID); w0 = ns(CLOCK_MONOTONIC);
	sink += nop(1);
	c1 = ns(CLOCK_THREAD_CPUTIME_ID); w1 = ns(CLOCK_MONOTONIC);
	sink += nop(2);
	c2 = ns(CLOCK_THREAD_CPUTIME_ID); w2 = ns(CLOCK_MONOTONIC);
	t[0] = c1 - c0, t[1] = c2 - c1, t[2] = w1 - w0, t[3] = w2 - w1;
	if (!seq)
		pthread_barrier_wait(&all_done);
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 8;
	pthread_t th[256];

	if (nt < 1 || nt > 256)
		return 2;
	seq = argc > 2 && !strcmp(argv[2], "seq");
	/* the process's first call (it claims the trace and makes the spool), timed too */
	ns(CLOCK_THREAD_CPUTIME_ID);
	ns(CLOCK_MONOTONIC);
	int64_t c0 = ns(CLOCK_THREAD_CPUTIME_ID), w0 = ns(CLOCK_MONOTONIC);
	sink += nop(0);
	int64_t c1 = ns(CLOCK_THREAD_CPUTIME_ID), w1 = ns(CLOCK_MONOTONIC);
	sink += nop(0);
	int64_t c2 = ns(CLOCK_THREAD_CPUTIME_ID), w2 = ns(CLOCK_MONOTONIC);
	pthread_barrier_init(&all_done, NULL, (unsigned)nt + 1);
	for (int i = 0; i < nt; i++) {
		pthread_create(&th[i], NULL, run, (void *)(intptr_t)i);
		/* one at a time: each thread's first call alone on the machine */
		while (!__atomic_load_n(&times[i][1], __ATOMIC_ACQUIRE))
			sched_yield();
		if (seq)
			pthread_join(th[i], NULL);
	}
	if (!seq) {
		pthread_barrier_wait(&all_done);
		for (int i = 0; i < nt; i++)
			pthread_join(th[i], NULL);
	}
	printf("main - %lld %lld %lld %lld\n", (long long)(c1 - c0), (long long)(c2 - c1),
	       (long long)(w1 - w0), (long long)(w2 - w1));
	for (int i = 0; i < nt; i++)
		printf("thread %d %lld %lld %lld %lld\n", i, (long long)times[i][0],
		       (long long)times[i][1], (long long)times[i][2], (long long)times[i][3]);
	return 0;
}
