/* staticbench - the cost of sizing static objects by their symbols (std.regions):
 * the first lookup of a pointer into a loaded object (its symbols are read then) and the
 * lookups after it, through libdylrt's dyl_region_find; and what the ranges kept take.
 *   staticbench N LIB...   (LIB: a soname to dlopen, or "exe" for this program)
 * Columns: the rescan of the loaded objects a dlopen causes (at the next lookup that
 * misses), the first lookup into the object (its symbols read), a lookup after that
 * (ns), the bytes the region holds from the pointer (the middle of its first writable
 * segment), the ranges kept for the object and the bytes they take. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dyl_regions.h"

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

struct want {
	const char *name;	/* a substring of dlpi_name, "" for the program */
	uintptr_t p;		/* the middle of its first writable segment */
};

static int pick(struct dl_phdr_info *info, size_t size, void *data)
{
	struct want *w = data;

	if (*w->name ? !strstr(info->dlpi_name, w->name) : *info->dlpi_name)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W)) {
			w->p = info->dlpi_addr + ph->p_vaddr + ph->p_memsz / 2;
			return 1;
		}
	}
	return 0;
}

static char exe_data[4096] = { 1 };

int main(int argc, char **argv)
{
	long n = atol(argv[1]);
	struct dyl_region r;

	printf("%-16s %10s %10s %10s %14s %8s %10s\n", "object", "rescan_us", "first_us", "next_ns",
	       "region_bytes", "ranges", "bytes_kept");
	for (int a = 2; a < argc; a++) {
		struct want w = { "", 0 };
		if (strcmp(argv[a], "exe") != 0) {
			if (!dlopen(argv[a], RTLD_NOW)) {
				fprintf(stderr, "%s\n", dlerror());
				return 1;
			}
			w.name = argv[a];
		}
		dl_iterate_phdr(pick, &w);
		if (!w.p)
			w.p = (uintptr_t)exe_data;
		struct dyl_statics_stats s0, s1;
		/* a pointer in no region: the list of objects is read again (it changed) */
		double tr = now_ns();
		dyl_region_find((void *)16, &r);
		dyl_statics_stats(&s0);
		double t0 = now_ns();
		int found = dyl_region_find((void *)w.p, &r);
		double t1 = now_ns();
		dyl_statics_stats(&s1);
		uint64_t sum = 0;
		double t2 = now_ns();
		for (long i = 0; i < n; i++) {
			dyl_region_find((void *)(w.p + (i & 255) * 8), &r);
			sum += r.end;
		}
		double t3 = now_ns();
		printf("%-16s %10.1f %10.1f %10.1f %14lu %8lu %10lu%s\n", argv[a], (t0 - tr) / 1e3, (t1 - t0) / 1e3,
		       (t3 - t2) / n, found ? (unsigned long)(r.end - w.p) : 0UL,
		       (unsigned long)(s1.ranges - s0.ranges), (unsigned long)(s1.bytes - s0.bytes),
		       sum == 42 ? " " : "");
	}
	return 0;
}
