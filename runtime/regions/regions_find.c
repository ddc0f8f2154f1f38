/* regions_find.c - one pointer's region for callers outside the fast method (std.diff
 * later, tests), and which malloc the process really uses. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include "regions.h"
#include "unwind.h"

int dyl_region_find(const void *p, struct dyl_region *r)
{
	uintptr_t a = (uintptr_t)p, lo, hi;

	if (!a)
		return 0;
	if (dyl_table_find(a, r) > 0 || dyl_static_find(a, r))
		return 1;
	if (dyl_stack_bounds(&lo, &hi) && a >= lo && a < hi) {
		*r = (struct dyl_region){ lo, hi, DYL_REGION_STACK, 0, 0 };
		return 1;
	}
	return dyl_stack_other(a, r) > 0;
}

int dyl_regions_check_allocator(void)
{
	/* (every feature that charges regions calls this from its wrapper's constructor:
	 * stack frames need libunwind) */
	dyl_unwind_on();
	/* the first malloc in the global scope is the one the program calls; a dyliberator
	 * wrapper's exports dyl_alloc_next */
	void *m = dlsym(RTLD_DEFAULT, "malloc");
	Dl_info info;
	int ours = 0;
	const char *who = "?";

	/* the first wrapper with allocator interposers is the first to define dyl_alloc_next */
	void *w = dlsym(RTLD_DEFAULT, "dyl_alloc_next");
	Dl_info wi;

	if (m && dladdr(m, &info)) {
		who = info.dli_fname ? info.dli_fname : "?";
		ours = w && dladdr(w, &wi) && wi.dli_fbase == info.dli_fbase;
	}
	if (!__atomic_exchange_n(&dyl_reg.heap_note, 1, __ATOMIC_RELAXED)) {
		char note[4200];
		if (ours)
			snprintf(note, sizeof(note), "tracked");
		else
			snprintf(note, sizeof(note), "not tracked: malloc is %s's", who);
		dyl_note("regions_heap", note);
	}
	return ours;
}
