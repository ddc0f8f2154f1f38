/* exit.c - write the trace out before the process image goes away without exit():
 * the exec family and _exit.
 *
 * The runtime cannot interpose those itself: it is loaded as the wrapper's dependency,
 * after the C library in the global scope, so the program's calls never reach a
 * definition here.  Each wrapper carries the trampolines instead (dyl_process.h) and
 * they call in here.  quick_exit needs no trampoline: at_quick_exit (runtime.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>
#include "internal.h"

/* This image gave its name back at an exec (it had recorded nothing): if the exec fails,
 * its threads' windows belong to the spool it dropped. */
static int gave_back;

void dyl_image_ends(int how)
{
	int saved = errno;
	void (*before_exec)(void) = __atomic_load_n(&dyl_hooks.before_exec, __ATOMIC_ACQUIRE);

	if (how == DYL_IMAGE_EXEC && before_exec)
		before_exec();

	/* A vfork child shares our memory but not our pid: the buffers are its parent's.
	 * Inside the runtime (a wrapped call it makes) nothing is written twice. */
	if (dyl_busy || dyl_proc.initialized != 2 || getpid() != dyl_proc.pid) {
		errno = saved;
		return;
	}
	if (how == DYL_IMAGE_EXEC && !dyl_recorded_any()) {
		/* Nothing recorded in this image (e.g. a shell that execs the program): it
		 * leaves no trace, and gives back the name it claimed to the program it runs. */
		dyl_busy++;
		dyl_out_drop_unused();
		gave_back = 1;
		dyl_busy--;
	} else {
		if (how == DYL_IMAGE_EXEC)
			dyl_spool_exec();	/* its rows into the CSV now (DYL_CONVERT) */
		dyl_finish();
	}
	errno = saved;
}

/* The exec failed: the image goes on, and will write its footer again at its end. */
void dyl_image_goes_on(void)
{
	int saved = errno;

	/* (written out, or its name given back: either way the spool its threads' windows
	 * belong to is gone, and the next call claims again) */
	if (!dyl_busy && dyl_proc.initialized == 2 && getpid() == dyl_proc.pid &&
	    (__atomic_load_n(&dyl_out.finished, __ATOMIC_ACQUIRE) || gave_back)) {
		__atomic_store_n(&dyl_out.finished, 0, __ATOMIC_RELEASE);
		gave_back = 0;
		dyl_resume();
	}
	errno = saved;
}
