/* jobs.c - the processes of one run on one timeline (jobs.h says what it models).
 *
 * Each process was predicted alone first (its own timeline, tl_build.c).  Here their
 * threads are copied into one timeline, their times moved to the run's axis (the first
 * process's start is 0), each process's main thread made a kid of the thread that forked,
 * spawned or exec'd it, and each dependency between processes (xdeps.h) made a join: on
 * the end of the thread waited for, or on a wake-up point put at the instant waited for.
 * The walk (timeline.c) does the rest. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "input.h"
#include "jobs.h"
#include "jobs_place.h"
#include "rows.h"

int xdep_add(struct xdeps *x, const struct xdep *d)
{
	if (grow(&x->d, sizeof(*x->d), x->n, &x->room, 64) != 0) {
		input_error(NULL, 0, "out of memory");
		return -1;
	}
	x->d[x->n++] = *d;
	return 0;
}

void xdeps_free(struct xdeps *x)
{
	free(x->d);
	free(x->offset_ns);
	x->d = NULL;
	x->offset_ns = NULL;
	x->n = x->room = 0;
}

/* Why the traces PROCS (N) cannot be placed on one axis; NULL if they can. */
static const char *why_not(const struct prediction *procs, int n)
{
	for (int i = 0; i < n; i++) {
		if (!procs[i].path || strcmp(procs[i].path, "/dev/stdin") == 0 ||
		    strcmp(procs[i].path, "-") == 0)
			return "a trace came on standard input (its '#' lines are read again)";
		if (procs[i].t_cpu > 0)
			return "T is CPU time, and one timeline needs the wall clock";
	}
	return NULL;
}

/* Opens the N traces of PROCS (SRCS), reads them to the end (the process lines come after
 * the rows) and their events into JOB.  1 when one has no '# start_ns=' (*WHY); 0; -1
 * after a message. */
static int open_traces(struct job *job, struct trace_src *srcs, int *opened,
		       const struct prediction *procs, int n, const char **why)
{
	for (int i = 0; i < n; i++) {
		struct trace_row row;
		int rc;
		if (rows_open(&srcs[i], procs[i].path) != 0)
			return -1;
		(*opened)++;
		while ((rc = rows_next(&srcs[i], &row)) > 0)
			;
		if (rc < 0 || proc_events_read(&job->p[i].ev, &srcs[i], procs[i].path) != 0)
			return -1;
		if (srcs[i].start_ns < 0) {
			*why = "a trace has no '# start_ns=' line (an older trace): the processes "
			       "are added up as if they ran one after another";
			return 1;
		}
		job->p[i].pid = srcs[i].pid;
		job->p[i].ppid = job->p[i].ev.ppid;
		job->p[i].exec_of = job->p[i].ev.exec_of;
		job->p[i].offset_ns = srcs[i].start_ns;
	}
	return 0;
}

static const struct job *sort_job;	/* (qsort has no argument) */

static int by_offset(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	int64_t ox = sort_job->p[x].offset_ns, oy = sort_job->p[y].offset_ns;

	return ox != oy ? (ox < oy ? -1 : 1) : x - y;
}

/* Offsets from the first start; ORDER by start; the dependency sources' room. */
static int place(struct job *job)
{
	int64_t t0 = INT64_MAX;

	job->order = malloc((size_t)job->n * sizeof(*job->order));
	job->x.offset_ns = malloc((size_t)job->n * sizeof(*job->x.offset_ns));
	if (!job->order || !job->x.offset_ns)
		return -1;
	job->x.nproc = job->n;
	for (int i = 0; i < job->n; i++)
		if (job->p[i].offset_ns < t0)
			t0 = job->p[i].offset_ns;
	for (int i = 0; i < job->n; i++) {
		job->p[i].offset_ns -= t0;
		job->x.offset_ns[i] = job->p[i].offset_ns;
	}
	return 0;
}

/* After the sources (one may have moved a process): the offsets, and the order by them. */
static void reorder(struct job *job)
{
	for (int i = 0; i < job->n; i++) {
		if (job->x.offset_ns[i] >= 0)
			job->p[i].offset_ns = job->x.offset_ns[i];
		job->order[i] = i;
	}
	sort_job = job;
	qsort(job->order, (size_t)job->n, sizeof(*job->order), by_offset);
}

/* The dependency sources of the run (xdeps.h), over its traces SRCS (read to the end). */
static int run_sources(struct job *job, const struct trace_src *srcs)
{
	const struct trace_src **src = malloc((size_t)job->n * sizeof(*src));
	int rc;

	if (!src) {
		input_error(NULL, 0, "out of memory");
		return -1;
	}
	for (int i = 0; i < job->n; i++)
		src[i] = &srcs[i];
	rc = jobs_proc_xdeps(&job->x, job);
	/* (a source of MPI's waits goes here: rc = rc ? rc : NAME_xdeps(&job->x, src, job->n)) */
	free(src);
	return rc;
}

void jobs_free(struct job *job)
{
	if (!job)
		return;
	for (int i = 0; i < job->tl.n; i++) {
		free((void *)job->tl.th[i].calls);
		free(job->tl.th[i].joins);
		free(job->tl.th[i].wakes);
	}
	timeline_free(&job->tl);
	free(job->tl.th);
	for (int i = 0; i < job->n; i++)
		proc_events_free(&job->p[i].ev);
	free(job->p);
	free(job->order);
	xdeps_free(&job->x);
	free(job);
}

/* Reads the traces, runs the sources, builds and walks the run's timeline.  1: cannot
 * (*WHY); 0; -1 after a message. */
static int build(struct job *job, struct prediction *procs, int n, const char **why)
{
	struct trace_src *srcs = calloc((size_t)n, sizeof(*srcs));
	int opened = 0, rc = -1;

	if (!srcs) {
		input_error(NULL, 0, "out of memory");
		return -1;
	}
	rc = open_traces(job, srcs, &opened, procs, n, why);
	if (rc == 0 && (place(job) != 0 || run_sources(job, srcs) != 0))
		rc = -1;
	for (int i = 0; i < opened; i++)
		rows_close(&srcs[i]);
	free(srcs);
	if (rc != 0)
		return rc;
	reorder(job);
	if (jobs_place(job, procs) != 0 || timeline_run(&job->tl) != 0) {
		input_error(NULL, 0, "out of memory");
		return -1;
	}
	jobs_results(job);
	return 0;
}

/* The run's figures from JOB: T and T' of the run, S_G = T / T'. */
static void run_figures(const struct job *job, struct prediction *run)
{
	run->total_ns = (uint64_t)job->total_ns;
	if (!run->timeline)
		run->timeline = 1;
	run->timeline_total_ns = job->predicted_ns;
	run->queue_wait_ns = job->tl.queue_wait_ns;
	run->waited_calls = job->tl.waited_calls;
	predict_finish(run);
}

int jobs_predict(struct job **out, const char **why, struct prediction *procs, int n,
		 struct prediction *run)
{
	struct job *job;
	int rc;

	*out = NULL;
	if (n < 2)
		return 0;
	if ((*why = why_not(procs, n)))
		return 0;
	if (!(job = calloc(1, sizeof(*job))) || !(job->p = calloc((size_t)n, sizeof(*job->p)))) {
		free(job);
		input_error(NULL, 0, "out of memory");
		return -1;
	}
	job->n = n;
	job->tl.devices = run->devices;
	rc = build(job, procs, n, why);
	if (rc != 0) {
		jobs_free(job);
		return rc < 0 ? -1 : 0;
	}
	run_figures(job, run);
	*out = job;
	return 0;
}
