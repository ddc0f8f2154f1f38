/* dyl_wrap.h - the code every generated wrapper compiles into itself.
 *
 * Two kinds of header serve a wrapper.  dyl.h (with dyl_regions.h) is the runtime's
 * interface: declarations the wrapper calls, and dyl_now(), inline for speed.  This one
 * and the headers it includes are code that must live in the wrapper itself: the ABI
 * check below, the exec and _exit trampolines (dyl_process.h) and the thread
 * interposers (dyl_threads.h); std.regions and
 * std.diff add the allocator interposers (dyl_alloc.h).  The runtime's own files include
 * none of them.
 */
#ifndef DYL_WRAP_H
#define DYL_WRAP_H

#include "dyl.h"

/* A unit built at -O0 (the units of a large wrapper: fast to build) still compiles the
 * steps every wrapper shares optimized (std.time's, dyl_wcall.h), once a unit: a call
 * costs what it did when each wrapper had their code inline.  Known here, first: a
 * #pragma GCC optimize defines __OPTIMIZE__ for the rest of the unit. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__OPTIMIZE__)
#define DYL_UNOPTIMIZED 1
#endif

/* The layout of struct dyl_call and of dyl.h's calls, checked when the wrapper loads: a
 * wrapper built against another runtime stops there, naming it ("undefined symbol:
 * dyl_abi_6"), instead of misreading its calls. */
static const int *const dyl_abi_check __attribute__((used)) = &dyl_abi_6;

#include "dyl_process.h"	/* exec and _exit write the trace out first */
#include "dyl_threads.h"	/* thread creation, joins, OpenMP regions: thread events */
#include "dyl_procs.h"		/* fork, spawn, waits, pipes: process events */

#endif
