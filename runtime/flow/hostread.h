/* hostread.h - std.flow's host reads (host_reads=on; hostread.c): what hooks.c, defs.c
 * and finish.c call.  Nothing here is exported; the wrapper's side is
 * runtime/include/dyl_hostio.h. */
#ifndef DYL_HOSTREAD_H
#define DYL_HOSTREAD_H

#include <stdint.h>
#include "internal.h"

HIDDEN extern int dyl_hostread_on;	/* set up: pages are protected after calls */
static inline int dyl_hostread_active(void)
{
	return __atomic_load_n(&dyl_hostread_on, __ATOMIC_RELAXED);
}

struct dyl_groups;
struct dyl_region;
/* an outermost call's regions, before it runs: the protection of each is lifted (one
 * mprotect per region), and its outputs are kept for dyl_hostread_after */
HIDDEN void dyl_hostread_charged(const struct dyl_groups *c);
/* a --defs postfix's dyl_flow_writes: [LO, HI) of R kept as the call's outputs are */
HIDDEN void dyl_hostread_defs_out(const struct dyl_region *r, uintptr_t lo, uintptr_t hi);
/* the heap block at START (id ID) is being freed or reallocated: unprotected first */
HIDDEN void dyl_hostread_freed(uintptr_t start, uint64_t id);
/* the image ends (exit, exec): every protected page lifted, nothing recorded */
HIDDEN void dyl_hostread_lift_all(void);
/* 1: host reads were recorded from the start (TRACE.flow's head flag 8) */
HIDDEN int dyl_hostread_recorded(void);

#endif
