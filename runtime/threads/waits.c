/* waits.c - waits and wake-ups, for dyl-speedup's timelines (doc/threads.md, "Waits and
 * wake-ups").  The interposers are in the wrapper (dyl_threads.h); they call these.
 *
 * A wait that blocked is one event: the object, when the wait was called and when it
 * returned.  A wake-up (a signal, broadcast, unlock or post that found waiters) is one
 * event: the object and when it was called.  dyl-speedup pairs a wait's end with the last
 * wake-up of the same object by another thread while it waited.  Waits are rare next to
 * calls: each event goes to the spool as it happens, like the thread events.
 *
 * Nothing here starts the runtime (dyl_init): a mutex lock may come from the runtime's own
 * start-up, or from the C library's, and a wait before the first recorded call has no
 * call to shift anyway.  DYL_WAITS=off records none.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include "internal.h"
#include "thread_record.h"

_Static_assert((int)DYL_WAIT_COND == DYL_ON_COND && (int)DYL_WAIT_MUTEX == DYL_ON_MUTEX &&
	       (int)DYL_WAIT_SEM == DYL_ON_SEM && (int)DYL_WAIT_BARRIER == DYL_ON_BARRIER,
	       "dyl.h and the spool name the objects alike");

/* 0: not known yet, 1: on, 2: off (DYL_WAITS=off) */
static int waits_setting;

/* Does this process record waits now?  (Never from the runtime's own code: dyl_busy.) */
static int waits_on(void)
{
	if (dyl_busy || __atomic_load_n(&dyl_proc.initialized, __ATOMIC_ACQUIRE) != 2 ||
	    dyl_proc.off || dyl_proc.secure || DYL_DISABLED())
		return 0;
	int s = __atomic_load_n(&waits_setting, __ATOMIC_RELAXED);
	if (!s) {
		const char *v = dyl_env(DYL_ENV_WAITS);
		s = v && strcmp(v, "off") == 0 ? 2 : 1;
		__atomic_store_n(&waits_setting, s, __ATOMIC_RELAXED);
	}
	return s == 1;
}

/* This object's code, from its ELF header to the end of its text (the linker's symbols).
 * The runtime's own locks reach the wrapper's interposers too; recording one would take
 * dyl_out.io inside whatever lock it is (dyl_out.io itself: a deadlock). */
extern const char __ehdr_start[] HIDDEN, _etext[] HIDDEN;

uint64_t dyl_wait_begin(const void *caller)
{
	int saved = errno;
	const char *pc = caller;
	uint64_t now = waits_on() && !(pc >= __ehdr_start && pc < _etext) ? dyl_now() : 0;

	errno = saved;
	return now;
}

void dyl_wait_end(uint64_t t, int on, const void *obj)
{
	if (t)
		dyl_threads_record(DYL_EV_WAIT, 0, (uint32_t)on, (uint64_t)(uintptr_t)obj, t, dyl_now());
}

void dyl_wake(uint64_t t, int on, const void *obj)
{
	if (t)
		dyl_threads_record(DYL_EV_WAKE, 0, (uint32_t)on, (uint64_t)(uintptr_t)obj, t, 0);
}
