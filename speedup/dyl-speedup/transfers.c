/* transfers.c - the residency simulation in the prediction (transfers.h, doc/residency.md).
 *
 * The prediction decides which calls are replaced (predict.c: the models, --only-faster,
 * nesting); those calls are found in the flow by (thread, start, function), which the
 * trace's rows and struct call share, and are the accelerated ones.  The three modes are
 * simulated; the top-level mode's transfer time goes into T' (Amdahl), and into the
 * threads' timelines: an accelerated call's h2d (and pessimistic d2h) lengthen it; the
 * d2h a host call (or the program before it) causes is a call of t 0 and f the transfer,
 * at that call's start, in its thread; what is charged after the last call is added at
 * the end. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dyl_flow.h"
#include "func_names.h"
#include "grow.h"
#include "input.h"
#include "model.h"
#include "resid.h"
#include "transfers.h"

int transfers_mode = -1;

int transfers_wanted(struct models *ms)
{
	return models_link(ms, MODEL_H2D) || models_link(ms, MODEL_D2H);
}

/* A depth-0 call of the flow, to find a replaced call's seq. */
struct key {
	uint64_t tid;
	int64_t start;
	int32_t func;
	uint64_t seq;
};

static int key_order(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The seq of the first call (TID, START, FUNC) not yet taken; UINT64_MAX: none. */
static uint64_t find_seq(const struct key *k, size_t n, uint64_t tid, int64_t start,
			 int32_t func, const unsigned char *accel)
{
	struct key want = { tid, start, func, 0 };
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (key_order(&k[mid], &want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && k[lo].tid == tid && k[lo].start == start && k[lo].func == func; lo++)
		if (!accel[k[lo].seq])
			return k[lo].seq;
	return UINT64_MAX;
}

/* The replaced calls of RC (per thread of TR) marked in ACCEL; SEQS gets each one's seq
 * in the order of RC (UINT64_MAX: not found).  0, or -1 out of memory. */
static int mark(struct prediction *p, const struct trace *tr, const struct tl_calls *rc,
		const struct resid_events *ev, unsigned char *accel, uint64_t *seqs)
{
	struct key *k = malloc((ev->nseq + 1) * sizeof(*k));
	size_t n = 0, at = 0;

	if (!k)
		return -1;
	for (uint64_t s = 0; s < ev->nseq; s++)
		if (ev->func[s] >= 0)
			k[n++] = (struct key){ ev->tid[s], ev->t_start[s], ev->func[s], s };
	qsort(k, n, sizeof(*k), key_order);
	for (size_t t = 0; t < tr->tids.n; t++) {
		const struct thread *th = tids_item(&tr->tids, t);
		for (size_t i = 0; i < rc[t].n; i++) {
			const struct tl_call *c = &rc[t].c[i];
			uint64_t s = find_seq(k, n, th->tid, c->start, c->func, accel);
			seqs[at++] = s;
			if (s != UINT64_MAX)
				accel[s] = 1;
			else
				p->unmatched_calls++;
		}
	}
	free(k);
	return 0;
}

static void fig_of(struct xfer_fig *f, const struct resid_result *r)
{
	f->known = 1;
	f->h2d_bytes = r->h2d.bytes;
	f->d2h_bytes = r->d2h.bytes;
	f->h2d_transfers = r->h2d.transfers;
	f->d2h_transfers = r->d2h.transfers;
	f->h2d_ns = r->h2d.ns;
	f->d2h_ns = r->d2h.ns;
}

static int by_start(const void *a, const void *b)
{
	const struct tl_call *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The transfers' time in the threads' calls (CHARGE by seq, consumed here); what finds
 * no place is P's tail.  0, or -1 out of memory. */
static int charge_calls(struct prediction *p, const struct trace *tr, struct tl_calls *rc,
			const struct resid_events *ev, double *charge, const uint64_t *seqs)
{
	size_t at = 0;
	struct tl_call **add = calloc(tr->tids.n + 1, sizeof(*add));
	size_t *nadd = calloc(tr->tids.n + 1, sizeof(*nadd)), *room = calloc(tr->tids.n + 1,
									   sizeof(*room));
	int rc_ = -1;

	if (!add || !nadd || !room)
		goto out;
	for (size_t t = 0; t < tr->tids.n; t++)
		for (size_t i = 0; i < rc[t].n; i++, at++)
			if (seqs[at] != UINT64_MAX) {
				rc[t].c[i].f += charge[seqs[at]];
				rc[t].c[i].link += (float)charge[seqs[at]];
				rc[t].f_sum += charge[seqs[at]];
				charge[seqs[at]] = 0;
			}
	p->xfer_tail_ns = charge[ev->nseq];
	for (uint64_t s = 0; s < ev->nseq; s++) {
		size_t t;
		if (charge[s] <= 0)
			continue;
		for (t = 0; t < tr->tids.n; t++)
			if (((const struct thread *)tids_item(&tr->tids, t))->tid == ev->tid[s])
				break;
		if (t == tr->tids.n || ev->t_start[s] < 0) {
			p->xfer_tail_ns += charge[s];
			continue;
		}
		if (grow(&add[t], sizeof(*add[t]), nadd[t], &room[t], 16) != 0)
			goto out;
		add[t][nadd[t]++] = (struct tl_call){ ev->t_start[s], 0, charge[s], -1,
						      (float)charge[s] };
	}
	/* each thread's calls with its transfers' calls, by start (a stable merge: a
	 * transfer before a call at the same start) */
	for (size_t t = 0; t < tr->tids.n; t++) {
		struct tl_call *m;
		size_t i = 0, j = 0, o = 0;
		if (!nadd[t])
			continue;
		qsort(add[t], nadd[t], sizeof(*add[t]), by_start);
		if (!(m = malloc((rc[t].n + nadd[t]) * sizeof(*m))))
			goto out;
		while (i < rc[t].n || j < nadd[t])
			m[o++] = j < nadd[t] && (i == rc[t].n || add[t][j].start <= rc[t].c[i].start)
				 ? add[t][j++] : rc[t].c[i++];
		for (j = 0; j < nadd[t]; j++)
			rc[t].f_sum += add[t][j].f;
		free(rc[t].c);
		rc[t].c = m;
		rc[t].n = rc[t].room = o;
	}
	rc_ = 0;
out:
	for (size_t t = 0; add && t < tr->tids.n; t++)
		free(add[t]);
	free(add);
	free(nadd);
	free(room);
	return rc_;
}

/* The simulations and their figures into P; CHARGE: the top mode's by seq.  0, or -1
 * after a message. */
static int simulate(struct prediction *p, const struct trace *tr, const struct resid_events *ev,
		    const unsigned char *accel, const struct link_model *link,
		    struct resid_result *top)
{
	struct resid_result r = { 0 };

	p->xfer_top = transfers_mode >= 0 ? transfers_mode
		      : ev->host_reads ? RESID_EXACT : RESID_OPTIMISTIC;
	if (p->xfer_top == RESID_EXACT && !ev->host_reads) {
		input_error(tr->path, 0, "--residency exact: its flow has no host reads (record "
			    "them with -g std.flow:host_reads=on)");
		return -1;
	}
	for (int m = 0; m < RESID_MODES; m++) {
		if (m == RESID_EXACT && !ev->host_reads)
			continue;
		if (resid_simulate(ev, accel, m, link, m == p->xfer_top ? top : &r) != 0) {
			resid_result_free(&r);
			input_error(tr->path, 0, "out of memory");
			return -1;
		}
		fig_of(&p->xfer[m], m == p->xfer_top ? top : &r);
	}
	resid_result_free(&r);
	p->top = p->xfer[p->xfer_top];
	p->xfer_ns = p->top.h2d_ns + p->top.d2h_ns;
	for (int id = 0; id < p->nk && id < top->nfuncs; id++) {
		struct kernel *k = &p->k[id];
		const struct resid_func *f = &top->func[id];
		k->h2d_bytes = f->h2d.bytes;
		k->d2h_bytes = f->d2h.bytes;
		k->h2d_transfers = f->h2d.transfers;
		k->d2h_transfers = f->d2h.transfers;
		k->h2d_ns = f->h2d.ns;
		k->d2h_ns = f->d2h.ns;
	}
	return 0;
}

int transfers_predict(struct prediction *p, const struct trace *tr, struct models *ms,
		      struct tl_calls *rc)
{
	struct link_model link = { models_link(ms, MODEL_H2D), models_link(ms, MODEL_D2H) };
	struct resid_events ev;
	struct resid_result top = { 0 };
	unsigned char *accel = NULL;
	uint64_t *seqs = NULL;
	size_t ncalls = 0;
	int rc_ = -1, l = resid_load(&ev, tr->path);

	if (l > 0)
		input_error(tr->path, 0, "has no %s%s: record it with -g std.flow (the link rows "
			    "@h2d, @d2h need the data flow)", tr->path, DYL_FLOW_SUFFIX);
	if (l != 0)
		return -1;
	for (size_t t = 0; t < tr->tids.n; t++)
		ncalls += rc[t].n;
	accel = calloc(ev.nseq + 1, 1);
	seqs = malloc((ncalls + 1) * sizeof(*seqs));
	if (!accel || !seqs || mark(p, tr, rc, &ev, accel, seqs) != 0) {
		input_error(tr->path, 0, "out of memory");
		goto out;
	}
	p->residency = 1;
	p->host_read_events = ev.host_read_events;
	p->assumed_reads = ev.assumed_reads;
	p->flow_no_diff = !(ev.flow_flags & DYL_FLOW_F_DIFF);
	if (simulate(p, tr, &ev, accel, &link, &top) != 0)
		goto out;
	if (charge_calls(p, tr, rc, &ev, top.charge_ns, seqs) != 0) {
		input_error(tr->path, 0, "out of memory");
		goto out;
	}
	if (!(p->resid = malloc(sizeof(*p->resid)))) {
		input_error(tr->path, 0, "out of memory");
		goto out;
	}
	p->resid->ev = ev;
	p->resid->accel = accel;
	p->resid->link = link;
	resid_events_init(&ev);
	accel = NULL;
	rc_ = 0;
out:
	resid_result_free(&top);
	resid_events_free(&ev);
	free(accel);
	free(seqs);
	return rc_;
}

void transfers_free(struct prediction *p)
{
	if (!p->resid)
		return;
	resid_events_free(&p->resid->ev);
	free(p->resid->accel);
	free(p->resid);
	p->resid = NULL;
}

static void fig_add(struct xfer_fig *a, const struct xfer_fig *b, int first)
{
	a->known = first ? b->known : a->known && b->known;
	a->h2d_bytes += b->h2d_bytes;
	a->d2h_bytes += b->d2h_bytes;
	a->h2d_transfers += b->h2d_transfers;
	a->d2h_transfers += b->d2h_transfers;
	a->h2d_ns += b->h2d_ns;
	a->d2h_ns += b->d2h_ns;
}

void transfers_add(struct prediction *run, const struct prediction *p)
{
	int first = run->processes == 0;

	run->residency = first ? p->residency : run->residency && p->residency;
	run->xfer_top = first || run->xfer_top == p->xfer_top ? p->xfer_top : -1;
	for (int m = 0; m < RESID_MODES; m++)
		fig_add(&run->xfer[m], &p->xfer[m], first);
	fig_add(&run->top, &p->top, first);
	run->xfer_ns += p->xfer_ns;
	run->xfer_tail_ns += p->xfer_tail_ns;
	run->host_read_events += p->host_read_events;
	run->assumed_reads += p->assumed_reads;
	run->unmatched_calls += p->unmatched_calls;
	run->flow_no_diff += p->flow_no_diff;
}

void transfers_finish(struct prediction *p)
{
	double T = (double)p->total_ns;

	if (!p->residency)
		return;
	for (int m = 0; m < RESID_MODES; m++) {
		struct xfer_fig *f = &p->xfer[m];
		if (!f->known)
			continue;
		f->predicted_total_ns = p->predicted_total_ns + (f->h2d_ns + f->d2h_ns - p->xfer_ns);
		f->S_G = T > 0 && f->predicted_total_ns > 0 ? T / f->predicted_total_ns : NAN;
	}
	p->top.predicted_total_ns = p->predicted_total_ns;
	p->top.S_G = p->S_G;
	if (p->xfer_top >= 0)
		p->xfer[p->xfer_top].S_G = p->S_G;
}
