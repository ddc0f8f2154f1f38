/* output.c - the output path, in one direction: the caller drives the spool, then the
 * trace.
 *
 * trace.c names, claims and writes the CSV file; spool.c keeps the binary rows beside
 * it and, at the image's end, converts them into it.  Neither calls the other's steps:
 * this file says their order.  The trace is claimed, then its spool opened; the first
 * write-out writes the header into the trace, then its copy into the spool; blocks go
 * into the spool; at the end the spool is completed and converted (or kept), then the
 * trace gets its footer.  Callers: runtime.c (calls, threads), exit.c (exec, _exit).
 */
#define _GNU_SOURCE
#include <errno.h>
#include "internal.h"

/* The trace claimed (ONLY_PATH: trace.c dyl_trace_open), then its spool (which replaces
 * a spool an older run left: DYL_CONVERT).  dyl_out.io held. */
static void claim(int only_path)
{
	dyl_trace_open(only_path);
	dyl_spool_open();
}

/* AHEAD 0: at the first recorded call.  AHEAD 1: at start-up (dyl_prepare), before
 * any call, and only where the process's end would take the name even with no call
 * recorded (dyl_trace_open(1)): PATH itself, free, and new or its own program's previous
 * trace.  Else (PATH held, or another program's, or %p in it) the first call claims, as
 * it always did. */
void dyl_out_claim(int ahead)
{
	if (__atomic_load_n(&dyl_out.fd, __ATOMIC_ACQUIRE) >= 0 || DYL_DISABLED() || dyl_proc.off)
		return;
	dyl_io_lock();
	if (dyl_out.fd < 0 && !DYL_DISABLED())
		claim(ahead);
	dyl_io_unlock();
}

int dyl_out_lock(void)
{
	char buf[8192];

	dyl_io_lock();
	if (dyl_out.fd < 0 && !DYL_DISABLED())
		claim(0);
	if (!DYL_DISABLED() && !dyl_out.header_done) {
		size_t o = dyl_trace_header(buf, sizeof(buf));
		/* the spool's copy, for dyl-trace after a crash: the same bytes */
		dyl_spool_meta_text(buf, o, dyl_meta.ncolumns);
	}
	if (DYL_DISABLED()) {
		dyl_io_unlock();
		return 0;
	}
	return 1;
}

void dyl_out_unlock(void)
{
	dyl_io_unlock();
}

void dyl_out_block(struct dyl_thread *t, uint32_t from, uint32_t to, uint32_t open)
{
	struct dyl_open opens[DYL_MAX_FRAMES];
	struct dyl_block b;
	int saved = errno;

	dyl_spool_block(&b, opens, t, from, to, open);
	if (dyl_out_lock()) {
		dyl_spool_block_put(&b, opens, t);
		dyl_out_unlock();
	}
	errno = saved;
}

/* Recording stopped on a failed write (a full disk): the rows written so far stay in
 * the spool, and the trace, where it still takes them, names it and ends with FOOT. */
static void end_after_failure(const char *foot, size_t flen)
{
	dyl_io_lock();
	if (dyl_spool_keep_failed())
		dyl_trace_footer_after_failure(foot, flen);
	dyl_io_unlock();
}

void dyl_out_end(void)
{
	/* the footer: 7 lines of at most 42 bytes, then std.callsite's module table (one
	 * line an object: static, this runs once, maybe on a small thread stack) */
	static char buf[65536];
	int n, saved = errno;

	if (DYL_DISABLED()) {
		/* (once: a failed exec's image ends again later, its spool kept already) */
		if (!dyl_proc.off && !__atomic_exchange_n(&dyl_out.finished, 1, __ATOMIC_ACQ_REL))
			end_after_failure(buf, (size_t)dyl_trace_footer_text(buf, sizeof(buf)));
		errno = saved;
		return;
	}
	if (dyl_proc.off || __atomic_exchange_n(&dyl_out.finished, 1, __ATOMIC_ACQ_REL))
		return;
	/* A process that recorded no call took no name.  Its trace (P = 0 is an answer
	 * too) goes to PATH only if that is stale: not held, not written by a process that
	 * started after this one (the program a shell or /usr/bin/time ran), and never
	 * to PATH.<pid>: launchers and forked helpers leave nothing behind. */
	if (__atomic_load_n(&dyl_out.fd, __ATOMIC_ACQUIRE) < 0) {
		if (dyl_proc.forked)
			return;
		dyl_io_lock();
		if (dyl_out.fd < 0)
			claim(1);
		dyl_io_unlock();
		if (dyl_out.fd < 0)
			return;
	}
	n = dyl_trace_footer_text(buf, sizeof(buf));
	if (dyl_out_lock()) {
		/* the rows converted into the trace, or left in the spool (DYL_CONVERT=later),
		 * then the footer */
		int in_spool = dyl_spool_finish(buf, (size_t)n);
		dyl_trace_footer(buf, n, in_spool);
		dyl_out_unlock();
	}
	dyl_trace_end();
	errno = saved;
}

void dyl_out_drop_unused(void)
{
	int saved = errno;

	dyl_io_lock();
	if (dyl_out.fd >= 0 && !dyl_out.header_done) {
		dyl_spool_drop();
		dyl_trace_drop();
	}
	dyl_io_unlock();
	errno = saved;
}
