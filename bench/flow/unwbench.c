/* unwbench - what finding an allocation site costs, by the ways considered (sites.c):
 * libunwind's unw_backtrace for 2, 4 and 6 frames (the fast path with its per-thread
 * cache), and __builtin_return_address(0) (the caller alone).  Per call, ns of CPU.
 *   unwbench N */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include "../cputime.h"

static void *buf[8];
static volatile int got;
static void *volatile ra;

__attribute__((noinline)) static void leaf(int d)
{
	if (d)
		got = unw_backtrace(buf, d);
	else
		ra = __builtin_return_address(0);
	__asm__ volatile("");
}
__attribute__((noinline)) static void mid(int d) { leaf(d); __asm__ volatile(""); }
__attribute__((noinline)) static void mid2(int d) { mid(d); __asm__ volatile(""); }
__attribute__((noinline)) static void mid3(int d) { mid2(d); __asm__ volatile(""); }

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	for (int d = 0; d <= 6; d += 2) {
		mid3(d);
		double t0 = cpu_ns();
		for (long i = 0; i < n; i++)
			mid3(d);
		printf("%s %d %.1f\n", d ? "unw_backtrace" : "return_address", d, (cpu_ns() - t0) / n);
	}
	return 0;
}
