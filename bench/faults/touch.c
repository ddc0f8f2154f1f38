/* touch on|off N: writes one byte into each of N pages never touched before (a
 * first-touch page fault each), in mappings of CHUNK pages, and prints the CPU time per
 * page of the touching loops alone (user + sys: a fault is kernel time).  "on" opens the
 * thread's page-fault event first, as std.faults does at a thread's first call
 * (dyl_faults), and checks that it counted every fault; it also prints what that opening
 * costs (the process's first, then another thread's) and a read of the count. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "../cputime.h"
#include "dyl.h"

#define PAGE 4096
#define CHUNK 16384	/* 64 MiB at a time */

static double thread_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* the CPU time of this thread's first dyl_faults, ns */
static double first_read(void)
{
	double t0 = thread_ns();
	int64_t v = dyl_faults();
	double t1 = thread_ns();
	return v < 0 ? -1 : t1 - t0;
}

static void *thread_first(void *arg)
{
	*(double *)arg = first_read();
	return NULL;
}

int main(int argc, char **argv)
{
	int on = argc > 1 && !strcmp(argv[1], "on");
	long n = argc > 2 ? atol(argv[2]) : 200000;
	double spent = 0;
	int64_t before = 0;

	if (on) {
		double open_ns = first_read(), thread_open_ns;
		pthread_t t;
		if (open_ns < 0) {
			fprintf(stderr, "touch: page faults cannot be counted here\n");
			return 1;
		}
		pthread_create(&t, NULL, thread_first, &thread_open_ns);
		pthread_join(t, NULL);
		int64_t x = 0;
		long reads = 10000000;
		double t0 = cpu_ns();
		for (long i = 0; i < reads; i++)
			x += dyl_faults();
		double t1 = cpu_ns();
		printf("open_us %.1f\nthread_open_us %.1f\nread_ns %.2f\n", open_ns / 1e3,
		       thread_open_ns / 1e3, (t1 - t0) / reads + 0 * (double)x);
		before = dyl_faults();
	}
	for (long done = 0; done < n; done += CHUNK) {
		long pages = n - done < CHUNK ? n - done : CHUNK;
		char *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		madvise(p, pages * PAGE, MADV_NOHUGEPAGE);	/* one fault a page */
		double t0 = cpu_ns();
		for (long i = 0; i < pages; i++)
			((volatile char *)p)[i * PAGE] = 1;
		spent += cpu_ns() - t0;
		munmap(p, pages * PAGE);
	}
	printf("fault_ns %.1f\n", spent / n);
	if (on)
		printf("counted %lld of %ld\n", (long long)(dyl_faults() - before), n);
	return 0;
}
