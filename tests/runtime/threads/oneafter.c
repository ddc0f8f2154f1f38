/* oneafter.c - threads one after another, each ending before the next starts, so that
 * each takes the spool window and the runtime's per-thread state the last one left
 * (runtime.c keeps them).  Odd threads leave from inside a wrapped call (pthread_exit in
 * tiny_apply's callback): they end with a call open, at depth 1.
 *   oneafter NT CALLS     prints one line per thread, the same with or without a wrapper */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "tiny.h"

static long calls;

static int leave(int x)
{
	(void)x;
	pthread_exit(NULL);
}

static void *work(void *arg)
{
	long id = (long)arg, sum = 0;

	for (long i = 0; i < calls; i++)
		sum += tiny_add((int)i, (int)id);
	sum += tiny_outer((int)id);	/* nested: tiny_inner at depth 1 */
	printf("thread %ld: sum %ld\n", id, sum);
	fflush(stdout);
	if (id % 2)
		tiny_apply(leave, 0);	/* never returns */
	return NULL;
}

int main(int argc, char **argv)
{
	long nt = argc > 1 ? atol(argv[1]) : 6;
	calls = argc > 2 ? atol(argv[2]) : 100;

	for (long i = 0; i < nt; i++) {
		pthread_t th;
		if (pthread_create(&th, NULL, work, (void *)i) != 0 || pthread_join(th, NULL) != 0)
			return 1;
	}
	return 0;
}
