/* app.c - std.flow's scenarios: each prints what the test must find in TRACE.flow
 * (sizes, and the lines of the allocation sites), so the test compares the file with
 * what the program itself knows. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fl.h"

#define N 100

/* a chain A -> B -> C through two heap buffers */
static void chain(void)
{
	double *a = malloc(N * sizeof(double));	/* SITE chain-a */
	double *b = malloc(N * sizeof(double));	/* SITE chain-b */
	produce(a, N);
	transform(a, b, N);
	printf("%.0f\n", consume(b, N));
	free(a);
	free(b);
}

/* one site in a loop: one object (site), four blocks */
static void loop(void)
{
	double *p[4];
	for (int i = 0; i < 4; i++) {
		p[i] = malloc((size_t)(i + 1) * 64);	/* SITE loop */
		produce(p[i], (i + 1) * 8);
	}
	for (int i = 0; i < 4; i++)
		free(p[i]);
}

/* a helper's malloc called from two places: two sites */
static __attribute__((noinline)) double *helper(size_t n)
{
	double *p = malloc(n * sizeof(double));	/* SITE helper */
	__asm__ volatile("" ::: "memory");	/* no tail call: the helper's frame stays */
	return p;
}

static void two_callers(void)
{
	double *x = helper(10);	/* SITE caller-1 */
	double *y = helper(20);	/* SITE caller-2 */
	produce(x, 10);
	produce(y, 20);
	free(x);
	free(y);
}

/* realloc moving a block: one object, its data kept */
static void grow(void)
{
	double *a = malloc(16 * sizeof(double));	/* SITE grow */
	produce(a, 16);
	void *hold = malloc(64);	/* keeps the block from growing in place */
	a = realloc(a, 100000 * sizeof(double));
	consume(a, 16);
	free(hold);
	free(a);
}

/* free before read: written, freed, never read */
static void free_first(void)
{
	double *a = malloc(N * sizeof(double));	/* SITE free-first */
	produce(a, N);
	free(a);
	tick(1);
}

/* a static array and a stack array */
double table[32];
static volatile long sink;
static __attribute__((noinline)) void named(void)
{
	long other[8];
	double local[12];
	for (int i = 0; i < 8; i++)
		other[i] = i;
	__asm__ volatile("" : : "r"(other), "r"(local) : "memory");
	produce(table, 32);
	produce(local, 12);
	printf("%.0f\n", consume(local, 12) + consume(table, 32));
	for (int i = 0; i < 8; i++)
		sink += other[i];
}

/* the program changes part of a buffer between two calls */
static void host(void)
{
	double *a = malloc(N * sizeof(double));	/* SITE host */
	produce(a, N);
	for (int i = 10; i < 20; i++)
		a[i] = -1;
	printf("%.0f\n", consume(a, N));
	free(a);
}

/* a call that writes half of its buffer (std.diff sees which half) */
static void partial(void)
{
	double *a = calloc(N, sizeof(double));	/* SITE partial */
	produce(a, N / 2);
	printf("%.0f\n", consume(a, N));
	free(a);
}

/* the same buffer read by three calls in a row (a power iteration's matrix) */
static void repeat(void)
{
	double *a = malloc(N * sizeof(double));	/* SITE repeat */
	double s = 0;
	produce(a, N);
	for (int i = 0; i < 3; i++)
		s += consume(a, N);
	tick(2);
	s += consume(a, N);
	printf("%.0f\n", s);
	free(a);
}

/* producer and consumer in two threads */
static double *shared;
static void *producer(void *arg)
{
	(void)arg;
	produce(shared, N);
	return NULL;
}

static void threads(void)
{
	pthread_t t;
	shared = malloc(N * sizeof(double));	/* SITE threads */
	pthread_create(&t, NULL, producer, NULL);
	pthread_join(t, NULL);
	printf("%.0f\n", consume(shared, N));
	free(shared);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "chain";
	if (!strcmp(what, "chain"))
		chain();
	else if (!strcmp(what, "loop"))
		loop();
	else if (!strcmp(what, "two"))
		two_callers();
	else if (!strcmp(what, "grow"))
		grow();
	else if (!strcmp(what, "free"))
		free_first();
	else if (!strcmp(what, "named"))
		named();
	else if (!strcmp(what, "host"))
		host();
	else if (!strcmp(what, "partial"))
		partial();
	else if (!strcmp(what, "repeat"))
		repeat();
	else if (!strcmp(what, "killed")) {
		/* the chain, then killed while it waits: the spool is what is left */
		chain();
		printf("ready\n");
		fflush(stdout);
		char c;
		if (read(0, &c, 1) < 0)
			return 1;
	} else if (!strcmp(what, "threads"))
		threads();
	return 0;
}
