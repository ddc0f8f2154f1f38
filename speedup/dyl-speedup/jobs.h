/* jobs.h - the processes of one run on one timeline (doc/jobs-timeline.md, issue 37).
 *
 * dyl-speedup over several traces of one run places each process at its '# start_ns='
 * (the epoch time of its wrapper's start) and walks all their threads together
 * (timeline.h): a child starts at its parent's predicted fork or spawn (plus its measured
 * start-up), an exec'd image where its predecessor called exec, a process nobody started
 * at its own start; a waitpid returns at max(its predicted call, the child's predicted
 * end) plus what the return took after it; a pipe read no earlier than the predicted end
 * of the write of its first byte (xdeps.h).  The run's T is its first start to its last
 * end, T' the same predicted. */
#ifndef SPEEDUP_JOBS_H
#define SPEEDUP_JOBS_H

#include <stdint.h>
#include "predict.h"
#include "proc_events.h"
#include "timeline.h"
#include "xdeps.h"

/* One process of the run. */
struct job_proc {
	int64_t pid, ppid;
	int parent;		/* the process that started it (an index), -1 */
	int exec_of;		/* an image that exec put in place of PARENT's */
	int has_timeline;	/* its threads are on the timeline; else one thread of T' */
	int64_t offset_ns;	/* its start after the run's first (measured) */
	int64_t end_ns;		/* its measured end, on the run's axis */
	double pstart, pend;	/* predicted, on the run's axis */
	double waited_ns, pwaited_ns;	/* in waits on other processes: measured, predicted */
	size_t deps;		/* its waits on other processes (xdeps) */
	int base, nth;		/* its threads in the run's timeline */
	struct proc_events ev;
};

struct job {
	struct job_proc *p;	/* in the traces' order */
	int n;
	int *order;		/* the processes by start (th[0] is the first's main thread) */
	struct timeline tl;	/* every process's threads */
	struct xdeps x;
	size_t by_kind[XDEP_KINDS];
	int64_t total_ns;	/* the run's T: first start to last end */
	double predicted_ns;	/* its T' */
};

/* When PROCS (N >= 2 traces, predicted one by one) are of one run: places them on one
 * timeline and puts the run's T and T' in RUN (its figures become the run's, S_G = T/T').
 * *JOB: NULL when the traces cannot be placed (one of them on standard input, without
 * '# start_ns=', timed in CPU time): RUN keeps the sum, *WHY says why (static text).
 * 0, or -1 after a message (a trace's '#' line wrong, out of memory). */
int jobs_predict(struct job **job, const char **why, struct prediction *procs, int n,
		 struct prediction *run);
void jobs_free(struct job *job);

/* The image of PID that a fork or spawn started (FIRST) or the last one (exec put in
 * place): a process index, -1 when the run has none. */
int jobs_image(const struct job *job, int64_t pid, int first);
/* The run's waitpid and pipe dependencies from the processes' events (jobs_read.c). */
int jobs_proc_xdeps(struct xdeps *x, const struct job *job);

#endif
