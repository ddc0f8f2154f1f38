/* trace_read.c - reading a trace for dyl-speedup: the rows come from rows.c (which parses and
 * checks them, and reads the '# total_ns=N' footer); what is done with them is here.
 *
 * The loop runs once per row (10^7 rows and more), so it does only this: add the call to
 * its function's totals, match a function to its model when it is first met, keep the
 * call only if a model matches the function, and keep a nested row (depth > 0: none in
 * a trace without a depth column) in 16 bytes, since a replaced call may hold it
 * (predict.c).  Row order is not relied upon here (the runtime writes a call when it
 * ends, so inner calls come before outer ones); the prediction sorts by start time.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "dyl_keys.h"
#include "func_names.h"
#include "grow.h"
#include "model.h"
#include "model2d.h"
#include "rows.h"
#include "tids.h"
#include "trace_read.h"

static int grow_funcs(struct trace *tr, size_t need)
{
	return grow_to(&tr->funcs, sizeof(*tr->funcs), need, &tr->funcs_room, 64);
}

static struct thread *thread_of(struct trace *tr, uint64_t tid)
{
	int fresh;
	struct thread *th = tids_get(&tr->tids, tid, sizeof(*th), &fresh);

	if (th && fresh)
		th->tid = tid;
	return th;
}

/* A new call at the end of TH's, to be filled in; NULL when out of memory. */
static struct call *new_call(struct thread *th)
{
	if (grow(&th->calls, sizeof(*th->calls), th->n, &th->room, 1024))
		return NULL;
	return &th->calls[th->n++];
}

/* Functions 0..MS->matched-1 have their model: each name is matched once, when first
 * met (ids are given in order; the functions are shared by all the traces). */
static void match_new_funcs(struct models *ms)
{
	for (; ms->matched < funcs_count(); ms->matched++)
		funcs_get(ms->matched)->model = models_match(ms, funcs_get(ms->matched)->name);
}

/* Takes tracing's cost OVERHEAD out of T, and sets the cost of one row: the measure
 * spread evenly over the rows (write-outs with the calls), less OUTSIDE, what was spent
 * with no call open ('# overhead_outside_ns=': set-up, the exit's write-out).  T holds at least
 * the outermost calls' time TOP, less the tracing each of those TOP_ROWS holds itself
 * (READ: half of each of its two clock reads falls inside its t_ns), and the rows
 * nested in them (a share S of the rows) cost tracing x * S of it; so the x taken out
 * is the largest with
 *	x <= OVERHEAD,  T - x >= TOP - TOP_ROWS * READ - x * S,  x * S <= TOP
 * (all of OVERHEAD, save for a measure that does not fit the trace).  Without READ, a
 * loop of 10^7 tiny calls kept T at their summed t_ns, 167 ms, where the program alone
 * ran ~30 ms: each t_ns held a 12 ns clock read around a 3 ns call. */
static void take_overhead(struct trace *tr, uint64_t overhead, uint64_t outside, uint64_t top,
			  uint64_t top_rows, double read)
{
	double share = tr->rows ? (double)tr->inner_rows / (double)tr->rows : 0;
	double floor = (double)top - (double)top_rows * read;
	double room = (double)tr->total_ns - (floor > 0 ? floor : 0), x = (double)overhead;

	if (room <= 0)
		x = 0;		/* T holds less than the calls: nothing to take (predict.h) */
	else if (share < 1 && x * (1 - share) > room)
		x = room / (1 - share);
	if (share > 0 && x * share > (double)top)
		x = (double)top / share;
	tr->overhead_ns = x < (double)overhead ? (uint64_t)x : overhead;
	if (tr->overhead_ns > tr->total_ns)
		tr->overhead_ns = tr->total_ns;
	tr->total_ns -= tr->overhead_ns;
	/* what was spent with no call open (set-up, the exit's write-out) is in no row's
	 * t_ns: not spread over the rows, or a replaced call holding most rows would lose
	 * it from its time as well as T did (in the share of it taken out) */
	double in_rows = (double)tr->overhead_ns;
	if (overhead > 0 && outside > 0)
		in_rows -= (double)outside * (double)tr->overhead_ns / (double)overhead;
	tr->row_cost_ns = tr->rows && in_rows > 0 ? in_rows / (double)tr->rows : 0;
}

/* What the row loop learns besides the calls it keeps. */
struct read_state {
	struct models *ms;	/* the models, which the functions are matched against */
	struct thread *th;	/* the last row's thread */
	uint64_t top_t_ns;	/* the outermost calls' time: what T holds at least */
	uint64_t top_rows;	/* their number */
	uint64_t first_tid;
	int threads;		/* threads with rows: 0, 1, or 2 for more */
	uint64_t faulted;
};

/* Adds row R to TR: its function's totals, and the call or nested row kept for the
 * prediction.  0, -1 out of memory, -2 after an error was given. */
static int add_row(struct trace *tr, struct read_state *st, const struct trace_row *r,
		   const char *path, unsigned long lineno)
{
	struct thread *th = st->th;
	struct call *c;
	int64_t shape = CALL_NO_SHAPE;
	int mi;

	if (r->func >= (uint32_t)st->ms->matched)
		match_new_funcs(st->ms);
	if (r->func >= tr->funcs_room && grow_funcs(tr, (size_t)r->func + 1) != 0)
		return -1;
	tr->funcs[r->func].calls++;
	tr->funcs[r->func].t_ns += (uint64_t)r->t_ns;
	tr->rows++;
	if (r->depth == 0)
		st->top_t_ns += (uint64_t)r->t_ns, st->top_rows++;
	if (st->threads == 0)
		st->first_tid = r->tid, st->threads = 1;
	else if (r->tid != st->first_tid)
		st->threads = 2;
	mi = funcs_get((int)r->func)->model;
	if (mi < 0 && r->depth == 0)
		return 0;	/* never replaced, never inside a replaced call */
	if ((!th || th->tid != r->tid) && !(th = st->th = thread_of(tr, r->tid)))
		return -1;
	if (r->depth > 0) {
		if (grow(&th->inner, sizeof(*th->inner), th->ninner, &th->inner_room, 1024))
			return -1;
		if (r->func > INNER_FUNC_MAX) {
			input_error(path, lineno, "more than %u functions", INNER_FUNC_MAX);
			return -2;
		}
		th->inner[th->ninner++] = (struct inner){ r->t_start,
			(uint64_t)r->t_ns < INNER_T_MAX ? (uint64_t)r->t_ns : INNER_T_MAX, r->func };
		tr->inner_rows++;
	}
	if (mi < 0)
		return 0;	/* never replaced, never the outer call of a replaced one */
	if (st->ms->m[mi].b && r->work >= 0) {
		int64_t bytes = rows_call_bytes(r);
		if (bytes == ROWS_NONE)
			shape = CALL_NO_BYTES;
		else if ((shape = model2d_shape(&st->ms->m[mi], r->work, bytes)) < 0)
			return -1;
	}
	if (!(c = new_call(th)))
		return -1;
	/* filled in place: the calls kept are most of the rows of a big trace */
	*c = (struct call){ r->t_start, r->t_ns, r->work, shape, r->func,
			    r->depth < CALL_DEPTH_MAX ? r->depth : CALL_DEPTH_MAX,
			    /* ROWS_NONE (-1): unknown; else 1 + faults, saturated */
			    r->faults < 0 ? CALL_FAULTS_UNKNOWN
			    : r->faults < CALL_FAULTS_MAX ? (uint32_t)r->faults + 1 : CALL_FAULTS_MAX };
	st->faulted += r->faults > 0;
	return 0;
}

/* T, the process's run time, from the footer: wall or CPU time, with the start-up. */
static void set_total(struct trace *tr, const struct trace_src *src, const struct read_state *st,
		      int cpu_time)
{
	tr->total_ns = (uint64_t)src->total_ns;
	tr->has_total = 1;
	/* Calls timed in thread CPU time (std.time clock=thread) are set against the
	 * process's CPU time: the wall time would count waiting, which no t_ns holds, and P
	 * would shrink with the machine's load. */
	if (src->thread_clock) {
		tr->t_cpu = src->cpu_ns >= 0 ? 1 : -1;
		if (src->cpu_ns >= 0)
			tr->total_ns = (uint64_t)src->cpu_ns;
	}
	/* --cpu-time: one thread's calls timed on the wall clock, set against its process's
	 * CPU time.  What others held the core for (a loaded machine; the kernel's workers
	 * writing the trace out, which preempted traced runs here for 14-20 ms of a 0.55 s
	 * run) is then out of T, and stays only in the calls it fell inside.  Several
	 * threads' CPU times add up to no run time: those traces keep the wall. */
	if (cpu_time && !src->thread_clock) {
		if (src->cpu_ns < 0 || st->threads > 1) {
			tr->cpu_time_refused = 1;
		} else if (st->top_t_ns > (uint64_t)src->cpu_ns) {
			/* the calls waited for a core longer than the process ran (a loaded
			 * machine): a CPU time T would hold less than they took, T' < 0 */
			tr->cpu_time_refused = 2;
		} else {
			tr->total_ns = (uint64_t)src->cpu_ns;
			tr->t_cpu = 2;
		}
	}
	/* The process ran before the wrapper's clock started (exec, the dynamic loader:
	 * about a millisecond, a few per cent of a short accelerated run); cpu_ns has it. */
	if (tr->t_cpu <= 0 && src->startup_ns >= 0) {
		tr->total_ns += (uint64_t)src->startup_ns;
		tr->has_startup = 1;
	}
}

/* What tracing cost the process (the runtime's own measure: its calls timed whole,
 * write-outs, set-up) is not the program's: out of T, so out of T' too.  Never below
 * the calls' own time, which T holds whatever the measure says.  The measure is a sum
 * over the threads: on the wall clock, several threads' costs overlap in time (and a
 * thread's includes its waits for a core), so there it stays in T. */
static void set_overhead(struct trace *tr, const struct trace_src *src, const struct read_state *st)
{
	if (src->overhead_ns <= 0)
		return;
	if (st->threads > 1 && tr->t_cpu <= 0) {
		tr->overhead_left_ns = (uint64_t)src->overhead_ns;
		return;
	}
	uint64_t o = (uint64_t)src->overhead_ns;
	/* Tracing's cost is work this process did: never more than its CPU time.  A
	 * measure above it took in waits (a call timed whole, and scaled to the 31 after
	 * it, that was preempted on a loaded machine: 150 ms in a run of 84 ms CPU here);
	 * taken whole, it would leave T next to nothing. */
	if (src->cpu_ns >= 0 && o > (uint64_t)src->cpu_ns) {
		tr->overhead_over_cpu_ns = o;
		o = (uint64_t)src->cpu_ns;
	}
	/* one clock read per row ('# clock_cost_ns=' is two): on the wall clock only, as
	 * the runtime measured it (thread CPU time reads cost another amount) */
	tr->read_ns = src->clock_cost_ns > 0 && !src->thread_clock ? (double)src->clock_cost_ns / 2 : 0;
	uint64_t outside = src->overhead_outside_ns > 0 ? (uint64_t)src->overhead_outside_ns : 0;
	take_overhead(tr, o, outside < o ? outside : o, st->top_t_ns, st->top_rows, tr->read_ns);
}

/* '# handle_only=NAME PARAMS BYTES' notes: kept on NAME's func (func_names.h), for the
 * report's note on a replaced kernel whose buffers hang from a handle; and std.flow's
 * '# flow_follow_writes='.  -1: no memory. */
static int handle_notes(struct trace *tr, const struct trace_src *src)
{
	static const char key[] = DYL_KEY_HANDLE_ONLY "=", follow[] = DYL_KEY_FLOW_FOLLOW_WRITES "=";

	for (size_t i = 0; i < src->nnotes; i++) {
		const struct trace_note *nt = &src->notes[i];
		if (nt->len >= sizeof(follow) - 1 && !memcmp(nt->text, follow, sizeof(follow) - 1))
			tr->follow_writes_unseen = 1;
		if (nt->len <= sizeof(key) - 1 || memcmp(nt->text, key, sizeof(key) - 1))
			continue;
		const char *v = nt->text + sizeof(key) - 1, *end = nt->text + nt->len;
		const char *sp = memchr(v, ' ', (size_t)(end - v));
		if (!sp || sp == v)
			continue;
		for (const char *c = sp + 1; c < end; c++)
			if (*c < ' ' || *c > '~')
				sp = NULL;	/* (printed as it is: printable text only) */
		if (!sp)
			continue;
		int added, id = funcs_intern(v, (size_t)(sp - v), &added);
		if (id < 0)
			return -1;
		struct func *fn = funcs_get(id);
		if (!fn->handle_only && !(fn->handle_only = strndup(sp + 1, (size_t)(end - sp - 1))))
			return -1;
	}
	return 0;
}

int trace_read(struct trace *tr, const struct input_file *f, struct models *ms,
	       int keep_overhead, int cpu_time)
{
	struct trace_src src;
	struct trace_row r;
	struct read_state st = { .ms = ms };
	int rc;

	memset(tr, 0, sizeof(*tr));
	tr->path = f->path;
	/* the file was told to be a trace by its header: the rows are what is left to check */
	if (rows_open_file(&src, f, ROWS_NEED_TIMES | ROWS_KEEP_PARTIAL) != 0)
		return -1;
	tr->has_depth = src.depth_col >= 0;
	tr->has_faults = src.faults_col >= 0;
	tr->fault_ns = src.fault_ns;
	while ((rc = rows_next(&src, &r)) > 0) {
		int added = add_row(tr, &st, &r, f->path, src.lineno);
		if (added == -1)
			goto oom;
		if (added < 0)
			goto fail;
	}
	if (rc < 0)
		goto fail;
	tr->faulted = st.faulted;
	if (src.total_ns < 0) {
		input_error(f->path, 0, "no '# total_ns=N' line: the process's run time T is unknown "
			    "(did it end before the wrapper could write it?)");
		goto fail;
	}
	tr->pid = src.pid;
	tr->clock_total_ns = (uint64_t)src.total_ns;
	if (thread_events_read(&tr->ev, &src, f->path) != 0)
		goto fail;
	set_total(tr, &src, &st, cpu_time);
	if (!keep_overhead)
		set_overhead(tr, &src, &st);
	if (handle_notes(tr, &src) != 0)
		goto oom;
	match_new_funcs(ms);
	if (grow_funcs(tr, (size_t)funcs_count()) != 0)
		goto oom;
	rows_close(&src);
	return 0;
oom:
	input_error(f->path, src.lineno, "out of memory");
fail:
	rows_close(&src);
	return -1;
}

void trace_free(struct trace *tr)
{
	for (size_t t = 0; t < tr->tids.n; t++) {
		free(((struct thread *)tids_item(&tr->tids, t))->calls);
		free(((struct thread *)tids_item(&tr->tids, t))->inner);
	}
	free(tr->funcs);
	tids_free(&tr->tids);
	thread_events_free(&tr->ev);
	memset(tr, 0, sizeof(*tr));
}
