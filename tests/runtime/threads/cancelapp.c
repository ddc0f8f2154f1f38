/* cancelapp.c - threads cancelled while they make wrapped calls, for
 * tests/runtime/test_threads_events.py.  A thread's records are written out under the
 * runtime's trace lock, and those writes are cancellation points: a thread cancelled
 * there must not leave the lock held, or the process hangs at its next write or at exit.
 *
 *   cancelapp ROUNDS     each round: a thread calls tiny_add in a loop (a cancellation
 *                        point of its own every 1000 calls), main cancels it after a
 *                        while and joins it
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "tiny.h"

static void *caller(void *arg)
{
	volatile int sum = 0;

	(void)arg;
	for (;;) {
		for (int i = 0; i < 1000; i++)
			sum = tiny_add(sum, i) & 0xffff;
		pthread_testcancel();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20, cancelled = 0;

	for (int r = 0; r < rounds; r++) {
		pthread_t t;
		void *ret;
		/* 0.2 to 2 ms: the thread writes out a window of records every half
		 * millisecond or so, so some cancels land in a write */
		struct timespec wait = { 0, 200000 + (r * 277000) % 1800000 };

		if (pthread_create(&t, NULL, caller, NULL) != 0)
			return 1;
		nanosleep(&wait, NULL);
		pthread_cancel(t);
		pthread_join(t, &ret);
		cancelled += ret == PTHREAD_CANCELED;
	}
	printf("cancelled %d of %d\n", cancelled, rounds);
	return 0;
}
