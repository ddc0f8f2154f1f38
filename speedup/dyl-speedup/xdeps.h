/* xdeps.h - dependencies between the processes of a run (doc/jobs-timeline.md, issue 37).
 *
 * dyl-speedup over several traces of one run places their processes on one time axis
 * (by '# start_ns=') and walks all their threads together (timeline.h).  What ties one
 * process to another is a dependency: "in process A, thread A_TID, the blocking interval
 * [A_CALL, A_RET] (measured, A's clock) ends no earlier than process B's thread B_TID's
 * measured instant B_T (B's clock), as predicted, plus LAG_NS".  A waitpid, a pipe read,
 * an MPI receive or collective all become such dependencies; their sources add them with
 * xdep_add, the engine (jobs.c) turns each into a join of A's thread on B's thread.
 *
 * Processes are the traces' indices in the run (the order of the command line).  Times
 * are each trace's own clock (ns from its wrapper's start, as its rows' t_start_ns).
 * Several dependencies on one interval (same A, A_TID, A_CALL, A_RET): it ends at the
 * latest of them.  The interval must be one the thread spends blocked (not inside a
 * replaced call); a dependency on a process or thread the run does not have is kept out
 * (counted in xdeps.dropped): the interval keeps its measured time. */
#ifndef SPEEDUP_XDEPS_H
#define SPEEDUP_XDEPS_H

#include <stddef.h>
#include <stdint.h>

/* B_T: not an instant but the end of thread B_TID (its process's end for the main
 * thread): a waitpid waits for it. */
#define XDEP_END INT64_MAX
/* LAG_NS: measured, A_RET - max(A_CALL, B_T), 0 if below (what the return took after
 * the release came: a hand-over, a transfer, a wake-up) */
#define XDEP_LAG_MEASURED INT64_MIN

enum xdep_kind { XDEP_WAITPID, XDEP_PIPE, XDEP_MPI, XDEP_OTHER, XDEP_KINDS };

struct xdep {
	int a_proc;		/* the process that blocks (trace index) */
	uint64_t a_tid;
	int64_t a_call, a_ret;
	int b_proc;		/* the process it waits for */
	uint64_t b_tid;
	int64_t b_t;		/* an instant of B_TID, or XDEP_END */
	int64_t lag_ns;		/* added to B_T's predicted time; or XDEP_LAG_MEASURED */
	enum xdep_kind kind;	/* for the report's counts only */
};

/* The run's dependencies, and where each process is placed. */
struct xdeps {
	struct xdep *d;
	size_t n, room;
	size_t dropped;		/* the engine's: dependencies it could not place */
	/* per process (NPROC of them, set by the engine before the sources run): its start
	 * on the run's axis, ns after the first process's start.  A source that aligns the
	 * clocks (MPI ranks on several hosts) may change it; -1: not known */
	int64_t *offset_ns;
	int nproc;
};

/* Appends D to X.  0, or -1 out of memory (message printed). */
int xdep_add(struct xdeps *x, const struct xdep *d);
/* Frees X's arrays (X itself is the caller's). */
void xdeps_free(struct xdeps *x);

/* A source of dependencies reads what it needs from the traces' '#' lines (or rows) and
 * calls xdep_add; jobs.c calls each source in turn.  Its form:
 *   int NAME_xdeps(struct xdeps *x, const struct trace_src *const *src, int n);
 * SRC: the run's traces (rows.h), N of them, in the order of the processes, read to
 * their end: their notes hold every '#' line; a source that needs the rows opens the
 * trace again (rows_open(&s, src[i]->path)).  Times in the dependencies are each trace's
 * own clock; X->offset_ns places the processes.  0, or -1 after printing one error
 * naming the file and line. */

#endif
