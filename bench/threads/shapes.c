/* shapes.c - programs whose threads call sleepk (sleepk.h) with gaps, creations and joins
 * in several shapes: `shapes NAME [SCALE]` (every time multiplied by SCALE, 1 by default).  Each thread follows a script of steps: C w (call
 * sleepk(w): w us on the slow library), G us (a gap: its own "code", a sleep), S k (create
 * thread k), J k (join it).  Everything sleeps: the times hold on a loaded machine. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include "sleepk.h"

#define MAX_THREADS 8
#define MAX_STEPS 16

struct step {
	char op;	/* C, G, S, J; 0 ends the script */
	long v;
};

struct shape {
	const char *name;
	struct step script[MAX_THREADS][MAX_STEPS];	/* [0]: the main thread's */
};

static const struct shape shapes[] = {
	/* main calls, then joins a thread that called meanwhile */
	{ "call_join", { { { 'S', 1 }, { 'G', 2000 }, { 'C', 30000 }, { 'J', 1 }, { 'G', 3000 } },
			 { { 'G', 5000 }, { 'C', 40000 }, { 'G', 5000 } } } },
	/* main joins first, then calls */
	{ "join_call", { { { 'S', 1 }, { 'G', 1000 }, { 'J', 1 }, { 'C', 30000 }, { 'G', 5000 } },
			 { { 'C', 40000 }, { 'G', 2000 } } } },
	/* the thread outlives main's calls */
	{ "outlives", { { { 'S', 1 }, { 'C', 10000 }, { 'G', 2000 }, { 'J', 1 }, { 'G', 2000 } },
			{ { 'C', 20000 }, { 'G', 10000 }, { 'C', 40000 }, { 'G', 5000 } } } },
	/* a pool of four threads, three calls each */
	{ "pool", { { { 'S', 1 }, { 'S', 2 }, { 'S', 3 }, { 'S', 4 }, { 'J', 1 }, { 'J', 2 },
		      { 'J', 3 }, { 'J', 4 }, { 'G', 2000 } },
		    { { 'C', 20000 }, { 'G', 3000 }, { 'C', 20000 }, { 'G', 3000 }, { 'C', 20000 } },
		    { { 'G', 1000 }, { 'C', 20000 }, { 'G', 3000 }, { 'C', 20000 }, { 'G', 3000 },
		      { 'C', 20000 } },
		    { { 'G', 2000 }, { 'C', 20000 }, { 'G', 3000 }, { 'C', 20000 }, { 'G', 3000 },
		      { 'C', 20000 } },
		    { { 'G', 3000 }, { 'C', 20000 }, { 'G', 3000 }, { 'C', 20000 }, { 'G', 3000 },
		      { 'C', 20000 } } } },
	/* a thread that creates and joins its own */
	{ "nested", { { { 'S', 1 }, { 'C', 20000 }, { 'J', 1 }, { 'G', 1000 } },
		      { { 'G', 1000 }, { 'S', 2 }, { 'C', 30000 }, { 'J', 2 }, { 'G', 1000 } },
		      { { 'C', 40000 }, { 'G', 2000 } } } },
	/* small, for the test suite: tens of milliseconds; the thread's call arrives while
	 * main's runs (one device: it waits), main's second call after the join */
	{ "small", { { { 'S', 1 }, { 'C', 40000 }, { 'J', 1 }, { 'C', 20000 }, { 'G', 5000 } },
		     { { 'G', 5000 }, { 'C', 80000 }, { 'G', 5000 } } } },
};

static const struct shape *shape;
static long scale = 1;
static pthread_t threads[MAX_THREADS];

static void gap(long us)
{
	struct timespec t = { us / 1000000, us % 1000000 * 1000 };

	clock_nanosleep(CLOCK_MONOTONIC, 0, &t, NULL);
}

static void *run(void *arg)
{
	const struct step *s = shape->script[(long)arg];

	/* the wrapper sets itself (and each thread's buffers) up at a thread's first call:
	 * milliseconds here on a loaded machine, varying from run to run.  A call of no work
	 * first puts that in the thread's start, the same in every run */
	sleepk(0);
	for (; s->op; s++) {
		if (s->op == 'C')
			sleepk(s->v * scale);
		else if (s->op == 'G')
			gap(s->v * scale);
		else if (s->op == 'S' && pthread_create(&threads[s->v], NULL, run, (void *)s->v) != 0)
			exit(3);
		else if (s->op == 'J')
			pthread_join(threads[s->v], NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc == 3)
		scale = atol(argv[2]);
	for (size_t i = 0; (argc == 2 || argc == 3) && scale > 0 &&
			   i < sizeof(shapes) / sizeof(shapes[0]); i++)
		if (strcmp(argv[1], shapes[i].name) == 0)
			shape = &shapes[i];
	if (!shape) {
		fprintf(stderr, "usage: shapes call_join|join_call|outlives|pool|nested|small [SCALE]\n");
		return 2;
	}
	/* the default slack (50 us) would add to every sleep; threads inherit it */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	run((void *)0L);
	return 0;
}
