/* chrome_link.c - the device queue and the link of --chrome (chrome.h).
 *
 * A replaced call runs on a device from its predicted begin (its end less f: after any
 * wait for a device) to its predicted end; f holds the transfers charged to it
 * (transfers.c), in the order the simulation charges them: the d2h the host's accesses
 * before it cause, its h2d, then the kernel, and in pessimistic mode the d2h of what it
 * wrote after it.  A transfer charged to a host call is the host's wait of its own (chrome.c's
 * "transfer" event), and what is charged after the last call comes after the process's
 * predicted end, as T' counts it.  The transfers are those of the residency simulation
 * in the prediction's top mode, run again with a callback for each one (resid.h).
 *
 * Kernels, and transfers, go on tracks in lanes: each on the first lane free at its
 * start.  With --devices N the kernels never need more than N lanes, the devices; with
 * unlimited devices, a lane per kernel running at once.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "chrome.h"
#include "func_names.h"
#include "resid.h"
#include "shown.h"
#include "tids.h"
#include "timeline.h"
#include "transfers.h"

#define SORT_DEVICE 1000000	/* the device tracks after the threads', then the link's */
#define SORT_LINK 2000000
#define LANE_EPS 0.5		/* ns: an event that starts as the last ends fits the lane */

/* One event of a lane track. */
struct span {
	double from, to;
	int kind;		/* 0 a kernel, 1 h2d, 2 d2h */
	int32_t func;		/* a kernel's */
	uint64_t tid;		/* the thread whose call it is (0: after the last call) */
	uint64_t bytes;		/* a transfer's */
	double wait;		/* a kernel's wait for a device (and the set-up) */
	int lane;
};

struct spans {
	struct span *s;
	size_t n, room;
};

/* A timeline call's transfers: before its kernel and after it (pessimistic d2h), their
 * sums and where the next one goes. */
struct call_x {
	double pre, post, pre_at, post_at;
	unsigned char taken;	/* a slot was found in it */
};

/* One transfer, as resid_simulate charges it. */
struct xf {
	uint64_t slot;
	int h2d;
	uint64_t bytes;
	double ns;
};

struct link_state {
	struct xf *x;
	size_t n, room;
	int oom;
	struct call_x **cx;	/* [thread][call] */
	struct tids bytid;	/* tid -> its timeline index + 1 (int) */
	struct spans dev, link;
};

static int push(struct spans *v, struct span s)
{
	if (v->n == v->room) {
		size_t r = v->room ? 2 * v->room : 64;
		struct span *g = realloc(v->s, r * sizeof(*g));
		if (!g)
			return -1;
		v->s = g, v->room = r;
	}
	v->s[v->n++] = s;
	return 0;
}

static void each(void *arg, uint64_t slot, int h2d, uint64_t bytes, double ns)
{
	struct link_state *ls = arg;

	if (ls->n == ls->room) {
		size_t r = ls->room ? 2 * ls->room : 64;
		struct xf *g = realloc(ls->x, r * sizeof(*g));
		if (!g) {
			ls->oom = 1;
			return;
		}
		ls->x = g, ls->room = r;
	}
	ls->x[ls->n++] = (struct xf){ slot, h2d, bytes, ns };
}

/* The call of C's timeline that slot S is charged to (transfers.c's charge_calls: an
 * accelerated call's own, else the host call's transfer call of func -1, found by its
 * thread and start): 0 with *IX, *K; -1 when none (charged at the end). */
static int call_of(const struct chrome *c, struct link_state *ls, uint64_t s, int *ix, size_t *k)
{
	const struct resid_events *ev = &c->p->resid->ev;
	int fresh, accel;
	int *i;

	if (s >= ev->nseq || ev->t_start[s] < 0 ||
	    !(i = tids_get(&ls->bytid, ev->tid[s], sizeof(int), &fresh)) || *i == 0)
		return -1;
	const struct tl_thread *th = &c->tl->th[*i - 1];
	accel = ev->func[s] >= 0 && c->p->resid->accel[s];
	for (size_t j = 0; j < th->ncalls && th->calls[j].start <= ev->t_start[s]; j++)
		if (th->calls[j].start == ev->t_start[s] && !ls->cx[*i - 1][j].taken &&
		    th->calls[j].func == (accel ? ev->func[s] : -1)) {
			ls->cx[*i - 1][j].taken = 1;
			*ix = *i - 1, *k = j;
			return 0;
		}
	return -1;
}

/* Does transfer X come after the kernel of call K of thread IX?  The d2h of an
 * accelerated call's writes, pessimistic mode's only. */
static int after(const struct chrome *c, const struct xf *x, int ix, size_t k)
{
	return c->p->xfer_top == RESID_PESSIMISTIC && !x->h2d && c->tl->th[ix].calls[k].func >= 0;
}

/* The transfers (LS->x, by slot) into the calls they are charged to, then placed as
 * spans of the link.  0, or -1 out of memory. */
static int place_transfers(const struct chrome *c, struct link_state *ls)
{
	double tail = c->tl->end_ns;
	int *ixs = malloc((ls->n + 1) * sizeof(*ixs));
	size_t *ks = malloc((ls->n + 1) * sizeof(*ks));

	if (!ixs || !ks) {
		free(ixs);
		free(ks);
		return -1;
	}
	for (size_t i = 0; i < ls->n; i++) {
		if (i && ls->x[i].slot == ls->x[i - 1].slot)
			ixs[i] = ixs[i - 1], ks[i] = ks[i - 1];
		else if (call_of(c, ls, ls->x[i].slot, &ixs[i], &ks[i]) != 0)
			ixs[i] = -1;
		if (ixs[i] >= 0)
			*(after(c, &ls->x[i], ixs[i], ks[i]) ? &ls->cx[ixs[i]][ks[i]].post
			  : &ls->cx[ixs[i]][ks[i]].pre) += ls->x[i].ns;
	}
	int rc = 0;
	for (size_t i = 0; i < ls->n && rc == 0; i++) {
		const struct xf *x = &ls->x[i];
		double at;
		uint64_t tid = 0;
		if (ixs[i] < 0) {
			at = tail, tail += x->ns;
		} else {
			const struct tl_thread *th = &c->tl->th[ixs[i]];
			struct call_x *cx = &ls->cx[ixs[i]][ks[i]];
			double end = th->call_end[ks[i]], begin = end - th->calls[ks[i]].f;
			int post = after(c, x, ixs[i], ks[i]);
			at = post ? end - cx->post + cx->post_at : begin + cx->pre_at;
			*(post ? &cx->post_at : &cx->pre_at) += x->ns;
			tid = th->tid;
		}
		rc = push(&ls->link, (struct span){ at, at + x->ns, x->h2d ? 1 : 2, -1, tid,
						    x->bytes, 0, 0 });
	}
	free(ixs);
	free(ks);
	return rc;
}

/* Each replaced call's kernel, between its transfers, as a span of the devices. */
static int kernels(const struct chrome *c, struct link_state *ls)
{
	for (int i = 0; i < c->tl->n; i++) {
		const struct tl_thread *th = &c->tl->th[i];
		if (th->state == TL_ABSORBED)
			continue;
		for (size_t k = 0; k < th->ncalls; k++) {
			const struct tl_call *call = &th->calls[k];
			if (call->func < 0)
				continue;
			double end = th->call_end[k], begin = end - call->f;
			double pre = ls->cx ? ls->cx[i][k].pre : 0, post = ls->cx ? ls->cx[i][k].post : 0;
			if (push(&ls->dev, (struct span){ begin + pre, end - post, 0, call->func, th->tid,
							  0, begin - c->arrive[i][k], 0 }) != 0)
				return -1;
		}
	}
	return 0;
}

static int by_from(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

/* V's spans by start, each on the first lane free then.  The lanes used, or -1. */
static int lanes(struct spans *v)
{
	double *free_at = NULL;
	int n = 0;

	if (v->n)
		qsort(v->s, v->n, sizeof(*v->s), by_from);
	for (size_t i = 0; i < v->n; i++) {
		int l = 0;
		while (l < n && free_at[l] > v->s[i].from + LANE_EPS)
			l++;
		if (l == n) {
			double *g = realloc(free_at, (size_t)(n + 1) * sizeof(*g));
			if (!g) {
				free(free_at);
				return -1;
			}
			free_at = g;
			n++;
		}
		free_at[l] = v->s[i].to;
		v->s[i].lane = l;
	}
	free(free_at);
	return n;
}

/* V's spans as events of their lanes' tracks (BASE + lane), the tracks named. */
static void put_spans(struct chrome *c, const struct spans *v, int nlanes, int link)
{
	char label[64];

	for (int l = 0; l < nlanes; l++) {
		if (link)
			snprintf(label, sizeof(label), l ? "link h2d/d2h (%d)" : "link h2d/d2h", l + 1);
		else
			snprintf(label, sizeof(label), "device %d", l);
		chrome_meta_name(c, "thread_name", (link ? CH_LINK : CH_DEVICE) + l, label);
		chrome_meta_sort(c, (link ? CH_LINK : CH_DEVICE) + l, (link ? SORT_LINK : SORT_DEVICE) + l);
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct span *s = &v->s[i];
		const char *name = s->kind == 1 ? "h2d" : s->kind == 2 ? "d2h" : funcs_get(s->func)->name;
		chrome_event(c, name, link ? "transfer" : "kernel", s->from, s->to - s->from,
			     (link ? CH_LINK : CH_DEVICE) + s->lane);
		if (link)
			fprintf(c->f, "\"direction\":\"%s\",\"bytes\":%" PRIu64 ",\"t_predicted_ns\":%.0f,"
				"\"tid\":%" PRIu64 "}}", name, s->bytes, s->to - s->from, s->tid);
		else {
			fputs("\"func\":", c->f);
			json_str(c->f, name, strlen(name));
			fprintf(c->f, ",\"t_predicted_ns\":%.0f,\"wait_ns\":%.0f,\"tid\":%" PRIu64 "}}",
				s->to - s->from, s->wait, s->tid);
		}
	}
}

static void free_state(struct link_state *ls, int n)
{
	for (int i = 0; ls->cx && i < n; i++)
		free(ls->cx[i]);
	free(ls->cx);
	free(ls->x);
	free(ls->dev.s);
	free(ls->link.s);
	tids_free(&ls->bytid);
}

/* The transfers of C's process in its prediction's top mode, into LS.  0, or -1. */
static int transfers(const struct chrome *c, struct link_state *ls)
{
	const struct prediction *p = c->p;
	struct resid_result r = { 0 };

	if (!(ls->cx = calloc((size_t)c->tl->n + 1, sizeof(*ls->cx))))
		return -1;
	for (int i = 0; i < c->tl->n; i++) {
		int fresh, *ix = tids_get(&ls->bytid, c->tl->th[i].tid, sizeof(int), &fresh);
		if (!ix || !(ls->cx[i] = calloc(c->tl->th[i].ncalls + 1, sizeof(**ls->cx))))
			return -1;
		if (fresh)
			*ix = i + 1;
	}
	r.each = each;
	r.each_arg = ls;
	int rc = resid_simulate(&p->resid->ev, p->resid->accel, (enum resid_mode)p->xfer_top,
				&p->resid->link, &r);
	resid_result_free(&r);
	return rc != 0 || ls->oom || place_transfers(c, ls) != 0 ? -1 : 0;
}

int chrome_devices(struct chrome *c)
{
	struct link_state ls = { 0 };
	int rc = -1, nd, nl;

	if (!c->tl)
		return 0;
	if (c->p->resid && c->p->xfer_top >= 0 && transfers(c, &ls) != 0)
		goto out;
	if (kernels(c, &ls) != 0 || (nd = lanes(&ls.dev)) < 0 || (nl = lanes(&ls.link)) < 0)
		goto out;
	put_spans(c, &ls.dev, nd, 0);
	put_spans(c, &ls.link, nl, 1);
	rc = 0;
out:
	free_state(&ls, c->tl->n);
	return rc;
}
