/* chrome.c - dyl-speedup --chrome FILE (chrome.h): each process's threads, measured and
 * predicted, as Chrome trace-event JSON.
 *
 * The measured track of a thread is its rows as the trace has them (dyl-trace chrome's
 * events).  Its predicted track is the same calls where the timeline (timeline.c) puts
 * them: a thread's offset d (predicted less measured time) changes only where a replaced
 * call ends or a join or wait returns, so each row is shifted by the d of its start, and
 * ends at its end plus the d there.  A replaced call runs from its predicted arrival to
 * its predicted end (a wait for a device, the accelerator's set-up and its transfers
 * inside); the calls nested in it are gone with it.  A transfer the host waits for
 * outside a replaced call (transfers.c: a call of t 0 at the host call's start) is an
 * event of its own.  Each thread's life is the first event of its tracks: the main
 * thread's from 0 to T (measured) and T' (predicted), drawn at least to its last call.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "chrome.h"
#include "cli.h"
#include "func_names.h"
#include "input.h"
#include "outfile.h"
#include "rows.h"
#include "shown.h"
#include "thread_events.h"
#include "tids.h"
#include "timeline.h"

#define SORT_STEP 2		/* a thread's tracks: measured 2i, predicted 2i + 1 */

/* Where a thread's offset d changes: from measured time M on, d is D. */
struct bp {
	int64_t m;
	double d;
};

/* What the rows' walk keeps per thread (by tid). */
struct ch_thread {
	int ix;			/* its timeline index; -1 none (then predicted = measured) */
	int order;		/* first seen: its tracks' place */
	size_t ci;		/* its next replaced call (a tl_call of func >= 0) */
	int64_t hide_from, hide_until;	/* the replaced row now: rows inside it are gone */
	int64_t first, last;	/* measured: its first call's start, its last call's end */
	double plast;		/* predicted: its last event's end */
	struct bp *bp;		/* by m */
	size_t nbp;
	double d0;		/* d before the first breakpoint */
};

/* --- the JSON --- */

/* NS, rounded to the ns, as microseconds: "12.345" (rounding each end, not the length,
 * so that an event that starts where another ends still does in the file) */
static void put_us(FILE *f, long long ns)
{
	fprintf(f, "%s%lld.%03lld", ns < 0 ? "-" : "", llabs(ns) / 1000, llabs(ns) % 1000);
}

void chrome_event(struct chrome *c, const char *name, const char *cat, double ts, double dur,
		  int64_t tid)
{
	long long from = llround(ts + c->offset), to = llround(ts + c->offset + (dur > 0 ? dur : 0));

	fputs(c->first ? "\n{\"name\":" : ",\n{\"name\":", c->f);
	c->first = 0;
	json_str(c->f, name, strlen(name));
	fprintf(c->f, ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":", cat);
	put_us(c->f, from);
	fputs(",\"dur\":", c->f);
	put_us(c->f, to - from);
	fprintf(c->f, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"args\":{", c->pid, tid);
}

void chrome_meta_name(struct chrome *c, const char *what, int64_t tid, const char *name)
{
	fprintf(c->f, "%s\n{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%" PRId64 ",\"tid\":%" PRId64
		",\"args\":{\"name\":", c->first ? "" : ",", what, c->pid, tid);
	c->first = 0;
	json_str(c->f, name, strlen(name));
	fputs("}}", c->f);
}

void chrome_meta_sort(struct chrome *c, int64_t tid, long index)
{
	fprintf(c->f, "%s\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%" PRId64
		",\"tid\":%" PRId64 ",\"args\":{\"sort_index\":%ld}}", c->first ? "" : ",", c->pid,
		tid, index);
	c->first = 0;
}

static void put_opt(FILE *f, const char *key, int64_t v)
{
	if (v == ROWS_NONE)
		fprintf(f, ",\"%s\":null", key);
	else
		fprintf(f, ",\"%s\":%" PRId64, key, v);
}

/* --- the predicted offsets --- */

static int push_bp(struct ch_thread *t, size_t *room, int64_t m, double d)
{
	if (t->nbp == *room) {
		size_t r = *room ? 2 * *room : 16;
		struct bp *b = realloc(t->bp, r * sizeof(*b));
		if (!b)
			return -1;
		t->bp = b, *room = r;
	}
	t->bp[t->nbp++] = (struct bp){ m, d };
	return 0;
}

/* Timeline thread TH's breakpoints into T, and each call's predicted arrival into ARRIVE
 * (its calls and joins in the order timeline.c steps them: a join inside a replaced call
 * is part of the call).  0, or -1 out of memory. */
static int offsets(struct ch_thread *t, const struct tl_thread *th, int main_thread,
		   double *arrive)
{
	size_t room = 0, k = 0, j = 0;
	double d = main_thread || !isfinite(th->pstart) ? 0 : th->pstart - (double)th->start_ns;

	t->d0 = d;
	while (k < th->ncalls || j < th->njoins) {
		const struct tl_call *c = k < th->ncalls ? &th->calls[k] : NULL;
		const struct tl_join *jn = j < th->njoins ? &th->joins[j] : NULL;
		if (c && (!jn || c->start < jn->call_ns)) {
			arrive[k] = (double)c->start + d;
			while (j < th->njoins && th->joins[j].call_ns < c->start + c->t)
				j++;
			d = th->call_end[k] - (double)(c->start + c->t);
			if (push_bp(t, &room, c->start + c->t, d) != 0)
				return -1;
			k++;
		} else {
			d = jn->pred_ret - (double)jn->ret_ns;
			if (push_bp(t, &room, jn->ret_ns, d) != 0)
				return -1;
			j++;
		}
	}
	return 0;
}

/* T's offset at measured time M. */
static double d_at(const struct ch_thread *t, int64_t m)
{
	size_t lo = 0, hi = t->nbp;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->bp[mid].m <= m)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? t->bp[lo - 1].d : t->d0;
}

/* The per-thread state of C's timeline threads, and their calls' arrivals (ARRIVE[i]).
 * 0, or -1 out of memory. */
static int timeline_threads(struct chrome *c, struct tids *map, double **arrive)
{
	for (int i = 0; c->tl && i < c->tl->n; i++) {
		const struct tl_thread *th = &c->tl->th[i];
		int fresh;
		struct ch_thread *t = tids_get(map, th->tid, sizeof(*t), &fresh);
		if (!t || !(arrive[i] = calloc(th->ncalls + 1, sizeof(double))))
			return -1;
		if (!fresh)
			continue;
		t->order = (int)map->n - 1;
		t->ix = th->state == TL_ABSORBED ? -2 : i;
		t->first = INT64_MAX;
		t->plast = NAN;
		if (t->ix >= 0 && offsets(t, th, i == 0, arrive[i]) != 0)
			return -1;
	}
	return 0;
}

/* --- the rows --- */

/* Row R of thread T: its measured event and, unless a replaced call holds it, its
 * predicted one. */
static void put_row(struct chrome *c, struct ch_thread *t, const struct trace_row *r)
{
	const char *name = funcs_get((int)r->func)->name;
	const struct tl_thread *th = t->ix >= 0 ? &c->tl->th[t->ix] : NULL;
	double ps = NAN, pe = NAN;
	const struct tl_call *rc = NULL;

	/* the replaced call it is (the next of its thread's, same start and function) */
	while (th && t->ci < th->ncalls && (th->calls[t->ci].func < 0 ||
					    th->calls[t->ci].start < r->t_start))
		t->ci++;
	if (th && t->ci < th->ncalls && th->calls[t->ci].start == r->t_start &&
	    th->calls[t->ci].func == (int32_t)r->func && r->t_start >= t->hide_until) {
		rc = &th->calls[t->ci];
		ps = c->arrive[t->ix][t->ci];
		pe = th->call_end[t->ci++];
		t->hide_from = r->t_start;
		t->hide_until = r->t_start + r->t_ns;
	} else if (t->ix != -2 && !(r->t_start >= t->hide_from && r->t_start < t->hide_until)) {
		ps = (double)r->t_start + d_at(t, r->t_start);
		pe = (double)(r->t_start + r->t_ns) + d_at(t, r->t_start + r->t_ns);
	}
	if (r->t_start < t->first)
		t->first = r->t_start;
	if (r->t_start + r->t_ns > t->last)
		t->last = r->t_start + r->t_ns;
	for (int pred = 0; pred < 2; pred++) {
		if (pred && isnan(ps))
			break;
		chrome_event(c, name, "call", pred ? ps : (double)r->t_start,
			     pred ? pe - ps : (double)r->t_ns,
			     pred ? CH_PREDICTED + (int64_t)r->tid : (int64_t)r->tid);
		fprintf(c->f, "\"func\":");
		json_str(c->f, name, strlen(name));
		fprintf(c->f, ",\"seq\":%" PRIu64 ",\"depth\":%u", r->seq, r->depth);
		put_opt(c->f, "work", r->work);
		put_opt(c->f, "in_bytes", r->in_bytes);
		put_opt(c->f, "out_bytes", r->out_bytes);
		fprintf(c->f, ",\"t_measured_ns\":%" PRId64, r->t_ns);
		if (isnan(ps))
			fputs(",\"t_predicted_ns\":null,\"inside_replaced_call\":true}}", c->f);
		else
			fprintf(c->f, ",\"t_predicted_ns\":%.0f,\"replaced\":%s}}", pe - ps,
				rc ? "true" : "false");
	}
	if (!isnan(pe) && (isnan(t->plast) || pe > t->plast))
		t->plast = pe;
}

/* Every timed row of SRC (in seq order), on the tracks of its thread in MAP. */
static int put_rows(struct chrome *c, struct trace_src *src, struct tids *map)
{
	size_t n;
	uint64_t *order = rows_by_seq(src, &n), untimed = 0;

	if (!order)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct trace_row r;
		int fresh;
		struct ch_thread *t;
		if (rows_at(src, order[i], &r) != 0) {
			free(order);
			return -1;
		}
		if (r.t_start == ROWS_NONE) {
			untimed++;
			continue;
		}
		if (!(t = tids_get(map, r.tid, sizeof(*t), &fresh))) {
			free(order);
			input_error(src->path, 0, "out of memory");
			return -1;
		}
		if (fresh) {
			t->ix = -1;
			t->order = (int)map->n - 1;
			t->first = INT64_MAX;
			t->plast = NAN;
		}
		put_row(c, t, &r);
	}
	if (untimed)
		input_warning(src->path, 0, "%" PRIu64 " calls without a time left out", untimed);
	free(order);
	return 0;
}

/* The transfers the host waits for outside replaced calls (transfers.c's calls of
 * func -1), on the predicted tracks. */
static void put_waits(struct chrome *c)
{
	for (int i = 0; c->tl && i < c->tl->n; i++) {
		const struct tl_thread *th = &c->tl->th[i];
		if (th->state == TL_ABSORBED)
			continue;
		for (size_t k = 0; k < th->ncalls; k++) {
			if (th->calls[k].func >= 0)
				continue;
			double f = th->calls[k].f;
			chrome_event(c, "transfer (the host waits)", "transfer", th->call_end[k] - f,
				     f, CH_PREDICTED + (int64_t)th->tid);
			fprintf(c->f, "\"t_measured_ns\":0,\"t_predicted_ns\":%.0f}}", f);
		}
	}
}

/* --- the tracks --- */

/* Thread T's (tid TID) life on its two tracks, and the tracks' names and places. */
static void put_thread(struct chrome *c, const struct ch_thread *t, uint64_t tid, int main_thread,
		       const char *name)
{
	const struct prediction *p = c->p;
	const struct tl_thread *th = t->ix >= 0 ? &c->tl->th[t->ix] : NULL;
	double ms = (double)t->first, me = (double)t->last, ps, pe;
	char label[160];

	if (main_thread)
		ms = 0, me = fmax((double)p->total_ns, me);
	else if (th)
		ms = (double)th->start_ns,
		me = th->end_ns != TL_UNKNOWN ? (double)th->end_ns : (double)p->tl_clock_total_ns;
	ps = t->ix == -1 ? ms : th ? (main_thread ? 0 : th->pstart) : NAN;
	pe = t->ix == -1 ? me : !th ? NAN : main_thread ? p->predicted_total_ns
	     : isfinite(th->pend) ? th->pend : th->plast;
	if (isfinite(t->plast) && t->plast > pe)
		pe = t->plast;	/* (drawn at least to its last call) */
	for (int pred = 0; pred < 2; pred++) {
		int64_t track = (pred ? CH_PREDICTED : 0) + (int64_t)tid;
		snprintf(label, sizeof(label), "%s: thread %" PRIu64 "%s%s%s",
			 pred ? "predicted" : "measured", tid, name ? " (" : "", name ? name : "",
			 name ? ")" : "");
		chrome_meta_name(c, "thread_name", track, label);
		chrome_meta_sort(c, track, (long)t->order * SORT_STEP + pred);
		if (pred && !(isfinite(ps) && isfinite(pe)))
			continue;	/* (absorbed: part of a replaced call) */
		if (!pred && me < ms)
			continue;	/* (no call, no line: nothing known of it) */
		chrome_event(c, main_thread ? "process" : "thread", "thread", pred ? ps : ms,
			     pred ? pe - ps : me - ms, track);
		if (main_thread)
			fprintf(c->f, "\"%s\":%.0f}}", pred ? "T'" : "T",
				pred ? p->predicted_total_ns : (double)p->total_ns);
		else
			fprintf(c->f, "\"life_ns\":%.0f}}", pred ? pe - ps : me - ms);
	}
}

/* Every thread of MAP: its life, its tracks' names (with the name the trace recorded). */
static void put_threads(struct chrome *c, struct trace_src *src, struct tids *map)
{
	struct thread_events ev = { 0 };
	uint64_t main_tid = c->tl ? c->tl->th[0].tid : src->pid >= 0 ? (uint64_t)src->pid : 0;
	int names = thread_events_read(&ev, src, src->path) == 0;

	for (size_t i = 0; i < map->n; i++) {
		const struct ch_thread *t = tids_item(map, i);
		put_thread(c, t, map->tid[i], map->tid[i] == main_tid,
			   names ? thread_events_name(&ev, map->tid[i]) : NULL);
	}
	if (names)
		thread_events_free(&ev);
}

/* One process: C's prediction, its trace SRC (open, rows not read yet). */
static int put_process(struct chrome *c, struct trace_src *src)
{
	struct tids map = { 0 };
	double **arrive = c->tl ? calloc((size_t)c->tl->n + 1, sizeof(*arrive)) : NULL;
	int rc = -1;

	chrome_meta_name(c, "process_name", 0, src->cmdline ? src->cmdline : src->path);
	if (c->tl && (!arrive || timeline_threads(c, &map, arrive) != 0)) {
		input_error(src->path, 0, "out of memory");
		goto out;
	}
	c->arrive = (const double *const *)arrive;
	if (put_rows(c, src, &map) != 0)
		goto out;
	put_waits(c);
	put_threads(c, src, &map);
	if (chrome_devices(c) != 0) {
		input_error(src->path, 0, "out of memory");
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; i < map.n; i++)
		free(((struct ch_thread *)tids_item(&map, i))->bp);
	tids_free(&map);
	for (int i = 0; arrive && i < c->tl->n; i++)
		free(arrive[i]);
	free(arrive);
	return rc;
}

/* The processes' traces, opened (SRCS; *OPENED of them), on one time axis: *T0, the
 * earliest start (-1: one trace, or a start not known: each process from 0).  0 or -1. */
static int open_all(const struct prediction *procs, int n, struct trace_src *srcs,
		    int *opened, int64_t *t0)
{
	int all = 1;

	*t0 = -1;
	for (int i = 0; i < n; i++) {
		if (!procs[i].path || strcmp(procs[i].path, "/dev/stdin") == 0) {
			input_error(NULL, 0, "--chrome reads the traces again: give them as files, "
				    "not on standard input");
			return -1;
		}
		if (rows_open(&srcs[i], procs[i].path) != 0)
			return -1;
		(*opened)++;
		if (srcs[i].start_ns < 0)
			all = 0;
		else if (*t0 < 0 || srcs[i].start_ns < *t0)
			*t0 = srcs[i].start_ns;
	}
	if (n < 2 || !all)
		*t0 = -1;
	return 0;
}

int chrome_write(const char *path, const struct prediction *procs, int n)
{
	struct trace_src *srcs = calloc((size_t)n + 1, sizeof(*srcs));
	char **inputs = calloc((size_t)n + 1, sizeof(*inputs));
	struct outfile of;
	int64_t t0;
	int rc = -1, opened = 0;

	if (!srcs || !inputs) {
		input_error(NULL, 0, "out of memory");
		goto out;
	}
	for (int i = 0; i < n; i++)
		inputs[i] = (char *)procs[i].path;
	if (open_all(procs, n, srcs, &opened, &t0) != 0 || outfile_open(&of, path, inputs, n) != 0)
		goto out;
	fprintf(of.f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"dyl-speedup --chrome\","
		"\"version\":\"%s\"},\"traceEvents\":[", cli_version);
	struct chrome c = { .f = of.f, .first = 1 };
	rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		c.p = &procs[i];
		c.tl = procs[i].timeline ? procs[i].tl : NULL;
		c.pid = srcs[i].pid >= 0 ? srcs[i].pid : i + 1;
		c.offset = t0 >= 0 ? (double)(srcs[i].start_ns - t0) : 0;
		rc = put_process(&c, &srcs[i]);
	}
	fputs("\n]}\n", of.f);
	if (ferror(of.f)) {
		input_error(path, 0, "cannot write it");
		rc = -1;
	}
	if (outfile_close(&of, rc == 0) != 0)
		rc = -1;
out:
	for (int i = 0; i < opened; i++)
		rows_close(&srcs[i]);
	free(srcs);
	free(inputs);
	return rc;
}
