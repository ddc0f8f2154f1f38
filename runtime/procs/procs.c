/* procs.c - process events: forks, spawns, execs and waits for children, for dyl-speedup's
 * timeline of a run's processes (doc/jobs.md).  The interposers are in the wrapper
 * (dyl_procs.h, dyl_process.h: only a definition in a preloaded object comes before the C
 * library's); they call the functions below.  Pipes are in pipes.c.
 *
 * Each event is recorded in the process that made the call, after the call returned: a
 * fork in the parent (the child's trace starts at the fork: its own header says its
 * ppid), a wait once it returned a child.  A child that clone() made directly records
 * nothing at all (dyl_proc_cloned): the fork handlers that give a forked child its own
 * trace do not run in it, and it would write into its parent's.  A vfork child records nothing (it shares its
 * parent's memory until it execs or exits): its parent records the vfork when it resumes.
 *
 * An exec ends the image's trace with its line; the new image learns that its process
 * wrote a trace before (its header's '# exec_of=1') from DYL_EXEC_OF=PID in the
 * environment the exec hooks hand it, which the new image's wrapper removes at start.
 *
 * Events go to the spool as they happen, through the thread events' path
 * (threads/threads.c: dyl_threads_record; errno kept).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include "internal.h"
#include "procs_record.h"
#include "threads/thread_record.h"

int dyl_procs_recording(void)
{
	return __atomic_load_n(&dyl_proc.initialized, __ATOMIC_ACQUIRE) == 2 && !dyl_proc.off &&
	       !dyl_proc.secure && !DYL_DISABLED() && !dyl_busy;
}

uint64_t dyl_proc_begin(void)
{
	uint64_t now = dyl_now();
	int saved = errno;

	if (__atomic_load_n(&dyl_proc.initialized, __ATOMIC_ACQUIRE) != 2 && !dyl_busy)
		dyl_init();
	int on = dyl_procs_recording();
	errno = saved;
	return on ? now : 0;
}

void dyl_proc_forked(uint64_t t, long child, int spawn)
{
	if (t && child > 0 && dyl_procs_recording())
		dyl_threads_record(spawn ? DYL_EV_SPAWN : DYL_EV_FORK, 0, 0, (uint64_t)child, t, t);
}

void dyl_proc_waited(uint64_t t, long pid)
{
	if (t && pid > 0 && dyl_procs_recording())
		dyl_threads_record(DYL_EV_WAITPID, 0, 0, (uint64_t)pid, t, dyl_now());
}

/* (in the child of a clone without CLONE_VM: its own copy of this memory) */
void dyl_proc_cloned(void)
{
	dyl_proc.off = 1;
	/* the threads' windows are mapped from the parent's spool, shared: the child's exit
	 * must flush none */
	dyl_proc.threads = NULL;
	DYL_DISABLE();
	__atomic_store_n(&dyl_out.finished, 1, __ATOMIC_RELEASE);
}

/* The environment entry handed to the exec'd image (see the top). */
static char exec_mark[48];

const char *dyl_proc_exec(void)
{
	uint64_t t = dyl_now();
	int saved = errno;
	const char *mark = NULL;

	/* (a vfork child shares this memory: it starts and writes nothing here) */
	if (dyl_procs_recording() && getpid() == dyl_proc.pid && dyl_recorded_any()) {
		dyl_threads_record(DYL_EV_EXEC, 0, 0, 0, t, t);
		snprintf(exec_mark, sizeof(exec_mark), "DYL_EXEC_OF=%d", (int)dyl_proc.pid);
		mark = exec_mark;
	}
	errno = saved;
	return mark;
}

void dyl_procs_on(void)
{
	int saved = errno;

	if (__atomic_load_n(&dyl_proc.initialized, __ATOMIC_ACQUIRE) != 2)
		dyl_init();
	if (dyl_procs_recording())
		dyl_threads_record(DYL_EV_PROCS_ON, 0, 0, 0, 0, 0);
	errno = saved;
}

/* (from a wrapper's constructor: one thread, before main) */
void dyl_procs_start(int ours)
{
	int saved = errno;

	if (__atomic_load_n(&dyl_proc.initialized, __ATOMIC_ACQUIRE) != 2)
		dyl_init();	/* DYL_EXEC_OF is read there, once */
	if (dyl_env(DYL_ENV_EXEC_OF))
		dyl_env_drop(DYL_ENV_EXEC_OF);
	if (ours)
		dyl_procs_on();
	errno = saved;
}
