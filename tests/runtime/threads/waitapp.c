/* waitapp.c - threads that wait for each other, for tests/runtime/test_threads_waits.py:
 * the kernel is libtiny's tiny_sleep_us (tests/apps/tiny.h), K_US microseconds a call,
 * and the thread that waits for its results makes no library call, as pigz's writer.
 *
 *   waitapp cond      two producers call the kernel for results 0..N-1 in turn (0, 2, 4...
 *                     and 1, 3, 5...); after each they set the result's flag and broadcast
 *                     a condition variable.  The writer waits on it for each result in
 *                     order, then "writes" it (a plain sleep of W_US, no library call).
 *   waitapp sem       the same with one semaphore a result (sem_post, sem_wait).
 *   waitapp mutex     main holds a mutex while it calls the kernel N / 2 times; the
 *                     writer blocks in pthread_mutex_lock until main unlocks it.
 *   waitapp barrier   a producer calls the kernel N / 2 times and meets the writer at a
 *                     barrier.
 *
 * Measured: about N / 2 * K_US (the producers run at once) plus W_US.  With a kernel k
 * times faster, the writer follows the producers: N / 2 * K_US / k plus W_US.  Its output
 * does not depend on timing. */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "tiny.h"

#define N 8
#define K_US 80000
#define W_US 200

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static int ready[N];
static sem_t sems[N];
static pthread_barrier_t meet;
static const char *mode;

/* the writer's own work: no library call (a plain sleep, not libtiny's) */
static void write_out(int i)
{
	struct timespec w = { 0, W_US * 1000L };

	nanosleep(&w, NULL);
	printf("result %d\n", i);
}

static void *producer(void *arg)
{
	int first = (int)(long)arg;

	for (int i = first; i < N; i += 2) {
		tiny_sleep_us(K_US);
		if (strcmp(mode, "sem") == 0) {
			sem_post(&sems[i]);
			continue;
		}
		pthread_mutex_lock(&lock);
		ready[i] = 1;
		pthread_cond_broadcast(&done);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	if (strcmp(mode, "mutex") == 0 || strcmp(mode, "barrier") == 0) {
		if (mode[0] == 'm') {
			pthread_mutex_lock(&lock);
			pthread_mutex_unlock(&lock);
		} else {
			pthread_barrier_wait(&meet);
		}
		write_out(0);
		return NULL;
	}
	for (int i = 0; i < N; i++) {
		if (strcmp(mode, "sem") == 0) {
			sem_wait(&sems[i]);
		} else {
			pthread_mutex_lock(&lock);
			while (!ready[i])
				pthread_cond_wait(&done, &lock);
			pthread_mutex_unlock(&lock);
		}
		write_out(i);
	}
	return NULL;
}

/* main holds the mutex through its calls; the writer blocks on it */
static void hold_then_release(void)
{
	pthread_t w;

	pthread_mutex_lock(&lock);
	pthread_create(&w, NULL, writer, NULL);
	for (int i = 0; i < N / 2; i++)
		tiny_sleep_us(K_US);
	pthread_mutex_unlock(&lock);
	pthread_join(w, NULL);
}

/* a producer meets the writer at a barrier after its calls */
static void *before_barrier(void *arg)
{
	(void)arg;
	for (int i = 0; i < N / 2; i++)
		tiny_sleep_us(K_US);
	pthread_barrier_wait(&meet);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w, p[2];

	mode = argc > 1 ? argv[1] : "cond";
	if (strcmp(mode, "cond") && strcmp(mode, "sem") && strcmp(mode, "mutex") &&
	    strcmp(mode, "barrier")) {
		fprintf(stderr, "usage: waitapp cond|sem|mutex|barrier\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(mode, "mutex") == 0) {
		hold_then_release();
		printf("done\n");
		return 0;
	}
	if (strcmp(mode, "barrier") == 0) {
		pthread_barrier_init(&meet, NULL, 2);
		pthread_create(&w, NULL, writer, NULL);
		pthread_create(&p[0], NULL, before_barrier, NULL);
		pthread_join(p[0], NULL);
		pthread_join(w, NULL);
		printf("done\n");
		return 0;
	}
	for (int i = 0; i < N; i++)
		sem_init(&sems[i], 0, 0);
	pthread_create(&w, NULL, writer, NULL);
	for (long i = 0; i < 2; i++)
		pthread_create(&p[i], NULL, producer, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(p[i], NULL);
	pthread_join(w, NULL);
	printf("done\n");
	return 0;
}
