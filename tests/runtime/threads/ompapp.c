/* ompapp.c - OpenMP parallel regions (gcc -fopenmp: GOMP_parallel) whose threads call
 * libtiny, for tests/runtime/test_threads_events.py.  Prints the same with a wrapper
 * preloaded or not. */
#include <omp.h>
#include <stdio.h>
#include "tiny.h"

int main(void)
{
	int sums[4] = { 0 };

	for (int region = 0; region < 2; region++) {
#pragma omp parallel num_threads(4)
		{
			int me = omp_get_thread_num();
			tiny_sleep_us(2000);
			sums[me] += tiny_add(me, region);
		}
		tiny_add(region, 0);	/* between the regions: the main thread alone */
	}
	printf("sums %d %d %d %d\n", sums[0], sums[1], sums[2], sums[3]);
	return 0;
}
