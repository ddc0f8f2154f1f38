/* timeline.h - the prediction of a process of several threads (doc/threads.md).
 *
 * Each thread is a timeline: from its start to its end, its replaced calls and the gaps
 * between them (its own code, the calls that stay, what it waits for outside wrapped
 * calls).  A replaced call takes f instead of t and shifts the rest of its thread.  A
 * thread starts at its creator's predicted time of creation plus what its start took
 * (start_ns - create_ns); a join returns at max(the joiner's predicted arrival, the
 * target's predicted end) plus the join's own cost; a wait (a condition variable, a
 * mutex, a semaphore, a barrier) likewise, at the predicted time of the wake-up that ended
 * it, on its thread's timeline; the process ends when its main
 * thread does, or a thread that outlives it.  With DEVICES > 0, at most that many
 * replaced calls run at once: the others wait, first come (by predicted arrival) first
 * served.  The engine knows nothing of traces or models: the caller fills the threads.
 */
#ifndef SPEEDUP_TIMELINE_H
#define SPEEDUP_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#define TL_UNKNOWN (-1)		/* a thread's end the trace does not know (still running) */

/* A replaced call: measured start and time t (ns; tracing's cost taken out, an average,
 * so a short call's may be below 0: only the thread's sum is meant), predicted time f. */
struct tl_call {
	int64_t start, t;
	double f;
	int32_t func;		/* func_names.h id; -1: a transfer's time alone (transfers.c) */
	float link;		/* of f, the transfers charged to it (transfers.c): the HTML
				 * report draws it on the link (in the padding: no room taken) */
};

/* A pthread_join: entered at CALL_NS, returned at RET_NS, of thread TARGET (an index;
 * -1 a thread the trace does not know: the join keeps its measured time).  UPTO > 0: not
 * the target's end but the end of its UPTO-th call (an OpenMP region's closing barrier
 * waits for the team's work in the region, not for the team's threads to end).  WAKE > 0:
 * a wait, ended by the target's WAKE-th wake-up. */
struct tl_join {
	int64_t call_ns, ret_ns;
	int target;
	size_t upto;
	size_t wake;
	/* a dependency on another process (xdeps.h, jobs.c): HAS_LAG, its return comes LAG
	 * after the target's point, not the join's or the wait's own rule; MORE: how many of
	 * the next joins are on the same interval (it ends at the latest of them) */
	int xdep;
	int has_lag;
	double lag;
	size_t more;
	/* results */
	double pred_call, pred_ret;
	double pred_target;	/* the target's predicted end (or UPTO-th call's end) */
	int bound;		/* the target's predicted end decided the return */
};

/* A wake-up that ended another thread's wait: measured at AT; its predicted time. */
struct tl_wake {
	int64_t at;
	double pred;
};

enum tl_state { TL_WAITING, TL_RUNNING, TL_DONE, TL_ABSORBED };

struct tl_thread {
	uint64_t tid;
	int creator;		/* index; -1 for the main thread (or a creator not known) */
	int64_t create_ns, start_ns, end_ns;	/* end_ns TL_UNKNOWN: ran till killed */
	const struct tl_call *calls;	/* by start, none inside another (the caller's) */
	size_t ncalls;
	struct tl_join *joins;	/* by call_ns (the caller's); waits too */
	size_t njoins;
	struct tl_wake *wakes;	/* by at (the caller's) */
	size_t nwakes;
	int64_t t_sum;		/* the caller's: its calls' t and f, for the report */
	double f_sum;
	/* results */
	enum tl_state state;	/* TL_DONE, or TL_ABSORBED: created inside a replaced call
				 * (part of it) or never reached */
	double pstart, pend;	/* predicted start and end (NAN: end unknown) */
	double plast;		/* predicted end of its last call: a thread of unknown end
				 * (running at exit) was still there at least until then */
	double queue_wait_ns;	/* its calls' waits for a device */
	uint64_t waited_calls;
	/* the walk's own */
	double *call_end;	/* each call's predicted end */
	size_t ci, ji, ki, wi;
	double d;		/* predicted - measured time, now */
};

/* One stretch of the critical path: thread TH from FROM to TO (predicted ns); it began
 * where the thread started (HOW_START), where a thread it joined ended (HOW_JOIN) or
 * where the wake-up that ended its wait came (HOW_WAKE). */
struct tl_step {
	int th;
	double from, to;
	enum { TL_HOW_START, TL_HOW_JOIN, TL_HOW_WAKE } how;
};

struct timeline {
	struct tl_thread *th;	/* th[0]: the main thread (start 0, end: the process's) */
	int n;
	int devices;		/* calls at once; 0: unlimited */
	double setup_ns;	/* the accelerator's set-up: the first replaced call waits it */
	/* results */
	double end_ns;		/* the process's predicted end (the trace's clock) */
	int last;		/* the thread that ends it */
	double queue_wait_ns;
	uint64_t waited_calls;
	int absorbed;		/* threads created inside replaced calls (or never reached) */
	int unresolved;		/* joins whose target never ended: kept as measured */
	size_t waits, waits_followed;	/* the caller's: the trace's waits, and those paired
					 * with a wake-up of a thread on the timeline */
	struct tl_step *path;	/* the critical path, in time order */
	int npath;
	/* the engine's own */
	int *kids;		/* thread indices by (creator, create_ns) */
	int *kid0;		/* per thread: where its kids begin in KIDS */
	double *free_at;	/* per device: when it is free */
	int *running;		/* the threads running now (a walk looks at them only) */
	int nrunning;
	int setup_done;
};

/* Runs TL (th, n, devices, setup_ns filled; the results are set here).  0, or -1 when
 * out of memory. */
int timeline_run(struct timeline *tl);
/* Frees what timeline_run allocated (not the threads). */
void timeline_free(struct timeline *tl);

#endif
