/* summary.c - per function: calls, total, self time, mean, min, median, max.
 *
 * One pass over the rows, in memory bounded by the functions and threads, not the rows.
 * Per function the call times go to a sketch (qsketch.h): the median is exact up to
 * 4096 calls, within 1 % past them.  Per thread the timed calls' spans, functions and
 * depths (24 bytes each) wait in a batch; the batch is put in start order and walked with
 * a stack of the calls still open: a call is nested in the innermost open call whose span
 * holds it and whose depth is smaller (without a depth column: whose span holds it), and
 * its time is taken off that call's self time.  The runtime writes a thread's rows in the
 * order the calls end, so start order is that order with each outer call moved back over
 * its inner ones: an insertion sort does it in time proportional to the nesting; any
 * other order falls back to qsort.  A batch is walked once it holds BATCH calls and a
 * call at depth 0 ends it: in end order every call nested in one before it came before
 * it, so the batches give the self times one whole walk would.  (Without a depth column,
 * or with no call at depth 0, a thread's calls wait to the end, as they always did.)
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "filter.h"
#include "func_names.h"
#include "grow.h"
#include "input.h"
#include "qsketch.h"
#include "summary.h"
#include "select.h"
#include "tids.h"

struct call {
	int64_t start, end;
	uint32_t func, depth;
};

struct thread {
	uint64_t tid;
	struct call *calls;
	size_t n, room;
};

struct acc {
	uint64_t calls, timed;
	int64_t total, self, min, max;
	uint64_t bytes, with_bytes, work, with_work;
	struct qsketch times;
};

/* the calls a thread's batch holds before it is walked (at a call of depth 0) */
#define BATCH 8192

struct state {
	struct tids tids;	/* struct thread by tid */
	struct acc *acc;	/* by func id */
	size_t acc_room;
};

static struct thread *thread_of(struct state *st, uint64_t tid)
{
	int fresh;
	struct thread *th = tids_get(&st->tids, tid, sizeof(*th), &fresh);

	if (th && fresh)
		th->tid = tid;
	return th;
}

static inline struct acc *acc_of(struct state *st, uint32_t func)
{
	if (func < st->acc_room)
		return &st->acc[func];
	if (grow_to(&st->acc, sizeof(*st->acc), (size_t)func + 1, &st->acc_room, 64) != 0)
		return NULL;
	return &st->acc[func];
}

static int push(void **arr, size_t *n, size_t *room, size_t size, const void *item)
{
	if (grow(arr, size, *n, room, 1024))
		return -1;
	memcpy((char *)*arr + *n * size, item, size);
	(*n)++;
	return 0;
}

/* Start order: earlier start first; at one start, the outer call (smaller depth, then
 * later end) first. */
static inline int before(const struct call *a, const struct call *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	if (a->depth != b->depth)
		return a->depth < b->depth;
	return a->end > b->end;
}

static int cmp_calls(const void *x, const void *y)
{
	const struct call *a = x, *b = y;
	return before(a, b) ? -1 : before(b, a) ? 1 : 0;
}

static void start_order(struct call *c, size_t n)
{
	size_t budget = 64 * n + 4096;

	for (size_t i = 1; i < n; i++) {
		if (!before(&c[i], &c[i - 1]))
			continue;
		struct call x = c[i];
		size_t j = i;
		while (j > 0 && before(&x, &c[j - 1])) {
			c[j] = c[j - 1];
			j--;
		}
		c[j] = x;
		if ((i - j) > budget) {
			qsort(c, n, sizeof(*c), cmp_calls);
			return;
		}
		budget -= i - j;
	}
}

/* Takes each call's time off its caller's self time. */
static int self_times(struct state *st, struct thread *th, int has_depth, uint64_t *nested)
{
	struct call **stack = NULL;
	size_t top = 0, room = 0;

	start_order(th->calls, th->n);
	for (size_t i = 0; i < th->n; i++) {
		struct call *c = &th->calls[i];
		while (top > 0) {
			struct call *p = stack[top - 1];
			if (c->start >= p->start && c->end <= p->end &&
			    (!has_depth || c->depth > p->depth))
				break;
			top--;
		}
		if (top > 0) {
			st->acc[stack[top - 1]->func].self -= c->end - c->start;
			(*nested)++;
		}
		if (grow(&stack, sizeof(*stack), top, &room, 64)) {
			free(stack);
			return -1;
		}
		stack[top++] = c;
	}
	free(stack);
	return 0;
}

static int by_total(const void *x, const void *y)
{
	const struct func_stats *a = x, *b = y;

	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return strcmp(funcs_get((int)a->func)->name, funcs_get((int)b->func)->name);
}

static void state_free(struct state *st)
{
	for (size_t t = 0; t < st->tids.n; t++)
		free(((struct thread *)tids_item(&st->tids, t))->calls);
	tids_free(&st->tids);
	for (size_t f = 0; f < st->acc_room; f++)
		qsketch_free(&st->acc[f].times);
	free(st->acc);
}

/* S's functions, from what ST gathered: one each with a call, largest total first.
 * 0, or -1 out of memory. */
static int gather_funcs(struct state *st, struct trace_summary *s)
{
	size_t o = 0;

	for (size_t f = 0; f < st->acc_room; f++)
		s->nfuncs += st->acc[f].calls > 0;
	s->funcs = calloc(s->nfuncs ? s->nfuncs : 1, sizeof(*s->funcs));
	if (!s->funcs)
		return -1;
	for (size_t f = 0; f < st->acc_room; f++) {
		struct acc *a = &st->acc[f];
		if (!a->calls)
			continue;
		struct func_stats *fs = &s->funcs[o++];
		fs->func = (uint32_t)f;
		fs->calls = a->calls;
		fs->timed = a->timed;
		fs->total_ns = a->total;
		fs->self_ns = a->self;
		fs->min_ns = a->timed ? a->min : -1;
		fs->max_ns = a->timed ? a->max : -1;
		fs->mean_ns = a->timed ? (double)a->total / (double)a->timed : -1;
		fs->median_ns = qsketch_median(&a->times);
		fs->bytes = a->bytes;
		fs->with_bytes = a->with_bytes;
		fs->work = a->work;
		fs->with_work = a->with_work;
	}
	qsort(s->funcs, s->nfuncs, sizeof(*s->funcs), by_total);
	return 0;
}

/* Adds R's bytes and work to A (what dyl-trace diff sets side by side). */
static void add_sizes(struct acc *a, const struct trace_row *r)
{
	if (r->in_bytes != ROWS_NONE || r->out_bytes != ROWS_NONE) {
		a->with_bytes++;
		a->bytes += (uint64_t)(r->in_bytes > 0 ? r->in_bytes : 0) +
			    (uint64_t)(r->out_bytes > 0 ? r->out_bytes : 0);
	}
	if (r->work != ROWS_NONE) {
		a->with_work++;
		a->work += (uint64_t)r->work;
	}
}

/* The calls FILTER keeps (NULL: all), by GROUP's key (NULL: by function). */
static int summary_read_by(struct trace_src *src, struct trace_summary *s, summary_group_fn group,
			   void *ctx, struct row_filter *filter)
{
	struct state st = { 0 };
	struct thread *th = NULL;
	struct seq_seen seen = { 0 };
	struct trace_row r;
	int rc;

	memset(s, 0, sizeof(*s));
	if (filter && !filter_active(filter))
		filter = NULL;	/* (a call less a row) */
	while ((rc = rows_next(src, &r)) > 0) {
		if (rows_seq_check(src, &seen, &r) != 0) {
			rc = -1;
			break;
		}
		if (filter && !filter_keep(filter, r.func, r.t_start))
			continue;
		int key = group ? group(ctx, src, &r) : (int)r.func;
		if (key == -2) {
			rc = -1;	/* (its message given) */
			break;
		}
		struct acc *a = key >= 0 ? acc_of(&st, (uint32_t)key) : NULL;
		if (!a)
			goto oom;
		a->calls++;
		add_sizes(a, &r);
		s->rows++;
		if (r.t_ns == ROWS_NONE) {
			s->untimed++;
			continue;
		}
		if (!a->timed || r.t_ns < a->min)
			a->min = r.t_ns;
		if (!a->timed || r.t_ns > a->max)
			a->max = r.t_ns;
		a->timed++;
		a->total += r.t_ns;
		a->self += r.t_ns;
		if (qsketch_add(&a->times, r.t_ns) != 0)
			goto oom;
		if ((!th || th->tid != r.tid) && !(th = thread_of(&st, r.tid)))
			goto oom;
		struct call c = { r.t_start, r.t_start + r.t_ns, (uint32_t)key, r.depth };
		if (push((void **)&th->calls, &th->n, &th->room, sizeof(c), &c) != 0)
			goto oom;
		if (th->n >= BATCH && c.depth == 0 && src->depth_col >= 0) {
			if (self_times(&st, th, 1, &s->nested) != 0)
				goto oom;
			th->n = 0;
		}
	}
	rows_seq_free(&seen);
	if (rc < 0) {
		state_free(&st);
		return -1;
	}
	s->nthreads = st.tids.n;
	for (size_t t = 0; t < st.tids.n; t++) {
		struct thread *th = tids_item(&st.tids, t);
		if (self_times(&st, th, src->depth_col >= 0, &s->nested) != 0)
			goto oom;
		th->n = 0;
		free(th->calls);
		th->calls = NULL;
	}
	if (gather_funcs(&st, s) != 0)
		goto oom;
	state_free(&st);
	return 0;
oom:
	input_error(src->path, 0, "out of memory");
	rows_seq_free(&seen);
	state_free(&st);
	summary_free(s);
	return -1;
}

int summary_read(struct trace_src *src, struct trace_summary *s)
{
	return summary_read_by(src, s, NULL, NULL, NULL);
}

int summary_read_filtered(struct trace_src *src, struct trace_summary *s,
			  struct row_filter *filter)
{
	return summary_read_by(src, s, NULL, NULL, filter);
}

int summary_read_grouped(struct trace_src *src, struct trace_summary *s, summary_group_fn group,
			 void *ctx)
{
	return summary_read_by(src, s, group, ctx, NULL);
}

void summary_free(struct trace_summary *s)
{
	free(s->funcs);
	memset(s, 0, sizeof(*s));
}
