/* jobs_read.c - the waitpid and pipe dependencies between a run's processes (xdeps.h),
 * made of their process events (the trace's '#' lines, doc/jobs.md, read by
 * proc_events_read: proc_events.h). */
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "input.h"
#include "jobs.h"

/* The image of PID that a fork or spawn started (FIRST) or that a waitpid waited for (the
 * last that exec put in place): an index, -1 when the run has none. */
int jobs_image(const struct job *job, int64_t pid, int first)
{
	int best = -1;

	for (int i = 0; i < job->n; i++) {
		const struct job_proc *p = &job->p[i];
		if (p->pid != pid || (first && p->ev.exec_of))
			continue;
		if (best < 0 || (first ? p->offset_ns < job->p[best].offset_ns
				 : p->offset_ns > job->p[best].offset_ns))
			best = i;
	}
	return best;
}

/* A waitpid returns at the end of the child it returned (its main thread's). */
static int waitpid_deps(struct xdeps *x, const struct job *job)
{
	for (int a = 0; a < job->n; a++)
		for (size_t k = 0; k < job->p[a].ev.nev; k++) {
			const struct pev *e = &job->p[a].ev.ev[k];
			int b = e->kind == PEV_WAITPID ? jobs_image(job, e->pid, 0) : -1;
			if (b < 0 || b == a)
				continue;
			struct xdep d = { a, e->tid, e->call_ns, e->ret_ns, b, (uint64_t)job->p[b].pid,
					  XDEP_END, XDEP_LAG_MEASURED, XDEP_WAITPID };
			if (xdep_add(x, &d) != 0)
				return -1;
		}
	return 0;
}

/* A pipe event of the run, on the run's axis. */
struct pio {
	uint64_t pipe;
	int write;
	int64_t at;		/* its return, on the run's axis: the stream's order */
	int proc;
	const struct pev *e;
};

static int by_pipe(const void *a, const void *b)
{
	const struct pio *x = a, *y = b;

	if (x->pipe != y->pipe)
		return x->pipe < y->pipe ? -1 : 1;
	if (x->write != y->write)
		return x->write > y->write ? -1 : 1;	/* writes first */
	return x->at < y->at ? -1 : x->at > y->at;
}

/* The pipe events of the run, by pipe, writes then reads, by time (*N of them). */
static struct pio *list_pipes(const struct job *job, size_t *n)
{
	size_t room = 0;
	struct pio *io;

	for (int i = 0; i < job->n; i++)
		room += job->p[i].ev.nev;
	if (!(io = malloc((room + 1) * sizeof(*io))))
		return NULL;
	*n = 0;
	for (int i = 0; i < job->n; i++)
		for (size_t k = 0; k < job->p[i].ev.nev; k++) {
			const struct pev *e = &job->p[i].ev.ev[k];
			if (e->kind == PEV_PIPE_WRITE || e->kind == PEV_PIPE_READ)
				io[(*n)++] = (struct pio){ e->pipe, e->kind == PEV_PIPE_WRITE,
					e->ret_ns + job->p[i].offset_ns, i, e };
		}
	if (*n)
		qsort(io, *n, sizeof(*io), by_pipe);
	return io;
}

/* The reads of one pipe (R, NR of them) on its writes (W, NW): a read of bytes [B0, ...)
 * waits for the write of byte B0; one at the end of the file for the last write (the
 * close that followed is not seen: what came after it is the read's measured lag). */
static int pipe_deps(struct xdeps *x, const struct job *job, const struct pio *w, size_t nw,
		     const struct pio *r, size_t nr)
{
	uint64_t read = 0, written = 0;
	size_t k = 0;

	for (size_t i = 0; i < nr; i++) {
		const struct pev *e = r[i].e;
		struct xdep d = { r[i].proc, e->tid, e->call_ns, e->ret_ns, -1, 0, 0,
				  XDEP_LAG_MEASURED, XDEP_PIPE };
		while (k < nw && written + w[k].e->bytes <= read)
			written += w[k++].e->bytes;
		if (e->bytes && k < nw) {
			d.b_proc = w[k].proc;
			d.b_tid = w[k].e->tid;
			d.b_t = w[k].e->ret_ns;
		} else if (!e->bytes && nw) {	/* the end of the file: after the last write */
			d.b_proc = w[nw - 1].proc;
			d.b_tid = w[nw - 1].e->tid;
			d.b_t = w[nw - 1].e->ret_ns;
		}
		read += e->bytes;
		if (d.b_proc >= 0 && d.b_proc != d.a_proc && xdep_add(x, &d) != 0)
			return -1;
	}
	return 0;
}

int jobs_proc_xdeps(struct xdeps *x, const struct job *job)
{
	size_t n, i = 0;
	struct pio *io = list_pipes(job, &n);
	int rc = 0;

	if (!io || waitpid_deps(x, job) != 0) {
		free(io);
		input_error(NULL, 0, "out of memory");
		return -1;
	}
	while (i < n && rc == 0) {
		size_t w = i, r, e;
		for (r = w; r < n && io[r].pipe == io[w].pipe && io[r].write; r++)
			;
		for (e = r; e < n && io[e].pipe == io[w].pipe; e++)
			;
		rc = pipe_deps(x, job, &io[w], r - w, &io[r], e - r);
		i = e;
	}
	free(io);
	return rc;
}
