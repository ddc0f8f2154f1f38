/* start.c - the runtime's start-up and end, in one named order.
 *
 * The library has this one constructor and this one destructor: each part's start-up
 * is a function called here, so the order does not depend on how the files are linked.
 * The order matters: the parts register fork handlers (pthread_atfork: the child's run
 * in registration order, the prepare handlers in reverse) and thread-exit keys (their
 * destructors run in key order).  It is the order they had when each part had its own
 * constructor and the link order (by file name) decided it.
 *
 * This file sits above every layer (tests/runtime/layers.py): it may name the features.
 */
#include "internal.h"

/* each part's start-up, defined in its folder */
HIDDEN void dyl_faults_start(void);	/* faults/faults.c: the ring's size, key, fork */
HIDDEN void dyl_regions_start(void);	/* regions/regions.c: the table's fork handlers */
HIDDEN void dyl_stacks_start(void);	/* regions/stackframe.c: the threads' stacks */
HIDDEN void dyl_stackvars_start(void);	/* regions/stackvars.c: fork */
HIDDEN void dyl_statics_start(void);	/* regions/statics.c: fork */

/* glibc calls a library's constructors with the program's arguments (for the core) */
__attribute__((constructor)) static void dyl_start(int argc, char **argv, char **envp)
{
	(void)envp;
	dyl_faults_start();
	dyl_regions_start();
	dyl_core_start(argc, argv);	/* runtime.c: the process's state, settings, clock */
	dyl_stacks_start();
	dyl_stackvars_start();
	dyl_statics_start();
}

/* The footer waits for the runtime's own destructor: destructors that run after exit's
 * handlers may still make wrapped calls (runtime.c at_exit). */
__attribute__((destructor)) static void dyl_end(void)
{
	dyl_finish();
}
