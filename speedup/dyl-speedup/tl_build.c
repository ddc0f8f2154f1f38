/* tl_build.c - from a trace to its timeline: thread 0 is the main thread (tid = pid,
 * from 0 to '# total_ns='), then one per '# thread' line, then any thread that made
 * replaced calls without one (a creator the wrapper did not see: it starts at its first
 * call, its end unknown).  The timeline's T' is on the trace's clock; T may differ from
 * total_ns by the start-up before it and tracing's cost taken out, and T' with it. */
#include <stdlib.h>
#include <string.h>
#include "input.h"
#include "tids.h"
#include "tl_build.h"

/* The thread index of TID in MAP, -1 if it has none. */
static int index_of(struct tids *map, uint64_t tid)
{
	int fresh;
	int *ix = tids_get(map, tid, sizeof(int), &fresh);

	if (!ix)
		return -2;
	if (fresh)
		*ix = -1;
	return *ix;
}

static int set_index(struct tids *map, uint64_t tid, int i)
{
	int fresh, *ix = tids_get(map, tid, sizeof(int), &fresh);

	if (!ix)
		return -1;
	*ix = i;
	return 0;
}

static uint64_t main_tid(const struct trace *tr)
{
	if (tr->pid >= 0)
		return (uint64_t)tr->pid;
	if (tr->ev.nthreads)
		return tr->ev.threads[0].parent;
	return tr->tids.n ? ((const struct thread *)tids_item(&tr->tids, 0))->tid : 0;
}

/* TL->th: the main thread, the recorded ones, the unrecorded ones with calls (RC). */
static int add_threads(struct timeline *tl, struct tids *map, const struct trace *tr,
		       struct tl_calls *rc)
{
	const struct thread_events *ev = &tr->ev;

	tl->th[0] = (struct tl_thread){ .tid = main_tid(tr), .creator = -1,
					.end_ns = (int64_t)tr->clock_total_ns };
	tl->n = 1;
	if (set_index(map, tl->th[0].tid, 0) != 0)
		return -1;
	for (size_t i = 0; i < ev->nthreads; i++) {
		const struct tev_thread *e = &ev->threads[i];
		int ix = index_of(map, e->tid);
		if (ix < -1 || (ix == -1 && set_index(map, e->tid, tl->n) != 0))
			return -1;
		if (ix >= 0)
			continue;	/* a tid met twice (reused): the first is kept */
		tl->th[tl->n++] = (struct tl_thread){ .tid = e->tid, .creator = -1,
			.create_ns = e->create_ns, .start_ns = e->start_ns,
			.end_ns = e->end_ns == TEV_NONE ? TL_UNKNOWN : e->end_ns };
	}
	for (size_t i = 0; i < ev->nthreads; i++) {
		int c = index_of(map, ev->threads[i].parent), me = index_of(map, ev->threads[i].tid);
		if (c < -1 || me < 0)
			return -1;
		if (me > 0 && tl->th[me].create_ns == ev->threads[i].create_ns && c != me)
			tl->th[me].creator = c;
	}
	for (size_t t = 0; t < tr->tids.n; t++) {
		const struct thread *th = tids_item(&tr->tids, t);
		int ix = index_of(map, th->tid);
		if (ix < -1)
			return -1;
		if (ix == -1 && rc[t].n) {
			if (set_index(map, th->tid, tl->n) != 0)
				return -1;
			tl->th[tl->n++] = (struct tl_thread){ .tid = th->tid, .creator = -1,
				.create_ns = rc[t].c[0].start, .start_ns = rc[t].c[0].start,
				.end_ns = TL_UNKNOWN };
		}
	}
	return 0;
}

/* Each thread's replaced calls, taken over from RC. */
static int add_calls(struct timeline *tl, struct tids *map, const struct trace *tr,
		     struct tl_calls *rc)
{
	for (size_t t = 0; t < tr->tids.n; t++) {
		int ix = index_of(map, ((const struct thread *)tids_item(&tr->tids, t))->tid);
		if (ix < -1)
			return -1;
		if (ix < 0 || !rc[t].n)
			continue;
		tl->th[ix].calls = rc[t].c;
		tl->th[ix].ncalls = rc[t].n;
		tl->th[ix].t_sum = rc[t].t_sum;
		tl->th[ix].f_sum = rc[t].f_sum;
		memset(&rc[t], 0, sizeof(rc[t]));
	}
	return 0;
}

static int by_call(const void *a, const void *b)
{
	const struct tl_join *x = a, *y = b;

	return x->call_ns < y->call_ns ? -1 : x->call_ns > y->call_ns;
}

/* Each thread's joins, by time; a join by a thread the trace does not know is left out. */
static int add_joins(struct timeline *tl, struct tids *map, const struct thread_events *ev)
{
	for (size_t i = 0; i < ev->njoins; i++) {
		int ix = index_of(map, ev->joins[i].tid);
		if (ix < -1)
			return -1;
		if (ix >= 0)
			tl->th[ix].njoins++;
	}
	for (int i = 0; i < tl->n; i++) {
		if (tl->th[i].njoins &&
		    !(tl->th[i].joins = calloc(tl->th[i].njoins, sizeof(struct tl_join))))
			return -1;
		tl->th[i].njoins = 0;
	}
	for (size_t i = 0; i < ev->njoins; i++) {
		const struct tev_join *j = &ev->joins[i];
		int ix = index_of(map, j->tid), g = index_of(map, j->target);
		if (ix < 0)
			continue;
		tl->th[ix].joins[tl->th[ix].njoins++] = (struct tl_join){ .call_ns = j->call_ns,
			.ret_ns = j->ret_ns, .target = g >= 0 ? g : -1 };
	}
	for (int i = 0; i < tl->n; i++)
		if (tl->th[i].njoins)	/* (no joins: a NULL array, which qsort may not take) */
			qsort(tl->th[i].joins, tl->th[i].njoins, sizeof(struct tl_join), by_call);
	return 0;
}

/* Appends J to thread T's joins.  0 or -1. */
static int push_join(struct tl_thread *t, struct tl_join j)
{
	struct tl_join *g = realloc(t->joins, (t->njoins + 1) * sizeof(*g));

	if (!g)
		return -1;
	t->joins = g;
	t->joins[t->njoins++] = j;
	return 0;
}

/* The last of thread T's calls that start in [A, B]: its index + 1, 0 if none. */
static size_t last_call_in(const struct tl_thread *t, int64_t a, int64_t b)
{
	size_t k = 0;

	for (size_t i = 0; i < t->ncalls && t->calls[i].start <= b; i++)
		if (t->calls[i].start >= a)
			k = i + 1;
	return k;
}

/* An OpenMP region of thread P from A to B ends with a barrier: P goes on when every
 * thread's work in the region is done.  Joins on P: the first from P's own last call in
 * the region (its arrival at the barrier) to B, on the thread whose work there ended last;
 * then one of no time at B on each other thread with work there. */
static int add_region(struct timeline *tl, int p, int64_t a, int64_t b)
{
	struct tl_thread *t = &tl->th[p];
	size_t own = last_call_in(t, a, b);
	int64_t arrive = own ? t->calls[own - 1].start + t->calls[own - 1].t : a, latest = -1;
	int last = -1;

	for (int i = 0; i < tl->n; i++) {
		const struct tl_thread *g = &tl->th[i];
		size_t k = i == p ? 0 : last_call_in(g, a, b);
		int64_t e = k ? g->calls[k - 1].start + g->calls[k - 1].t : -1;
		if (k && e > latest)
			latest = e, last = i;
		/* P's arrival is after the team threads it started, too */
		if (g->creator == p && g->create_ns >= a && g->create_ns <= b && g->create_ns > arrive)
			arrive = g->create_ns;
	}
	for (int i = 0; last >= 0 && i < tl->n; i++) {
		size_t k = i == p ? 0 : last_call_in(&tl->th[i], a, b);
		int first = i == last;
		if (k && push_join(t, (struct tl_join){ .call_ns = first ? (arrive < b ? arrive : b) : b,
							.ret_ns = b, .target = i, .upto = k }) != 0)
			return -1;
	}
	return 0;
}

static int add_regions(struct timeline *tl, struct tids *map, const struct thread_events *ev)
{
	for (size_t r = 0; r < ev->nregions; r++) {
		int p = index_of(map, ev->regions[r].tid);
		if (p < -1 || (p >= 0 && add_region(tl, p, ev->regions[r].call_ns, ev->regions[r].ret_ns)))
			return -1;
	}
	for (int i = 0; i < tl->n; i++)
		if (tl->th[i].njoins)	/* (no joins: a NULL array, which qsort may not take) */
			qsort(tl->th[i].joins, tl->th[i].njoins, sizeof(struct tl_join), by_call);
	return 0;
}

/* Wake-ups by object, then time: the '# wake' lines, and the barrier waits' arrivals. */
struct wk {
	uint64_t obj, tid;
	int64_t at;
	int th;		/* the waker's index (-1: not on the timeline) */
	size_t point;	/* its place in the waker's wakes + 1; 0: ends no wait */
};

static int by_obj_at(const void *a, const void *b)
{
	const struct wk *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

static int by_thread_at(const void *a, const void *b)
{
	const struct wk *x = *(struct wk *const *)a, *y = *(struct wk *const *)b;

	if (x->th != y->th)
		return x->th < y->th ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* The wake-up that ended wait W: the last of its object's, by another thread, from its call
 * to its return (a signal before the wait began woke nobody; after it returned, nothing
 * of it).  An index into WK (N of them, by_obj_at), or -1. */
static long waker(const struct wk *wk, size_t n, const struct tev_wait *w)
{
	size_t lo = 0, hi = n;	/* the first after (obj, ret_ns) */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (wk[mid].obj < w->obj || (wk[mid].obj == w->obj && wk[mid].at <= w->ret_ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && wk[lo].obj == w->obj && wk[lo].at >= w->call_ns)
		if (wk[lo].tid != w->tid)
			return (long)lo;
	return -1;
}

/* The wake-ups of EV and the calls of its barrier waits into WK, by object and time, each
 * with its thread's index in MAP (-1: not in the timeline).  Their number, or -1 out of
 * memory. */
static long list_wakes(struct wk *wk, struct tids *map, const struct thread_events *ev)
{
	size_t n = 0;

	for (size_t i = 0; i < ev->nwakes; i++)
		wk[n++] = (struct wk){ ev->wakes[i].obj, ev->wakes[i].tid, ev->wakes[i].at_ns, -1, 0 };
	for (size_t i = 0; i < ev->nwaits; i++)
		if (ev->waits[i].barrier)
			wk[n++] = (struct wk){ ev->waits[i].obj, ev->waits[i].tid, ev->waits[i].call_ns,
					       -1, 0 };
	if (n)
		qsort(wk, n, sizeof(*wk), by_obj_at);
	for (size_t i = 0; i < n; i++)
		if ((wk[i].th = index_of(map, wk[i].tid)) < -1)
			return -1;
	return (long)n;
}

/* Which of the N wake-ups WK ends each wait of EV (OF: an index into WK, or -1); those
 * used become points of their thread's timeline, by time (each one's point: its index + 1
 * there).  USED: room for one per wait.  0, or -1 out of memory. */
static int place_wakes(struct timeline *tl, struct wk *wk, size_t n,
		       const struct thread_events *ev, long *of, struct wk **used)
{
	size_t nused = 0;

	for (size_t i = 0; i < ev->nwaits; i++) {
		of[i] = waker(wk, n, &ev->waits[i]);
		if (of[i] >= 0 && wk[of[i]].th >= 0 && !wk[of[i]].point) {
			wk[of[i]].point = 1;
			used[nused++] = &wk[of[i]];
		}
	}
	if (nused)
		qsort(used, nused, sizeof(*used), by_thread_at);
	for (size_t i = 0; i < nused; i++)
		tl->th[used[i]->th].nwakes++;
	for (int i = 0; i < tl->n; i++) {
		if (tl->th[i].nwakes &&
		    !(tl->th[i].wakes = calloc(tl->th[i].nwakes, sizeof(struct tl_wake))))
			return -1;
		tl->th[i].nwakes = 0;
	}
	for (size_t i = 0; i < nused; i++) {
		struct tl_thread *g = &tl->th[used[i]->th];
		g->wakes[g->nwakes++] = (struct tl_wake){ used[i]->at, 0 };
		used[i]->point = g->nwakes;
	}
	return 0;
}

/* Each wait of EV as a join of its thread, after the joins it has (add_regions sorts them
 * all), ended by the wake-up OF gives it in WK, if any.  WHO (one per wait) and MORE (one
 * per thread, zeroed): room.  0, or -1 out of memory. */
static int add_wait_joins(struct timeline *tl, struct tids *map, const struct thread_events *ev,
			  const struct wk *wk, const long *of, int *who, size_t *more)
{
	for (size_t i = 0; i < ev->nwaits; i++) {
		if ((who[i] = index_of(map, ev->waits[i].tid)) < -1)
			return -1;
		if (who[i] >= 0)
			more[who[i]]++;
	}
	for (int i = 0; i < tl->n; i++) {
		struct tl_join *j;
		if (!more[i])
			continue;
		if (!(j = realloc(tl->th[i].joins, (tl->th[i].njoins + more[i]) * sizeof(*j))))
			return -1;
		tl->th[i].joins = j;
	}
	tl->waits = ev->nwaits;
	for (size_t i = 0; i < ev->nwaits; i++) {
		const struct tev_wait *w = &ev->waits[i];
		const struct wk *k = of[i] >= 0 && wk[of[i]].th >= 0 ? &wk[of[i]] : NULL;
		if (who[i] < 0)
			continue;
		struct tl_thread *t = &tl->th[who[i]];
		tl->waits_followed += k != NULL;
		t->joins[t->njoins++] = (struct tl_join){ .call_ns = w->call_ns, .ret_ns = w->ret_ns,
			.target = k ? k->th : -1, .wake = k ? k->point : 0 };
	}
	return 0;
}

/* Each thread's waits, as joins ended by a wake-up, and the wake-ups that end them.  A
 * wait whose wake-up is not found, or by a thread the timeline does not have, keeps its
 * measured time. */
static int add_waits(struct timeline *tl, struct tids *map, const struct thread_events *ev)
{
	size_t nb = 0;
	struct wk *wk, **used = NULL;
	long *of = NULL, n;
	int *who = NULL;
	size_t *more = NULL;
	int rc = -1;

	for (size_t i = 0; i < ev->nwaits; i++)
		nb += ev->waits[i].barrier;
	if (!(wk = malloc((ev->nwakes + nb + 1) * sizeof(*wk))) ||
	    !(of = malloc((ev->nwaits + 1) * sizeof(*of))) ||
	    !(used = malloc((ev->nwaits + 1) * sizeof(*used))) ||
	    !(who = malloc((ev->nwaits + 1) * sizeof(*who))) ||
	    !(more = calloc((size_t)tl->n + 1, sizeof(*more))))
		goto out;
	if ((n = list_wakes(wk, map, ev)) >= 0 &&
	    place_wakes(tl, wk, (size_t)n, ev, of, used) == 0 &&
	    add_wait_joins(tl, map, ev, wk, of, who, more) == 0)
		rc = 0;
out:
	free(wk);
	free(of);
	free(used);
	free(who);
	free(more);
	return rc;
}

/* Why TR's process keeps Amdahl's answer; NULL when its timeline can be built. */
static const char *why_not(const struct trace *tr)
{
	if (!tr->ev.recorded)
		return "the trace has no '# threads=recorded' line (an older trace, or a wrapper "
		       "without thread events): its threads' calls are added up as if they ran "
		       "one after another (Amdahl)";
	if (tr->t_cpu != 0)
		return "T is CPU time, and a timeline needs the wall clock: Amdahl's answer";
	return NULL;
}

/* P's results from the run timeline TL. */
static void take_results(struct prediction *p, struct timeline *tl)
{
	p->timeline = 1;
	/* T less the trace's total_ns: the start-up before it, less tracing's cost taken out */
	p->timeline_total_ns = tl->end_ns + ((double)p->total_ns - (double)p->tl_clock_total_ns);
	p->queue_wait_ns = tl->queue_wait_ns;
	p->waited_calls = tl->waited_calls;
	/* the threads' lives (report_threads.c's measured column), summed */
	p->threads_ns = (double)p->total_ns;
	for (int i = 1; i < tl->n; i++) {
		const struct tl_thread *t = &tl->th[i];
		if (t->state != TL_ABSORBED)
			p->threads_ns += (double)((t->end_ns != TL_UNKNOWN ? t->end_ns
						   : (int64_t)p->tl_clock_total_ns) - t->start_ns);
	}
}

int tl_predict(struct prediction *p, const struct trace *tr, struct tl_calls *rc, int devices)
{
	struct tids map = { 0 };
	struct timeline *tl;
	size_t room = 1 + tr->ev.nthreads + tr->tids.n;

	p->devices = devices;
	if ((p->no_timeline = why_not(tr)))
		return 0;
	p->tl_clock_total_ns = tr->clock_total_ns;
	if (!(tl = p->tl = calloc(1, sizeof(*tl))) || !(tl->th = calloc(room, sizeof(*tl->th))))
		goto oom;
	tl->devices = devices;
	tl->setup_ns = p->setup_ns;
	if (add_threads(tl, &map, tr, rc) != 0 || add_calls(tl, &map, tr, rc) != 0 ||
	    add_joins(tl, &map, &tr->ev) != 0 || add_waits(tl, &map, &tr->ev) != 0 ||
	    add_regions(tl, &map, &tr->ev) != 0 ||
	    timeline_run(tl) != 0)
		goto oom;
	take_results(p, tl);
	tids_free(&map);
	return 0;
oom:
	tids_free(&map);
	input_error(tr->path, 0, "out of memory");
	return -1;
}

void tl_release(struct timeline *tl)
{
	if (!tl)
		return;
	for (int i = 0; tl->th && i < tl->n; i++) {
		free((void *)tl->th[i].calls);
		free(tl->th[i].joins);
		free(tl->th[i].wakes);
	}
	timeline_free(tl);
	free(tl->th);
	free(tl);
}
