/* unwind.h - libunwind, reached through pointers (unwind.c).  The features that walk
 * stacks (std.regions, std.diff, std.flow) load it when they start; the runtime alone
 * (time and trace) never does.  Nothing here is exported. */
#ifndef DYL_UNWIND_H
#define DYL_UNWIND_H

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "internal.h"

/* All NULL until dyl_unwind_on() found them: a walk then finds no frame, as when
 * libunwind fails (the callers fall back to the whole stack). */
struct dyl_unw {
	__typeof__(&unw_tdep_getcontext) getcontext;
	__typeof__(&unw_init_local) init_local;
	__typeof__(&unw_step) step;
	__typeof__(&unw_get_reg) get_reg;
	__typeof__(&unw_get_save_loc) get_save_loc;
};
HIDDEN extern struct dyl_unw dyl_unw;

/* Loads libunwind and sets it up, once (a feature's set-up, from a constructor:
 * before the program's threads and its first descriptors). */
HIDDEN void dyl_unwind_on(void);

/* Starts a walk at the caller's frame: 0, or -1 (no libunwind, or it failed).
 * Inlined: the context must be the caller's own. */
#define DYL_UNW_START(uc, cur)                                                  \
	(dyl_unw.init_local && dyl_unw.getcontext(uc) == 0 &&                    \
	 dyl_unw.init_local(cur, uc) == 0 ? 0 : -1)

#endif
