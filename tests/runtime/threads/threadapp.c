/* threadapp.c - threads in the shapes tests/runtime/test_threads_events.py checks the
 * runtime's thread events on.  It calls libtiny (tests/apps/tiny.h); its output must be
 * the same with a wrapper preloaded or not.
 *
 *   threadapp shapes     create/join in several shapes, a thread with no wrapped call,
 *                        pthread_tryjoin_np and pthread_timedjoin_np, a nested thread,
 *                        thread-local storage
 *   threadapp detached   a detached thread
 *   threadapp exit       pthread_exit from a nested function, and a cancelled thread
 *   threadapp outlive    a thread that calls after main's last call
 *   threadapp fork       a thread forks; the child makes a thread of its own
 *   threadapp kill       threads, then "ready" and waits to be killed
 *   threadapp none       no thread
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "tiny.h"

static __thread int tls_value = 7;

static void *caller(void *arg)
{
	int n = (int)(intptr_t)arg, sum = 0;
	tls_value += n;
	for (int i = 0; i < n; i++)
		sum = tiny_add(sum, i);
	tiny_sleep_us(2000);
	return (void *)(intptr_t)(sum + tls_value * 1000);
}

static void *quiet(void *arg)
{
	/* no wrapped call at all */
	struct timespec ts = { 0, 3 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	return arg;
}

static void *nester(void *arg)
{
	pthread_t t;
	void *r;
	(void)arg;
	if (pthread_create(&t, NULL, caller, (void *)(intptr_t)3) != 0)
		return NULL;
	pthread_join(t, &r);
	return (void *)((intptr_t)r + 1);
}

static pthread_t start(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	int e = pthread_create(&t, NULL, fn, arg);
	if (e) {
		printf("pthread_create: %s\n", strerror(e));
		exit(1);
	}
	return t;
}

static int shapes(void)
{
	void *r;
	/* join then call */
	pthread_t a = start(caller, (void *)(intptr_t)5);
	pthread_join(a, &r);
	printf("a returned %ld\n", (long)(intptr_t)r);
	printf("main add %d\n", tiny_add(1, 2));
	/* call then join, two at once */
	pthread_t b = start(caller, (void *)(intptr_t)10), c = start(quiet, (void *)(intptr_t)99);
	tiny_sleep_us(1000);
	pthread_join(b, &r);
	printf("b returned %ld\n", (long)(intptr_t)r);
	/* try until it is done, then a timed join on a nested creator */
	while (pthread_tryjoin_np(c, &r) == EBUSY) {
		struct timespec ts = { 0, 500 * 1000 };
		nanosleep(&ts, NULL);
	}
	printf("c returned %ld\n", (long)(intptr_t)r);
	pthread_t d = start(nester, NULL);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 20;
	int e = pthread_timedjoin_np(d, &r, &until);
	printf("d joined %d returned %ld\n", e, (long)(intptr_t)r);
	/* a join that fails: nothing to record */
	e = pthread_join(pthread_self(), &r);
	printf("self join %s\n", e == EDEADLK ? "EDEADLK" : "other");
	printf("main tls %d\n", tls_value);
	return 0;
}

static sem_t done;

static void *detached(void *arg)
{
	caller(arg);
	sem_post(&done);
	return NULL;
}

static int run_detached(void)
{
	pthread_attr_t at;
	pthread_t t;
	sem_init(&done, 0, 0);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &at, detached, (void *)(intptr_t)4) != 0)
		return 1;
	pthread_attr_destroy(&at);
	sem_wait(&done);
	/* let it end before the process does */
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	printf("main add %d\n", tiny_add(2, 3));
	return 0;
}

static void leave(int v)
{
	tiny_add(v, v);
	pthread_exit((void *)(intptr_t)v);
}

static void *exiter(void *arg)
{
	leave((int)(intptr_t)arg);
	return NULL;
}

static sem_t sleeping;

static void *sleeper(void *arg)
{
	(void)arg;
	tiny_add(1, 1);
	/* cancelled only from now on: a thread cancelled inside the runtime's write of its
	 * first call's records (a cancellation point, with the trace's lock held) hangs the
	 * process at its next write, also before thread events (found here; the lead's) */
	sem_post(&sleeping);
	for (;;) {
		struct timespec ts = { 0, 1000 * 1000 };
		nanosleep(&ts, NULL);	/* a cancellation point */
	}
	return NULL;
}

static int run_exit(void)
{
	void *r;
	pthread_t t = start(exiter, (void *)(intptr_t)42);
	pthread_join(t, &r);
	printf("exit value %ld\n", (long)(intptr_t)r);
	sem_init(&sleeping, 0, 0);
	t = start(sleeper, NULL);
	tiny_sleep_us(3000);
	sem_wait(&sleeping);
	pthread_cancel(t);
	pthread_join(t, &r);
	printf("cancelled %s\n", r == PTHREAD_CANCELED ? "yes" : "no");
	return 0;
}

static void *late(void *arg)
{
	(void)arg;
	tiny_sleep_us(20000);
	printf("late add %d\n", tiny_add(3, 4));
	fflush(stdout);
	return NULL;
}

static int outlive(void)
{
	pthread_t t = start(late, NULL);
	printf("main add %d\n", tiny_add(1, 1));
	fflush(stdout);
	pthread_join(t, NULL);	/* main's last act: no call after it */
	return 0;
}

static void *forker(void *arg)
{
	(void)arg;
	tiny_add(5, 5);
	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		void *r;
		pthread_t t = start(caller, (void *)(intptr_t)2);
		pthread_join(t, &r);
		printf("child thread returned %ld\n", (long)(intptr_t)r);
		fflush(stdout);
		_exit(0);
	}
	int st;
	waitpid(p, &st, 0);
	printf("child status %d\n", st);
	return NULL;
}

static int run_fork(void)
{
	pthread_t t = start(forker, NULL);
	pthread_join(t, NULL);
	printf("main add %d\n", tiny_add(1, 2));
	return 0;
}

static sem_t called;

static void *forever(void *arg)
{
	tiny_add(1, (int)(intptr_t)arg);
	sem_post(&called);
	for (;;)
		pause();
	return NULL;
}

static int run_kill(void)
{
	void *r;
	pthread_t a = start(caller, (void *)(intptr_t)3);
	pthread_join(a, &r);
	sem_init(&called, 0, 0);
	start(forever, (void *)(intptr_t)1);
	pthread_join(start(quiet, NULL), &r);
	sem_wait(&called);	/* (its call made: it started) */
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "shapes"))
		return shapes();
	if (!strcmp(mode, "detached"))
		return run_detached();
	if (!strcmp(mode, "exit"))
		return run_exit();
	if (!strcmp(mode, "outlive"))
		return outlive();
	if (!strcmp(mode, "fork"))
		return run_fork();
	if (!strcmp(mode, "kill"))
		return run_kill();
	if (!strcmp(mode, "none"))
		return printf("main add %d\n", tiny_add(4, 5)) < 0;
	fprintf(stderr, "usage: threadapp shapes|detached|exit|outlive|fork|kill|none\n");
	return 2;
}
