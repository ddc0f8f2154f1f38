/* sources: runtime/scope.c runtime/elfsym.c */
/* scope_test.c - runtime/scope.c: the table of originals per (function, call site) keeps
 * what it is given and answers it back, also when its keys crowd one bucket; a site it
 * has no room for is not kept (its calls look it up again) and never answers another
 * site's original; an address's object is the one holding it; the program is no
 * wrapper, so the global scope cannot be asked past it. */
#define _GNU_SOURCE
#include <stdint.h>
#include "check.h"
#include "internal.h"
#include "scope.h"

/* dyl.h's load-time check that a wrapper was built against this runtime (runtime.c
 * defines it; a new ABI renames it, and this line with it) */
const int dyl_abi_6 = 6;

static void *slots[64];	/* stand-ins for the wrappers' slots */

int main(void)
{
	struct dl_phdr_info at;
	int unknown = 0, kept = 0;

	/* 64 functions x 40 call sites: 2560 of the table's 4096 entries */
	for (int f = 0; f < 64; f++)
		for (uintptr_t site = 0; site < 40; site++)
			dyl_scope_keep(&slots[f], (void *)(0x400000 + 16 * site),
				       (void *)(0x1000 * (uintptr_t)(f + 1) + site));
	for (int f = 0; f < 64; f++)
		for (uintptr_t site = 0; site < 40; site++) {
			void *fn = dyl_scope_cached(&slots[f], (void *)(0x400000 + 16 * site));
			CHECK_MSG(fn == (void *)(0x1000 * (uintptr_t)(f + 1) + site),
				  "function %d, site %lu: %p", f, (unsigned long)site, fn);
		}
	CHECK(dyl_scope_cached(&slots[0], (void *)0x500000) == NULL);
	/* kept twice: the first stays */
	dyl_scope_keep(&slots[0], (void *)0x400000, (void *)0xdead);
	CHECK(dyl_scope_cached(&slots[0], (void *)0x400000) == (void *)0x1000);

	/* fill the table: what is not kept is not found, what is found is right */
	for (uintptr_t site = 0; site < 8192; site++)
		dyl_scope_keep(&slots[1], (void *)(0x900000 + site), (void *)(0x700000 + site));
	for (uintptr_t site = 0; site < 8192; site++) {
		void *fn = dyl_scope_cached(&slots[1], (void *)(0x900000 + site));
		CHECK(fn == NULL || fn == (void *)(0x700000 + site));
		kept += fn != NULL;
	}
	CHECK_MSG(kept > 0 && kept <= 4096 - 64 * 40, "%d kept", kept);
	for (int f = 0; f < 64; f++)	/* the earlier entries are all still there */
		CHECK(dyl_scope_cached(&slots[f], (void *)(0x400000 + 16 * 39))
		      == (void *)(0x1000 * (uintptr_t)(f + 1) + 39));

	/* main is the program's: the empty name */
	CHECK(dyl_scope_owner((const void *)main, &at) && at.dlpi_name && !*at.dlpi_name);
	CHECK(!dyl_scope_owner((const void *)8, &at));
	/* the program is no wrapper: the global scope past it cannot be asked */
	CHECK(dyl_scope_global((const void *)main, "printf", NULL, &unknown) == NULL && unknown);
	return check_failures != 0;
}
