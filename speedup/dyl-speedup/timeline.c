/* timeline.c - the threads' timelines walked together, event by event, in the order of
 * their predicted times (a discrete-event simulation; timeline.h says what it models).
 *
 * Each running thread's next event is the first, in its measured time, of: a thread it
 * creates, a join or a wait, a wake-up that ends another thread's wait, a replaced call,
 * its end.  Its predicted time is the measured one plus
 * the thread's offset d (what the replaced calls and waits before it added or took).  The
 * event with the earliest predicted time goes first; a join whose target has not ended
 * waits, and so does a wait whose wake-up has not come.  Taken in that order, the replaced calls reach the devices in the order of their
 * predicted arrival, which is what a first-come first-served queue needs.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "timeline.h"

enum ev { EV_KID, EV_JOIN, EV_WAKE, EV_CALL, EV_END, EV_NONE };

static int by_creator(const void *a, const void *b, void *arg)
{
	const struct tl_thread *th = arg;
	const struct tl_thread *x = &th[*(const int *)a], *y = &th[*(const int *)b];

	if (x->creator != y->creator)
		return x->creator < y->creator ? -1 : 1;
	if (x->create_ns != y->create_ns)
		return x->create_ns < y->create_ns ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

/* KIDS: the threads of a known creator, by creator then creation; KID0[i]: thread i's. */
static int build_kids(struct timeline *tl)
{
	int nk = 0;

	tl->kids = malloc(((size_t)tl->n + 1) * sizeof(*tl->kids));
	tl->kid0 = calloc((size_t)tl->n + 2, sizeof(*tl->kid0));
	if (!tl->kids || !tl->kid0)
		return -1;
	for (int i = 1; i < tl->n; i++)
		if (tl->th[i].creator >= 0 && tl->th[i].creator < tl->n)
			tl->kids[nk++] = i;
	qsort_r(tl->kids, (size_t)nk, sizeof(*tl->kids), by_creator, tl->th);
	for (int i = 0, k = 0; i <= tl->n; i++) {
		while (k < nk && tl->th[tl->kids[k]].creator < i)
			k++;
		tl->kid0[i] = k;
	}
	tl->kid0[tl->n + 1] = nk;
	return 0;
}

/* Thread I's next event and its measured time *M. */
static enum ev next_event(const struct timeline *tl, int i, int64_t *m)
{
	const struct tl_thread *t = &tl->th[i];
	enum ev e = EV_NONE;

	*m = INT64_MAX;
	if (tl->kid0[i] + (int)t->ki < tl->kid0[i + 1]) {
		*m = tl->th[tl->kids[tl->kid0[i] + (int)t->ki]].create_ns;
		e = EV_KID;
	}
	if (t->ji < t->njoins && t->joins[t->ji].call_ns < *m) {
		*m = t->joins[t->ji].call_ns;
		e = EV_JOIN;
	}
	if (t->wi < t->nwakes && t->wakes[t->wi].at < *m) {
		*m = t->wakes[t->wi].at;
		e = EV_WAKE;
	}
	if (t->ci < t->ncalls && t->calls[t->ci].start < *m) {
		*m = t->calls[t->ci].start;
		e = EV_CALL;
	}
	if (e == EV_NONE || (t->end_ns != TL_UNKNOWN && t->end_ns < *m)) {
		*m = t->end_ns != TL_UNKNOWN ? t->end_ns : INT64_MIN;
		e = EV_END;
	}
	return e;
}

/* Does thread I's join J have to wait for its target? */
static int join_waits1(const struct timeline *tl, const struct tl_join *j)
{
	const struct tl_thread *g;

	if (j->target < 0 || j->target >= tl->n)
		return 0;
	g = &tl->th[j->target];
	if (j->wake > 0)
		return (g->state == TL_WAITING || g->state == TL_RUNNING) && g->wi < j->wake;
	if (j->upto > 0 && j->upto <= g->ncalls && g->state == TL_RUNNING)
		return g->ci < j->upto;
	return g->state == TL_WAITING || g->state == TL_RUNNING;
}

/* ... or for any of the joins on its interval (J->more after it)? */
static int join_waits(const struct timeline *tl, const struct tl_join *j)
{
	for (size_t k = 0; k <= j->more; k++)
		if (join_waits1(tl, &j[k]))
			return 1;
	return 0;
}

/* The running thread whose next event comes first, and can go; -1 if none. */
static int pick(const struct timeline *tl, enum ev *ev)
{
	int best = -1;
	double key = INFINITY;

	for (int r = 0; r < tl->nrunning; r++) {
		int i = tl->running[r];
		const struct tl_thread *t = &tl->th[i];
		int64_t m;
		enum ev e = next_event(tl, i, &m);
		if (e == EV_JOIN && join_waits(tl, &t->joins[t->ji]))
			continue;
		/* a thread of unknown end with nothing left: done at once, nothing depends on it */
		double k = m == INT64_MIN ? -INFINITY : (double)m + t->d;
		if (best < 0 || k < key || (k == key && i < best)) {	/* ties: the lower index */
			best = i;
			key = k;
			*ev = e;
		}
	}
	return best;
}

/* The earliest free device (DEVICES > 0). */
static int free_device(const struct timeline *tl)
{
	int k = 0;

	for (int i = 1; i < tl->devices; i++)
		if (tl->free_at[i] < tl->free_at[k])
			k = i;
	return k;
}

/* Thread T's next call: it arrives, maybe waits for a device, takes f.  What the thread
 * did inside the call (threads it created, joins) is part of the call, which f stands for. */
static void step_call(struct timeline *tl, struct tl_thread *t)
{
	const struct tl_call *c = &t->calls[t->ci++];
	double arrive = (double)c->start + t->d, begin;

	if (!tl->setup_done) {
		tl->setup_done = 1;
		arrive += tl->setup_ns;	/* the accelerator is loaded when first needed */
	}
	begin = arrive;
	if (tl->devices > 0) {
		int k = free_device(tl);
		if (tl->free_at[k] > arrive) {
			begin = tl->free_at[k];
			t->queue_wait_ns += begin - arrive;
			t->waited_calls++;
			tl->queue_wait_ns += begin - arrive;
			tl->waited_calls++;
		}
		tl->free_at[k] = begin + c->f;
	}
	t->d = begin + c->f - (double)(c->start + c->t);
	t->plast = t->call_end[t->ci - 1] = begin + c->f;
	int i = (int)(t - tl->th);
	while (tl->kid0[i] + (int)t->ki < tl->kid0[i + 1] &&
	       tl->th[tl->kids[tl->kid0[i] + (int)t->ki]].create_ns < c->start + c->t) {
		tl->th[tl->kids[tl->kid0[i] + (int)t->ki++]].state = TL_ABSORBED;
		tl->absorbed++;
	}
	while (t->ji < t->njoins && t->joins[t->ji].call_ns < c->start + c->t)
		t->ji++;
	/* a wake-up inside the call: when the call is done (the part of it that woke is not
	 * known) */
	while (t->wi < t->nwakes && t->wakes[t->wi].at < c->start + c->t)
		t->wakes[t->wi++].pred = begin + c->f;
}

/* Where join J's target ends (its UPTO-th call, or itself): measured *E, predicted *PE.
 * 0 when it does not end on the timeline (unknown, part of a replaced call). */
static int target_end(const struct timeline *tl, const struct tl_join *j, int64_t *e, double *pe)
{
	const struct tl_thread *g = j->target >= 0 && j->target < tl->n ? &tl->th[j->target] : NULL;

	if (!g || g->state == TL_ABSORBED || g->state == TL_WAITING)
		return 0;
	if (j->wake > 0) {
		if (j->wake > g->nwakes || g->wi < j->wake)
			return 0;
		*e = g->wakes[j->wake - 1].at;
		*pe = g->wakes[j->wake - 1].pred;
		return 1;
	}
	if (j->upto > 0 && j->upto <= g->ncalls && g->ci >= j->upto) {
		*e = g->calls[j->upto - 1].start + g->calls[j->upto - 1].t;
		*pe = g->call_end[j->upto - 1];
		return 1;
	}
	if (g->state != TL_DONE || g->end_ns == TL_UNKNOWN)
		return 0;
	*e = g->end_ns;
	*pe = g->pend;
	return 1;
}

/* Thread T's join: it returns when both it and the target are there, plus its own cost
 * (what the return took after the target's end, measured).  A wait likewise, with the
 * wake-up for the target's end, and no cost: what a wait took after its wake-up is the
 * mutex's hand-over and the scheduler's delay, and on a machine busier than the
 * predicted run (threads whose calls took cores the prediction frees) it is mostly the
 * scheduler's (pigz -p 3 on 2 cores: 6.8 ms a wait, 60 % of the writer's life). */
static void join_one(const struct timeline *tl, struct tl_join *j, double pred_call)
{
	int64_t e;
	double pe;

	j->pred_call = pred_call;
	if (target_end(tl, j, &e, &pe)) {
		int64_t from = j->call_ns > e ? j->call_ns : e;
		double cost = j->has_lag ? j->lag
			      : j->ret_ns > from && !j->wake ? (double)(j->ret_ns - from) : 0;
		j->pred_target = pe;
		j->bound = pe > j->pred_call;
		j->pred_ret = (j->bound ? pe : j->pred_call) + cost;
	} else {
		j->pred_ret = j->pred_call + (double)(j->ret_ns - j->call_ns);
		j->bound = 0;
	}
}

/* Thread T's join, and those on its interval (MORE): it returns at the latest of theirs;
 * only that one decided it (the critical path goes through it). */
static void step_join(struct timeline *tl, struct tl_thread *t)
{
	struct tl_join *j = &t->joins[t->ji];
	double pred_call = (double)j->call_ns + t->d;
	size_t last = 0;

	for (size_t k = 0; k <= j->more; k++) {
		join_one(tl, &j[k], pred_call);
		if (j[k].pred_ret > j[last].pred_ret)
			last = k;
	}
	for (size_t k = 0; k <= j->more; k++)
		if (k != last)
			j[k].bound = 0;
	t->ji += 1 + j->more;
	t->d = j[last].pred_ret - (double)j[last].ret_ns;
}

/* Thread T starts running at PSTART with offset D. */
static void start(struct timeline *tl, struct tl_thread *t, double pstart, double d)
{
	t->state = TL_RUNNING;
	t->pstart = pstart;
	t->d = d;
	tl->running[tl->nrunning++] = (int)(t - tl->th);
}

/* Thread T is done. */
static void stop(struct timeline *tl, struct tl_thread *t)
{
	int i = (int)(t - tl->th);

	t->state = TL_DONE;
	t->pend = t->end_ns != TL_UNKNOWN ? (double)t->end_ns + t->d : NAN;
	for (; t->wi < t->nwakes; t->wi++)	/* (after its end: a damaged trace) */
		t->wakes[t->wi].pred = (double)t->wakes[t->wi].at + t->d;
	for (int r = 0; r < tl->nrunning; r++)
		if (tl->running[r] == i) {
			tl->running[r] = tl->running[--tl->nrunning];
			break;
		}
}

/* Thread I's next event, E. */
static void step(struct timeline *tl, int i, enum ev e)
{
	struct tl_thread *t = &tl->th[i];

	if (e == EV_KID) {
		struct tl_thread *k = &tl->th[tl->kids[tl->kid0[i] + (int)t->ki++]];
		if (k->state == TL_WAITING)	/* at create + d + (start - create) */
			start(tl, k, (double)k->start_ns + t->d, t->d);
	} else if (e == EV_JOIN) {
		step_join(tl, t);
	} else if (e == EV_WAKE) {
		t->wakes[t->wi].pred = (double)t->wakes[t->wi].at + t->d;
		t->wi++;
	} else if (e == EV_CALL) {
		step_call(tl, t);
	} else {
		stop(tl, t);
	}
}

/* Nothing can go: a join waits for a thread that will never end (its creator was part
 * of a replaced call, or the trace is damaged).  The earliest such join keeps its
 * measured time.  0 if there was none. */
static int unblock(struct timeline *tl)
{
	int best = -1;
	double key = INFINITY;

	for (int r = 0; r < tl->nrunning; r++) {
		int i = tl->running[r];
		const struct tl_thread *t = &tl->th[i];
		if (t->ji < t->njoins &&
		    (double)t->joins[t->ji].call_ns + t->d < key) {
			key = (double)t->joins[t->ji].call_ns + t->d;
			best = i;
		}
	}
	if (best < 0)
		return 0;
	struct tl_join *j = &tl->th[best].joins[tl->th[best].ji];
	for (size_t k = 0; k < j->more && !join_waits1(tl, j); k++)
		j++;	/* (of a join's group, one that waits) */
	j->target = -1;
	tl->unresolved++;
	return 1;
}

/* The process ends when the last of its threads of known end does (the main thread's end
 * includes what it waited for in joins); a thread still running at exit (an OpenMP
 * team's, say) was there at least until its last call ended, and so was the process. */
static void process_end(struct timeline *tl)
{
	tl->end_ns = tl->th[0].pend;
	tl->last = 0;
	for (int i = 1; i < tl->n; i++) {
		const struct tl_thread *t = &tl->th[i];
		double end = isfinite(t->pend) ? t->pend : t->plast;
		if (t->state == TL_DONE && isfinite(end) && end > tl->end_ns) {
			tl->end_ns = end;
			tl->last = i;
		}
	}
}

/* Where thread I's stretch of the path that ends at TO began: the last join before TO
 * that its target's end decided, or -1 (its start). */
static int deciding_join(const struct tl_thread *t, double to)
{
	for (size_t j = t->njoins; j-- > 0;)
		if (t->joins[j].bound && t->joins[j].pred_ret <= to)
			return (int)j;
	return -1;
}

/* The critical path, from the thread that ends the process back to the main thread's
 * start: each stretch begins at a join that waited for a thread's end (that thread's
 * stretch comes before) or at the thread's start (its creator's comes before).  Waits
 * for a device stay inside the stretch of the thread that waited. */
static int critical_path(struct timeline *tl)
{
	int room = tl->n * 2 + 2, i = tl->last;
	double to = tl->end_ns;	/* (a thread of unknown end: the end of its last call) */

	for (int t = 0; t < tl->n; t++)
		room += (int)tl->th[t].njoins;
	tl->path = calloc((size_t)room, sizeof(*tl->path));
	if (!tl->path)
		return -1;
	while (i >= 0 && tl->npath < room) {
		const struct tl_thread *t = &tl->th[i];
		int j = deciding_join(t, to);
		struct tl_step *s = &tl->path[tl->npath++];
		s->th = i;
		s->to = to;
		if (j >= 0) {
			i = t->joins[j].target;
			s->from = to = t->joins[j].pred_target;
			s->how = t->joins[j].wake ? TL_HOW_WAKE : TL_HOW_JOIN;
		} else {
			s->from = t->pstart;
			s->how = TL_HOW_START;
			to = t->pstart - (double)(t->start_ns - t->create_ns);
			i = t->creator;
		}
	}
	for (int a = 0, b = tl->npath - 1; a < b; a++, b--) {
		struct tl_step x = tl->path[a];
		tl->path[a] = tl->path[b];
		tl->path[b] = x;
	}
	return 0;
}

int timeline_run(struct timeline *tl)
{
	enum ev e = EV_NONE;
	int i;

	if (build_kids(tl) != 0)
		return -1;
	if (tl->devices > 0 && !(tl->free_at = calloc((size_t)tl->devices, sizeof(*tl->free_at))))
		return -1;
	if (!(tl->running = calloc((size_t)tl->n + 1, sizeof(*tl->running))))
		return -1;
	tl->nrunning = 0;
	for (i = 0; i < tl->n; i++) {
		struct tl_thread *t = &tl->th[i];
		if (!(t->call_end = calloc(t->ncalls + 1, sizeof(*t->call_end))))
			return -1;
		t->state = TL_WAITING;
		t->ci = t->ji = t->ki = t->wi = 0;
		t->d = t->queue_wait_ns = 0;
		t->waited_calls = 0;
		t->pstart = t->pend = t->plast = NAN;
		/* the main thread, and threads whose creator the trace does not name, start
		 * when they did */
		if (i == 0 || t->creator < 0 || t->creator >= tl->n)
			start(tl, t, (double)t->start_ns, 0);
	}
	for (;;) {
		if ((i = pick(tl, &e)) >= 0)
			step(tl, i, e);
		else if (!unblock(tl))
			break;
	}
	for (i = 0; i < tl->n; i++)
		if (tl->th[i].state == TL_WAITING) {
			tl->th[i].state = TL_ABSORBED;	/* its creator never got to create it */
			tl->absorbed++;
		}
	process_end(tl);
	return critical_path(tl);
}

void timeline_free(struct timeline *tl)
{
	for (int i = 0; tl->th && i < tl->n; i++) {
		free(tl->th[i].call_end);
		tl->th[i].call_end = NULL;
	}
	free(tl->kids);
	free(tl->kid0);
	free(tl->free_at);
	free(tl->running);
	tl->running = NULL;
	free(tl->path);
	tl->kids = tl->kid0 = NULL;
	tl->free_at = NULL;
	tl->path = NULL;
	tl->npath = 0;
}
