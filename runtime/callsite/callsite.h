/* callsite.h - what std.callsite's files share (modules.c, stack.c). */
#ifndef DYL_CALLSITE_H
#define DYL_CALLSITE_H

#include "internal.h"

/* Finds libunwind's unw_backtrace once dyl_unwind_on loaded it (stack.c). */
HIDDEN void dyl_callsite_stack_on(void);

#endif
