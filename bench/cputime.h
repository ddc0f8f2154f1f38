/* cputime.h - the process's CPU time, what the benchmarks measure around their loops
 * (start-up and exit left out) */
#ifndef BENCH_CPUTIME_H
#define BENCH_CPUTIME_H
#include <time.h>

static inline double cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}
#endif
