/* mallocbench - N malloc/free pairs of mixed sizes (16 B to 4 KiB, a few live at a
 * time) on T threads; prints the CPU time of the loops per pair (the process's CPU
 * clock, so start-up and exit are excluded).   mallocbench N [T] */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "../cputime.h"

static long n_pairs;

static void *loop(void *arg)
{
	void *live[8] = { 0 };
	unsigned x = (unsigned)(long)arg * 2654435761u + 1;

	for (long i = 0; i < n_pairs; i++) {
		x = x * 1103515245u + 12345u;
		int slot = (int)(x >> 8 & 7);
		free(live[slot]);
		live[slot] = malloc(16 + (x >> 12 & 4095));
		__asm__ volatile("" : : "r"(live[slot]) : "memory");
	}
	for (int i = 0; i < 8; i++)
		free(live[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t t[64];

	n_pairs = n / threads;
	double t0 = cpu_ns();
	for (long i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, loop, (void *)i);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("cpu_ns_per_pair %.2f\n", (cpu_ns() - t0) / (double)(n_pairs * threads));
	return 0;
}
