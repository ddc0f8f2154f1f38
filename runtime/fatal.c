/* fatal.c - the rows recorded so far survive a fatal signal.
 *
 * A program killed by SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT runs no exit handler,
 * so the rows still in buffers and in the spool would never become its trace.  The
 * runtime handles these signals while the program leaves them at their default: it
 * writes the trace out as exit would, then lets the signal do what it did before (the
 * process dies of the same signal, with the same status and core dump).
 *
 * Only default dispositions are taken over: a handler the program (or a library) set
 * before us is left alone, and one set after us replaces ours, as it would replace the
 * default.  Writing out takes the runtime's locks, so a fault inside the runtime itself
 * (dyl_busy) writes nothing rather than risk waiting on a lock this thread holds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include "internal.h"

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
/* what writes the trace out (dyl_finish): given by the caller, which sits above this
 * file (runtime.c) */
static void (*finish)(void);

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)uc;
	if (!dyl_busy && dyl_proc.initialized == 2 && getpid() == dyl_proc.pid)
		finish();
	/* SA_RESETHAND put the default back.  A fault happens again when the handler
	 * returns; a signal that was sent (kill, raise, abort) is sent again, unless a
	 * handler of the program's that saved ours and called it is in charge now. */
	struct sigaction cur;
	if ((si == NULL || si->si_code <= 0) && sigaction(sig, NULL, &cur) == 0 &&
	    !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL)
		raise(sig);
	errno = saved;
}

void dyl_fatal_setup(void (*write_out)(void))
{
	finish = write_out;
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		struct sigaction old, sa = { 0 };
		if (sigaction(fatal_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue;
		sa.sa_sigaction = on_fatal;
		sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		sigaction(fatal_signals[i], &sa, NULL);
	}
}
