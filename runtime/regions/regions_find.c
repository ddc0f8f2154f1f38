/* regions_find.c - one pointer's region for callers outside the fast method (std.diff
 * later, tests), and which malloc the process really uses. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
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

/* The definition of NAME that calls reach when dlsym's answer, ADDR, is a canonical PLT
 * entry: a program built without PIE (or that takes malloc's address, as python3 does)
 * holds an undefined malloc with an address, so that &malloc compares equal everywhere.
 * dlsym returns that address; calls go through the entry to the first object after the
 * program, in load order, that defines NAME itself.  Returns ADDR otherwise. */
static void *called_definition(void *addr, const char *name)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	struct link_map *map = NULL;

	if (!dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || sym->st_shndx != SHN_UNDEF)
		return addr;
	if (!dladdr1(addr, &info, (void **)&map, RTLD_DL_LINKMAP) || !map)
		return addr;
	for (struct link_map *l = map->l_next; l; l = l->l_next) {
		/* ("" would open the program itself) */
		void *h = l->l_name && l->l_name[0] ? dlopen(l->l_name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
		void *def = h ? dlsym(h, name) : NULL;
		struct link_map *owner = NULL;
		if (h)
			dlclose(h);
		/* dlsym(h) searches h's dependencies too: the definition must be l's own */
		if (def && dladdr1(def, &info, (void **)&owner, RTLD_DL_LINKMAP) && owner == l)
			return def;
	}
	return addr;
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

	if (m)
		m = called_definition(m, "malloc");
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
		dyl_note(DYL_KEY_REGIONS_HEAP, note);
	}
	return ours;
}
