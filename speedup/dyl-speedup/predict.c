/* predict.c - which calls are replaced, and the arithmetic of section III.
 *
 * A call is replaced by its model's time f_k(w) (or f_k(w, bytes), model2d.h) unless
 *  - it starts inside a call already replaced on the same thread (a nested call: its
 *    time is part of the outer call's t_ns, which the outer call's f(w) replaces whole),
 *  - the trace has no work size for it, or no bytes when its model is keyed on them
 *    (its measured time is kept), or
 *  - with --only-faster, f(w) >= t (the CPU implementation is kept).
 * A replaced call that took page faults is replaced by f(w) + what its faults took
 * (fault_ref.h; the --only-faster comparison uses that sum too).
 * A call's time t is its t_ns less tracing's cost of the rows nested in it (predict.h):
 * the trace's overhead per row (trace_read.h) times their number, and less the clock read
 * its own t_ns holds (trace_read.h read_ns), which T has lost with the overhead too.
 * Calls of functions without a model are never replaced.  A call that is kept (no work
 * size, or slower) does not hide its inner calls: they run on their own and may be
 * replaced; so --only-faster decides greedily from the outside in.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fault_ref.h"
#include "func_names.h"
#include "grow.h"
#include "input.h"
#include "model.h"
#include "model2d.h"
#include "predict.h"
#include "tl_build.h"
#include "transfers.h"

/* Start order; at the same start the longer (outer) call first, then the shallower. */
static int call_order(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->t_start != y->t_start)
		return x->t_start < y->t_start ? -1 : 1;
	if (x->t_ns != y->t_ns)
		return x->t_ns > y->t_ns ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* Rows come almost in start order: the runtime writes a call when it ends, so only the
 * calls nested in another come early, by a few places.  Insertion sort fixes that in
 * linear time; past a budget of moves the order is not "almost" and qsort takes over. */
static void sort_thread(struct thread *th)
{
	struct call *c = th->calls;
	size_t budget = 8 * th->n + 4096;

	for (size_t i = 1; i < th->n; i++) {
		if (call_order(&c[i - 1], &c[i]) <= 0)
			continue;
		struct call x = c[i];
		size_t j = i;
		while (j > 0 && call_order(&c[j - 1], &x) > 0 && budget > 0) {
			c[j] = c[j - 1];
			j--;
			budget--;
		}
		c[j] = x;
		if (budget == 0) {
			qsort(c, th->n, sizeof(*c), call_order);
			return;
		}
	}
}

static int by_start(const void *a, const void *b)
{
	const struct inner *x = a, *y = b;

	return x->t_start < y->t_start ? -1 : x->t_start > y->t_start;
}

/* The first of TH's sorted nested rows that starts at or after S. */
static size_t first_at(const struct thread *th, int64_t s)
{
	size_t lo = 0, hi = th->ninner;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (th->inner[mid].t_start < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The rows nested in call C: those of TH at depth > 0 that start within it, C itself
 * aside.  Returns their number; with P (C is replaced), each is counted against its
 * function as run with C, on the accelerator, not the host.  (With t_ns in thread CPU
 * time, a call descheduled inside loses the rows at its end: never more than it holds.) */
static uint64_t inner_rows(const struct thread *th, const struct call *c, struct prediction *p)
{
	size_t lo = first_at(th, c->t_start), n = 0;
	int self = c->depth > 0;

	for (size_t i = lo; i < th->ninner && th->inner[i].t_start < c->t_start + c->t_ns; i++) {
		const struct inner *r = &th->inner[i];
		if (self && r->t_start == c->t_start && r->func == c->func &&
		    (r->t_ns == (uint64_t)c->t_ns || r->t_ns == INNER_T_MAX)) {
			self = 0;
			continue;
		}
		if (p) {
			p->k[r->func].hidden_calls++;
			p->k[r->func].hidden_t_ns += r->t_ns;
		}
		n++;
	}
	return n;
}

/* Keeps replaced call C (predicted F) for the thread's timeline, its time less tracing's
 * cost COST in it (its nested rows', its own clock read).  Not clipped at 0 there: the cost is an average (a short
 * call may hold less), and only its sum over the calls is bounded (predict_trace), so
 * the thread shifts by the same sum as Amdahl's T - t + f takes out.  0 or -1. */
static int keep_call(struct tl_calls *rc, const struct call *c, uint64_t cost, double f)
{
	int64_t t = c->t_ns - (int64_t)cost;

	if (grow(&rc->c, sizeof(*rc->c), rc->n, &rc->room, 64) != 0)
		return -1;
	rc->c[rc->n++] = (struct tl_call){ c->t_start, t, f, (int32_t)c->func, 0 };
	rc->t_sum += t;
	rc->f_sum += f;
	return 0;
}

/* Counts call C of K, its time T, when it cannot be replaced: no work size, or no bytes
 * for a model keyed on them.  1 when so. */
static int not_replaceable(struct kernel *k, const struct call *c, uint64_t t)
{
	if (c->shape == CALL_NO_BYTES) {
		k->no_bytes++;
		k->no_bytes_t_ns += t;
		return 1;
	}
	if (c->work < 0) {
		k->no_work++;
		k->no_work_t_ns += t;
		return 1;
	}
	return 0;
}

/* MS: the models the functions were matched against.  FR: the fault-free references,
 * NULL when faulted calls are replaced whole.  RC: the replaced calls are kept there for
 * the timeline.  0, or -1 out of memory. */
static int walk_thread(struct thread *th, const struct models *ms, int only_faster,
		       struct fault_refs *fr, double row_cost, double read, struct prediction *p,
		       struct tl_calls *rc)
{
	int64_t open_end = INT64_MIN;	/* end of the replaced call we are inside */

	sort_thread(th);
	/* the nested rows by start (a caller's row comes after its callees': by end) */
	for (size_t i = 1; i < th->ninner; i++)
		if (th->inner[i - 1].t_start > th->inner[i].t_start) {
			qsort(th->inner, th->ninner, sizeof(*th->inner), by_start);
			break;
		}
	for (size_t i = 0; i < th->n; i++) {
		const struct call *c = &th->calls[i];
		struct kernel *k = &p->k[c->func];
		const struct model *m;
		double f, excess = 0;
		int oor, unmatched = 0;
		uint64_t inner = 0, cost = 0, t;

		if (c->t_start < open_end) {
			k->nested++;
			continue;
		}
		if (c->work >= 0 && c->shape != CALL_NO_BYTES && th->ninner)
			inner = inner_rows(th, c, NULL);
		cost = (uint64_t)((double)inner * row_cost + 0.5);
		uint64_t own = (uint64_t)(read + 0.5);
		/* tracing's cost is an average: the kernel's sum less it is bounded below
		 * (predict_trace), each call's own share only for the decisions here */
		t = (uint64_t)c->t_ns > cost + own ? (uint64_t)c->t_ns - cost - own : 0;
		if (not_replaceable(k, c, t))
			continue;
		m = &ms->m[funcs_get((int)c->func)->model];
		/* keyed on bytes too: f of the call's shape, computed when the trace was read */
		f = m->b ? model2d_f(m, c->shape, &oor) : model_eval(m, (double)c->work, &oor);
		if (CALL_FAULTED(c) && fr)
			unmatched = !fault_refs_excess(fr, c, &excess);
		f += excess;
		if (only_faster && !(f < (double)t)) {
			k->slower++;
			k->slower_t_ns += t;
			k->slower_predicted_ns += f;
			continue;
		}
		if (inner)
			inner_rows(th, c, p);
		k->calls++;
		k->measured_ns += (uint64_t)c->t_ns;
		k->inner_rows += inner;
		k->inner_cost_ns += cost;
		k->reads_ns += own;
		k->predicted_ns += f;
		if (m->eval2) {	/* a device's kernel: what bounds this call, and its sizes */
			int64_t w, b;
			k->bound_ns[model2d_bound(m, c->shape) & 3] += f;
			model2d_sizes(m, c->shape, &w, &b);
			k->work += (double)w;
			k->bytes += (double)b;
		}
		if (CALL_FAULTED(c)) {
			k->fault_calls++;
			k->fault_kept_ns += excess;
			k->fault_unmatched += unmatched;
		}
		if (m->setup_ns > 0)
			p->setup_files |= 1ull << (m->file_id & 63);
		if (oor) {
			k->out_of_range++;
			k->out_of_range_t_ns += t;
			k->out_of_range_predicted_ns += f;
		}
		open_end = c->t_start + c->t_ns;
		if (keep_call(rc, c, cost + own, f) != 0)
			return -1;
	}
	p->threads += rc->n > 0;	/* RC holds this thread's replaced calls only */
	return 0;
}

/* The per-kernel counts summed into P's totals. */
static void sum_kernels(struct prediction *p)
{
	p->calls = p->t_ns = p->measured_ns = 0;
	p->predicted_ns = 0;
	p->out_of_range = p->no_work = p->no_bytes = p->nested = p->slower = 0;
	p->inner_rows = p->inner_cost_ns = p->reads_ns = 0;
	p->fault_calls = p->fault_unmatched = 0;
	p->fault_kept_ns = 0;
	for (int id = 0; id < p->nk; id++) {
		const struct kernel *k = &p->k[id];
		p->calls += k->calls;
		p->t_ns += k->t_ns;
		p->measured_ns += k->measured_ns;
		p->predicted_ns += k->predicted_ns;
		p->out_of_range += k->out_of_range;
		p->no_work += k->no_work;
		p->no_bytes += k->no_bytes;
		p->nested += k->nested;
		p->inner_rows += k->inner_rows;
		p->inner_cost_ns += k->inner_cost_ns;
		p->reads_ns += k->reads_ns;
		p->slower += k->slower;
		p->fault_calls += k->fault_calls;
		p->fault_kept_ns += k->fault_kept_ns;
		p->fault_unmatched += k->fault_unmatched;
	}
}

/* The replaced calls of each thread, and the timeline built from them. */
static int walk_threads(struct trace *tr, const struct models *ms, int only_faster,
			struct fault_refs *fr, struct prediction *p, struct tl_calls *rc)
{
	for (size_t t = 0; t < tr->tids.n; t++)
		if (walk_thread(tids_item(&tr->tids, t), ms, only_faster, fr, tr->row_cost_ns,
				tr->read_ns, p, &rc[t]) != 0) {
			input_error(tr->path, 0, "out of memory");
			return -1;
		}
	return 0;
}

int predict_trace(struct trace *tr, struct models *ms, int only_faster, int faults_replaced,
		  int devices, struct prediction *p)
{
	struct fault_refs fr;
	struct tl_calls *rc;
	int rc_failed;

	memset(p, 0, sizeof(*p));
	p->path = tr->path;
	p->processes = 1;
	p->total_ns = tr->total_ns;
	p->t_cpu = tr->t_cpu;
	p->cpu_time_refused = tr->cpu_time_refused;
	p->has_startup = tr->has_startup;
	p->overhead_ns = tr->overhead_ns;
	p->overhead_left_ns = tr->overhead_left_ns;
	p->row_cost_ns = tr->row_cost_ns;
	p->overhead_over_cpu_ns = tr->overhead_over_cpu_ns;
	p->follow_writes_unseen = tr->follow_writes_unseen;
	p->rows = tr->rows;
	p->has_faults = tr->has_faults;
	p->nk = funcs_count();
	p->k = calloc((size_t)p->nk + 1, sizeof(*p->k));
	if (!p->k) {
		input_error(tr->path, 0, "out of memory");
		return -1;
	}
	if (!faults_replaced && fault_refs_build(&fr, tr) != 0) {
		predict_free(p);
		return -1;
	}
	for (int id = 0; id < p->nk; id++) {
		p->k[id].all_calls = tr->funcs[id].calls;
		p->k[id].all_t_ns = tr->funcs[id].t_ns;
	}
	rc = calloc(tr->tids.n + 1, sizeof(*rc));
	rc_failed = !rc ||
		    walk_threads(tr, ms, only_faster, faults_replaced ? NULL : &fr, p, rc) != 0;
	if (!rc)
		input_error(tr->path, 0, "out of memory");
	if (!faults_replaced)
		fault_refs_free(&fr);
	for (int id = 0; id < p->nk; id++) {
		struct kernel *k = &p->k[id];
		uint64_t out = k->inner_cost_ns + k->reads_ns;
		k->t_ns = k->measured_ns > out ? k->measured_ns - out : 0;
	}
	/* each accelerator this process used is set up once (its model file's setup_ns) */
	for (int i = 0; i < ms->n; i++) {
		const struct model *m = &ms->m[i];
		uint64_t bit = 1ull << (m->file_id & 63);
		if ((p->setup_files & bit) && !(p->setup_counted & bit)) {
			p->setup_counted |= bit;
			p->setup_ns += m->setup_ns;
		}
	}
	sum_kernels(p);
	/* link rows: the transfers, into T' and the replaced calls' times */
	if (!rc_failed && transfers_wanted(ms))
		rc_failed = transfers_predict(p, tr, ms, rc) != 0;
	if (!rc_failed)
		rc_failed = tl_predict(p, tr, rc, devices) != 0;
	if (!rc_failed && p->timeline)
		p->timeline_total_ns += p->xfer_tail_ns;
	for (size_t t = 0; rc && t < tr->tids.n; t++)
		free(rc[t].c);
	free(rc);
	if (rc_failed) {
		predict_free(p);
		return -1;
	}
	predict_finish(p);
	return 0;
}

int predict_add(struct prediction *run, const struct prediction *p)
{
	if (run->nk < p->nk) {
		if (grow_to(&run->k, sizeof(*run->k), (size_t)p->nk, &run->kroom, 16) != 0) {
			input_error(NULL, 0, "out of memory");
			return -1;
		}
		run->nk = p->nk;
	}
	for (int id = 0; id < p->nk; id++) {
		struct kernel *r = &run->k[id];
		const struct kernel *k = &p->k[id];
		r->all_calls += k->all_calls;
		r->all_t_ns += k->all_t_ns;
		r->calls += k->calls;
		r->t_ns += k->t_ns;
		r->measured_ns += k->measured_ns;
		r->predicted_ns += k->predicted_ns;
		r->out_of_range += k->out_of_range;
		r->out_of_range_t_ns += k->out_of_range_t_ns;
		r->out_of_range_predicted_ns += k->out_of_range_predicted_ns;
		r->no_work += k->no_work;
		r->no_work_t_ns += k->no_work_t_ns;
		r->no_bytes += k->no_bytes;
		r->no_bytes_t_ns += k->no_bytes_t_ns;
		r->nested += k->nested;
		r->hidden_calls += k->hidden_calls;
		r->hidden_t_ns += k->hidden_t_ns;
		r->inner_rows += k->inner_rows;
		r->inner_cost_ns += k->inner_cost_ns;
		r->reads_ns += k->reads_ns;
		r->slower += k->slower;
		r->slower_t_ns += k->slower_t_ns;
		r->slower_predicted_ns += k->slower_predicted_ns;
		r->fault_calls += k->fault_calls;
		r->fault_kept_ns += k->fault_kept_ns;
		r->fault_unmatched += k->fault_unmatched;
		r->h2d_bytes += k->h2d_bytes;
		r->d2h_bytes += k->d2h_bytes;
		r->h2d_transfers += k->h2d_transfers;
		r->d2h_transfers += k->d2h_transfers;
		r->h2d_ns += k->h2d_ns;
		r->d2h_ns += k->d2h_ns;
		for (int b = 0; b < 4; b++)
			r->bound_ns[b] += k->bound_ns[b];
		r->work += k->work;
		r->bytes += k->bytes;
	}
	transfers_add(run, p);
	/* processes that ran one after another: their run times add up (in one clock) */
	run->t_cpu = run->processes == 0 || run->t_cpu == p->t_cpu ? p->t_cpu
		     : run->t_cpu > 0 && p->t_cpu > 0 ? 2 : -1;	/* CPU T either way: 2 */
	run->has_startup |= p->has_startup;
	run->has_faults += p->has_faults;
	run->processes += p->processes;
	run->total_ns += p->total_ns;
	run->overhead_ns += p->overhead_ns;
	run->overhead_left_ns += p->overhead_left_ns;
	/* the processes' costs per row, weighted by their rows */
	double cost_sum = run->row_cost_ns * (double)run->rows + p->row_cost_ns * (double)p->rows;
	run->rows += p->rows;
	run->row_cost_ns = run->rows ? cost_sum / (double)run->rows : 0;
	run->setup_ns += p->setup_ns;
	if (p->threads > run->threads)
		run->threads = p->threads;
	/* the run's T' is its processes' whatever predicted them; queueing is per process */
	run->timeline += p->timeline;
	run->timeline_total_ns += p->predicted_total_ns;
	run->threads_ns += p->timeline ? p->threads_ns : (double)p->total_ns;
	run->queue_wait_ns += p->queue_wait_ns;
	run->waited_calls += p->waited_calls;
	run->devices = p->devices;
	sum_kernels(run);
	predict_finish(run);
	return 0;
}

void predict_finish(struct prediction *p)
{
	/* the accelerator's set-up is part of the accelerated kernels' cost */
	/* (link rows: the transfers too; 0 without them) */
	double T = (double)p->total_ns, t = (double)p->t_ns,
	       f = p->predicted_ns + p->setup_ns + p->xfer_ns;

	p->predicted_total_ns = T - t + f;
	/* S_P: NAN when nothing is replaced (0/0), INFINITY when the model says 0 ns */
	p->S_P = t > 0 ? (f > 0 ? t / f : INFINITY) : NAN;
	if (T > 0) {
		p->P = t / T;
		/* P / S_P written as f / T: the same number, and no 0/0 when S_P is undefined.
		 * T' <= 0 (the replaced calls took longer than T: threads on the wall clock,
		 * or --cpu-time and calls that waited on the wall clock) gives no speedup at
		 * all, not a negative or infinite one: undefined, and a note says why. */
		p->S_G = p->predicted_total_ns > 0 ? 1.0 / ((1.0 - p->P) + f / T) : NAN;
	} else {
		/* total_ns=0: only a process with no kernel time makes sense */
		p->P = t > 0 ? NAN : 0;
		p->S_G = (t > 0 || f > 0) ? NAN : 1;
	}
	p->amdahl_total_ns = p->predicted_total_ns;
	if (p->timeline) {
		/* the critical path through the threads: S_G = T / T', defined for T' > 0 */
		p->predicted_total_ns = p->timeline_total_ns;
		p->S_G = T > 0 && p->predicted_total_ns > 0 ? T / p->predicted_total_ns : NAN;
		/* threads that ran at once: their calls' time may exceed T, and P is their share
		 * of the threads' time instead (never above 1) */
		if (p->threads_ns > T)
			p->P = t / p->threads_ns;
	}
	transfers_finish(p);
}

int predict_nothing(const struct prediction *p)
{
	return p->calls == 0 && p->slower == 0 && p->no_work + p->no_bytes > 0;
}

void predict_free(struct prediction *p)
{
	transfers_free(p);
	tl_release(p->tl);
	p->tl = NULL;
	free(p->k);
	p->k = NULL;
	p->nk = 0;
	p->kroom = 0;
}
