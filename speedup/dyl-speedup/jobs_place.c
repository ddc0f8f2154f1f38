/* jobs_place.c - the run's timeline made of its processes' timelines: their threads
 * copied onto the run's axis, each process started by the thread that forked, spawned or
 * exec'd it, and the processes' dependencies (xdeps.h) as joins. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jobs_place.h"

/* A copy of the N items of SRC (SIZE each); NULL when N is 0 or out of memory (*OOM). */
static void *dup_n(const void *src, size_t n, size_t size, int *oom)
{
	void *d;

	if (!n)
		return NULL;
	if (!(d = malloc(n * size)))
		*oom = 1;
	else
		memcpy(d, src, n * size);
	return d;
}

/* Thread S of a process at offset O whose threads begin at BASE, into T. */
static int copy_thread(struct tl_thread *t, const struct tl_thread *s, int64_t o, int base)
{
	int oom = 0;

	*t = (struct tl_thread){ .tid = s->tid, .creator = s->creator >= 0 ? s->creator + base : -1,
		.create_ns = s->create_ns + o, .start_ns = s->start_ns + o,
		.end_ns = s->end_ns == TL_UNKNOWN ? TL_UNKNOWN : s->end_ns + o,
		.ncalls = s->ncalls, .njoins = s->njoins, .nwakes = s->nwakes,
		.t_sum = s->t_sum, .f_sum = s->f_sum };
	struct tl_call *c = dup_n(s->calls, s->ncalls, sizeof(*c), &oom);
	t->joins = dup_n(s->joins, s->njoins, sizeof(*t->joins), &oom);
	t->wakes = dup_n(s->wakes, s->nwakes, sizeof(*t->wakes), &oom);
	t->calls = c;
	if (oom)
		return -1;
	for (size_t i = 0; i < s->ncalls; i++)
		c[i].start += o;
	for (size_t i = 0; i < s->njoins; i++) {
		struct tl_join *j = &t->joins[i];
		*j = (struct tl_join){ .call_ns = j->call_ns + o, .ret_ns = j->ret_ns + o,
			.target = j->target >= 0 ? j->target + base : -1, .upto = j->upto,
			.wake = j->wake };
	}
	for (size_t i = 0; i < s->nwakes; i++)
		t->wakes[i] = (struct tl_wake){ s->wakes[i].at + o, 0 };
	return 0;
}

/* Process I's threads into JOB->tl: its timeline's, or (predicted without one) one thread
 * that lasts its predicted T'. */
static int copy_process(struct job *job, int i, const struct prediction *p)
{
	struct job_proc *jp = &job->p[i];
	const struct timeline *src = p->timeline ? p->tl : NULL;
	int64_t o = jp->offset_ns;

	jp->base = job->tl.n;
	jp->has_timeline = src != NULL;
	if (!src) {
		int64_t T = (int64_t)llround(p->predicted_total_ns > 0 ? p->predicted_total_ns : 0);
		job->tl.th[job->tl.n++] = (struct tl_thread){ .tid = (uint64_t)jp->pid,
			.creator = -1, .create_ns = o, .start_ns = o, .end_ns = o + T };
		jp->nth = 1;
		jp->end_ns = o + (int64_t)p->total_ns;
		return 0;
	}
	for (int t = 0; t < src->n; t++)
		if (copy_thread(&job->tl.th[job->tl.n++], &src->th[t], o, jp->base) != 0)
			return -1;
	jp->nth = src->n;
	jp->end_ns = o + (int64_t)p->tl_clock_total_ns;
	return 0;
}

/* The index of thread TID of process P in the run's timeline, -1 if it has none. */
static int thread_of(const struct job *job, int p, uint64_t tid)
{
	const struct job_proc *jp = &job->p[p];

	for (int t = jp->base; t < jp->base + jp->nth; t++)
		if (job->tl.th[t].tid == tid)
			return t;
	return -1;
}

/* The event of kind K (or K2) of process P naming ARG (child; -1 any), the latest one
 * at most AT on the run's axis; NULL if none. */
static const struct pev *event_of(const struct job *job, int p, enum pev_kind k,
				  enum pev_kind k2, int64_t arg, int64_t at)
{
	const struct pev *best = NULL;

	for (size_t i = 0; i < job->p[p].ev.nev; i++) {
		const struct pev *e = &job->p[p].ev.ev[i];
		if ((e->kind == k || e->kind == k2) && (arg < 0 || e->pid == arg) &&
		    e->call_ns + job->p[p].offset_ns <= at)
			best = e;
	}
	return best;
}

/* The image of PID alive when process C started: the latest to start before it. */
static int image_at(const struct job *job, int64_t pid, int c)
{
	int best = -1;

	for (int i = 0; i < job->n; i++)
		if (i != c && job->p[i].pid == pid && job->p[i].offset_ns <= job->p[c].offset_ns &&
		    (best < 0 || job->p[i].offset_ns >= job->p[best].offset_ns))
			best = i;
	return best;
}

/* Process C's main thread as a kid of the thread that started it: the one that forked
 * or spawned it (exec'd it: an image after exec), or the parent's main thread at C's
 * start when the parent did not say (it was running then). */
static void link_process(struct job *job, int c)
{
	struct job_proc *jp = &job->p[c];
	struct tl_thread *m = &job->tl.th[jp->base];
	int par = jp->exec_of ? image_at(job, jp->pid, c)
		  : jp->ppid >= 0 ? image_at(job, jp->ppid, c) : -1;
	const struct pev *e;
	int th;

	if (par < 0)
		return;
	e = jp->exec_of ? event_of(job, par, PEV_EXEC, PEV_EXEC, -1, jp->offset_ns)
	    : event_of(job, par, PEV_FORK, PEV_SPAWN, jp->pid, jp->offset_ns);
	if (e && (th = thread_of(job, par, e->tid)) >= 0) {
		m->creator = th;
		m->create_ns = e->call_ns + job->p[par].offset_ns;
	} else if (!jp->exec_of && job->p[par].end_ns >= jp->offset_ns) {
		m->creator = job->p[par].base;
		m->create_ns = jp->offset_ns;
	} else {
		return;
	}
	jp->parent = par;
}

/* A dependency on the run's timeline: thread A's interval [CALL, RET] on thread B's end
 * (POINT 0) or on its wake-up point AT (POINT: its place there, once placed). */
struct xj {
	int a, b;
	int64_t call, ret, at;
	int has_lag;
	double lag;
	size_t point;
	int end;
};

/* Dependency D on JOB's timeline into *J; 0 when it cannot be placed. */
static int to_xj(const struct job *job, const struct xdep *d, struct xj *j)
{
	if (d->a_proc < 0 || d->a_proc >= job->n || d->b_proc < 0 || d->b_proc >= job->n)
		return 0;
	int64_t oa = job->p[d->a_proc].offset_ns, ob = job->p[d->b_proc].offset_ns;
	*j = (struct xj){ thread_of(job, d->a_proc, d->a_tid), thread_of(job, d->b_proc, d->b_tid),
			  d->a_call + oa, d->a_ret + oa, d->b_t == XDEP_END ? 0 : d->b_t + ob,
			  d->lag_ns != XDEP_LAG_MEASURED, (double)d->lag_ns, 0, d->b_t == XDEP_END };
	if (j->a < 0 || j->b < 0 || j->a == j->b || j->ret < j->call)
		return 0;
	if (!j->has_lag && !j->end) {	/* measured: what the return took after the point */
		int64_t from = j->call > j->at ? j->call : j->at;
		j->has_lag = 1;
		j->lag = j->ret > from ? (double)(j->ret - from) : 0;
	}
	return 1;
}

static int by_b(const void *x, const void *y)
{
	const struct xj *a = x, *b = y;

	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

static int by_a(const void *x, const void *y)
{
	const struct xj *a = x, *b = y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (a->call != b->call)
		return a->call < b->call ? -1 : 1;
	return a->ret < b->ret ? -1 : a->ret > b->ret;
}

struct wtag {
	int64_t at;
	size_t orig;
};

static int by_at(const void *x, const void *y)
{
	const struct wtag *a = x, *b = y;

	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	return a->orig < b->orig ? -1 : a->orig > b->orig;
}

/* Thread T (index TI) gets the wake-up points of the N instants J: its wakes sorted again
 * (the old ones first at a time), the joins of its process (threads FROM..TO) that
 * name its old points renumbered, each J's POINT set.  0 or -1. */
static int add_points(struct timeline *tl, int ti, struct xj *j, size_t n, int from, int to)
{
	struct tl_thread *t = &tl->th[ti];
	size_t n0 = t->nwakes, all = n0 + n;
	struct wtag *w = malloc(all * sizeof(*w));
	size_t *pos = malloc(all * sizeof(*pos));
	struct tl_wake *nw = realloc(t->wakes, all * sizeof(*nw));

	if (!w || !pos || !nw) {
		free(w);
		free(pos);
		return -1;
	}
	t->wakes = nw;
	for (size_t i = 0; i < all; i++)
		w[i] = (struct wtag){ i < n0 ? nw[i].at : j[i - n0].at, i };
	qsort(w, all, sizeof(*w), by_at);
	for (size_t i = 0; i < all; i++) {
		pos[w[i].orig] = i + 1;
		nw[i] = (struct tl_wake){ w[i].at, 0 };
	}
	for (int k = from; k < to; k++)
		for (size_t q = 0; q < tl->th[k].njoins; q++) {
			struct tl_join *g = &tl->th[k].joins[q];
			if (g->target == ti && g->wake > 0 && !g->xdep)
				g->wake = pos[g->wake - 1];
		}
	for (size_t i = 0; i < n; i++)
		j[i].point = pos[n0 + i];
	t->nwakes = all;
	free(w);
	free(pos);
	return 0;
}

/* The process whose threads hold thread index TI. */
static const struct job_proc *proc_of(const struct job *job, int ti)
{
	for (int i = 0; i < job->n; i++)
		if (ti >= job->p[i].base && ti < job->p[i].base + job->p[i].nth)
			return &job->p[i];
	return NULL;
}

/* Thread T's joins with the N dependencies J (by call, ret) merged in, by call (the old
 * first at a time); those on one interval side by side, the first saying how many more. */
static int add_joins(struct tl_thread *t, const struct xj *j, size_t n)
{
	size_t n0 = t->njoins, a = 0, b = 0, k = 0;
	struct tl_join *out = malloc((n0 + n) * sizeof(*out));

	if (!out)
		return -1;
	while (a < n0 || b < n) {
		if (b == n || (a < n0 && t->joins[a].call_ns <= j[b].call)) {
			out[k++] = t->joins[a++];
			continue;
		}
		size_t first = k, e = b;
		while (e < n && j[e].call == j[b].call && j[e].ret == j[b].ret)
			e++;
		for (; b < e; b++)
			out[k++] = (struct tl_join){ .call_ns = j[b].call, .ret_ns = j[b].ret,
				.target = j[b].b, .wake = j[b].end ? 0 : j[b].point, .xdep = 1,
				.has_lag = j[b].has_lag, .lag = j[b].lag };
		out[first].more = k - first - 1;
	}
	free(t->joins);
	t->joins = out;
	t->njoins = k;
	return 0;
}

/* The run's dependencies as joins: wake-up points first (they renumber), then joins. */
static int add_xdeps(struct job *job)
{
	struct xj *j = malloc((job->x.n + 1) * sizeof(*j));
	size_t n = 0, i, e;
	int rc = 0;

	if (!j)
		return -1;
	for (i = 0; i < job->x.n; i++)
		n += to_xj(job, &job->x.d[i], &j[n]);
	job->x.dropped = job->x.n - n;
	qsort(j, n, sizeof(*j), by_b);
	for (i = 0; i < n && rc == 0; i = e) {
		size_t s = i;
		for (e = i; e < n && j[e].b == j[i].b; e++)
			;
		while (s < e && j[s].end)	/* (ends sort first: at 0) */
			s++;
		const struct job_proc *p = proc_of(job, j[i].b);
		if (s < e)
			rc = add_points(&job->tl, j[i].b, &j[s], e - s, p->base, p->base + p->nth);
	}
	qsort(j, n, sizeof(*j), by_a);
	for (i = 0; i < n && rc == 0; i = e) {
		for (e = i; e < n && j[e].a == j[i].a; e++)
			;
		rc = add_joins(&job->tl.th[j[i].a], &j[i], e - i);
	}
	free(j);
	return rc;
}

int jobs_place(struct job *job, const struct prediction *procs)
{
	int room = 0;

	for (int i = 0; i < job->n; i++)
		room += procs[i].timeline && procs[i].tl ? procs[i].tl->n : 1;
	if (!(job->tl.th = calloc((size_t)room + 1, sizeof(*job->tl.th))))
		return -1;
	for (int k = 0; k < job->n; k++) {
		int i = job->order[k];
		job->p[i].parent = -1;
		if (copy_process(job, i, &procs[i]) != 0)
			return -1;
		if (procs[i].setup_ns > job->tl.setup_ns)
			job->tl.setup_ns = procs[i].setup_ns;
	}
	for (int i = 0; i < job->n; i++)
		link_process(job, i);
	return add_xdeps(job);
}

/* Process P's predicted end: its last thread's (a thread still running at exit: its last
 * call's end), as timeline.c's process_end. */
static double proc_end(const struct timeline *tl, const struct job_proc *p)
{
	double end = tl->th[p->base].pend;

	for (int i = p->base + 1; i < p->base + p->nth; i++) {
		const struct tl_thread *t = &tl->th[i];
		double e = isfinite(t->pend) ? t->pend : t->plast;
		if (t->state == TL_DONE && isfinite(e) && !(e <= end))
			end = e;
	}
	return end;
}

/* What the interval of the group of joins G took, predicted (the latest of them). */
static double group_wait(const struct tl_join *g)
{
	double w = 0;

	for (size_t m = 0; m <= g->more; m++)
		if (g[m].pred_ret - g[m].pred_call > w)
			w = g[m].pred_ret - g[m].pred_call;
	return w;
}

void jobs_results(struct job *job)
{
	const struct timeline *tl = &job->tl;

	job->total_ns = 0;
	job->predicted_ns = 0;
	for (int i = 0; i < job->n; i++) {
		struct job_proc *p = &job->p[i];
		p->pstart = tl->th[p->base].pstart;
		p->pend = proc_end(tl, p);
		for (int t = p->base; t < p->base + p->nth; t++)
			for (size_t q = 0; q < tl->th[t].njoins; q += 1 + tl->th[t].joins[q].more) {
				const struct tl_join *g = &tl->th[t].joins[q];
				if (!g->xdep)
					continue;
				p->deps++;
				p->waited_ns += (double)(g->ret_ns - g->call_ns);
				p->pwaited_ns += group_wait(g);
			}
		if (p->end_ns > job->total_ns)
			job->total_ns = p->end_ns;
		if (p->pend > job->predicted_ns)
			job->predicted_ns = p->pend;
	}
	for (size_t i = 0; i < job->x.n; i++)
		job->by_kind[job->x.d[i].kind < XDEP_KINDS ? job->x.d[i].kind : XDEP_OTHER]++;
}
