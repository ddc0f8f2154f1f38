/* jobs_read.c - the process events of a trace's '#' lines (doc/jobs.md), and the
 * waitpid and pipe dependencies between a run's processes (xdeps.h) made of them.
 *
 * The reader is dyl-speedup's own until the runtime's proc_events_read (proc_events.h)
 * is there; it fills the same struct proc_events.  Fields are KEY=VALUE separated by
 * blanks; unknown keys are ignored. */
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "input.h"
#include "jobs.h"

/* The value of KEY in the note (TEXT, LEN): 0 (*OUT), 1 absent, -1 not a number. */
static int field(const char *text, size_t len, const char *key, int64_t *out)
{
	size_t n = strlen(key);
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *w = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		if ((size_t)(p - w) > n && memcmp(w, key, n) == 0 && w[n] == '=') {
			int64_t v = 0;
			const char *d = w + n + 1;
			if (d == p || p - d > 18)
				return -1;
			for (; d < p; d++) {
				if (*d < '0' || *d > '9')
					return -1;
				v = v * 10 + (*d - '0');
			}
			*out = v;
			return 0;
		}
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
	}
	return 1;
}

static const struct {
	const char *word;
	enum pev_kind kind;
	unsigned keys;		/* bits: 1 ret_ns, 2 child, 4 pid, 8 pipe and bytes */
} kinds[] = {
	{ "fork", PEV_FORK, 2 }, { "spawn", PEV_SPAWN, 2 }, { "exec", PEV_EXEC, 0 },
	{ "waitpid", PEV_WAITPID, 1 | 4 }, { "pipe_write", PEV_PIPE_WRITE, 1 | 8 },
	{ "pipe_read", PEV_PIPE_READ, 1 | 8 },
};

/* The word W of NT: its length if the note starts with it, else 0. */
static size_t word_is(const struct trace_note *nt, const char *w)
{
	size_t n = strlen(w);

	return nt->len >= n && memcmp(nt->text, w, n) == 0 &&
	       (nt->len == n || nt->text[n] == ' ' || nt->text[n] == '\t') ? n : 0;
}

/* One event note of kind K into E.  0, or -1 after a message. */
static int read_event(struct pev *e, int k, const struct trace_note *nt, const char *path)
{
	static const char *const keys[] = { "tid", "call_ns", "ret_ns", "child", "pid", "pipe",
					    "bytes" };
	unsigned need = 3 | (kinds[k].keys & 1) << 2 | (kinds[k].keys & 2) << 2 |
			(kinds[k].keys & 4) << 2 | (kinds[k].keys & 8) << 2 | (kinds[k].keys & 8) << 3;
	int64_t v[7] = { 0 };

	for (int i = 0; i < 7; i++) {
		int rc = field(nt->text, nt->len, keys[i], &v[i]);
		if (rc < 0 || (rc == 1 && (need >> i & 1))) {
			input_error(path, 0, "'# %.*s': %s %s", (int)(nt->len < 200 ? nt->len : 200),
				    nt->text, keys[i], rc < 0 ? "is not a non-negative integer"
				    : "is missing");
			return -1;
		}
	}
	if (!(kinds[k].keys & 1))
		v[2] = v[1];
	if (v[2] < v[1]) {
		input_error(path, 0, "'# %.*s': ret_ns is before call_ns",
			    (int)(nt->len < 200 ? nt->len : 200), nt->text);
		return -1;
	}
	*e = (struct pev){ .kind = kinds[k].kind, .tid = (uint64_t)v[0], .call_ns = v[1],
			   .ret_ns = v[2], .pid = kinds[k].keys & 2 ? v[3] : v[4],
			   .pipe = (uint64_t)v[5], .bytes = (uint64_t)v[6] };
	return 0;
}

/* A header note (procs=recorded, ppid=, exec_of=) into EV: 1 if it was one. */
static int header_note(struct proc_events *ev, const struct trace_note *nt)
{
	int64_t v;

	if (word_is(nt, "procs=recorded")) {
		ev->recorded = 1;
		return 1;
	}
	if (nt->len > 5 && memcmp(nt->text, "ppid=", 5) == 0 &&
	    field(nt->text, nt->len, "ppid", &v) == 0) {
		ev->ppid = v;
		return 1;
	}
	if (nt->len > 8 && memcmp(nt->text, "exec_of=", 8) == 0 &&
	    field(nt->text, nt->len, "exec_of", &v) == 0) {
		ev->exec_of = v != 0;
		return 1;
	}
	return 0;
}

int jobs_read_events(struct proc_events *ev, const struct trace_src *src, const char *path)
{
	memset(ev, 0, sizeof(*ev));
	ev->ppid = -1;
	for (size_t i = 0; i < src->nnotes; i++) {
		const struct trace_note *nt = &src->notes[i];
		if (header_note(ev, nt))
			continue;
		for (int k = 0; k < (int)(sizeof(kinds) / sizeof(kinds[0])); k++) {
			if (!word_is(nt, kinds[k].word))
				continue;
			if (grow_to(&ev->ev, sizeof(*ev->ev), ev->nev + 1, &ev->ev_room, 16) != 0) {
				input_error(path, 0, "out of memory");
				return -1;
			}
			if (read_event(&ev->ev[ev->nev], k, nt, path) != 0)
				return -1;
			ev->nev++;
			break;
		}
	}
	return 0;
}

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
