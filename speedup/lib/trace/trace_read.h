/* trace_read.h - one process's trace, read into what the prediction needs: its run time T,
 * per function the calls and their time, and per thread the calls of modelled
 * functions (the only ones that can be replaced or nested in a replaced call). */
#ifndef SPEEDUP_TRACE_H
#define SPEEDUP_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include "tids.h"
#include "input.h"
#include "rows.h"
#include "thread_events.h"

#define TRACE_HEADER ROWS_HEADER

struct models;

struct call {
	int64_t t_start;
	int64_t t_ns;
	int64_t work;	/* the work size; CALL_NO_WORK when the trace has none */
	/* for a model keyed on bytes too (model2d.h), the index of the call's (work, bytes)
	 * among the shapes that model has met, or CALL_NO_BYTES; CALL_NO_SHAPE for a model
	 * keyed on work alone, or a call without a work size */
	int64_t shape;
	uint32_t func;	/* id in func_names.h */
	/* 0 when the trace has no depth column.  It only orders calls that start together,
	 * so it saturates at CALL_DEPTH_MAX, which leaves room for FAULTS in the same word */
	uint32_t depth : 16;
	/* CALL_FAULTS_UNKNOWN, CALL_FAULTS_NONE, or 1 + the page faults it took (saturated:
	 * only the cap on a faulted call's excess needs the count, and 65534 faults of any
	 * cost are more than any call's excess) */
	uint32_t faults : 16;
};

#define CALL_NO_WORK (-1)	/* the trace has no work size for the call */
#define CALL_NO_SHAPE (-1)	/* its model is keyed on work alone, or it has no work */
#define CALL_NO_BYTES (-2)	/* no in_bytes or out_bytes, which its model is keyed on */
#define CALL_DEPTH_MAX ((1u << 16) - 1)
#define CALL_FAULTS_UNKNOWN 0	/* no faults column, or an empty field */
#define CALL_FAULTS_NONE 1	/* faults == 0: a reference for the faulted calls */
#define CALL_FAULTS_MAX ((1u << 16) - 1)
#define CALL_FAULTED(c) ((c)->faults > CALL_FAULTS_NONE)	/* faults > 0 */
#define CALL_FAULT_COUNT(c) ((c)->faults - 1u)	/* of a faulted call */

/* A nested row, in 16 bytes (10^7 of them are 160 MB): t_ns saturates at 2^40 - 1 ns
 * (18 minutes), which only the time shown for functions left on the host uses. */
struct inner {
	int64_t t_start;
	uint64_t t_ns : 40;
	uint64_t func : 24;	/* id in func_names.h */
};

#define INNER_T_MAX ((1ull << 40) - 1)
#define INNER_FUNC_MAX ((1u << 24) - 1)

struct thread {
	uint64_t tid;
	struct call *calls;	/* in trace order */
	size_t n, room;
	/* every row at depth > 0, of any function (sorted by start in the prediction):
	 * the calls a replaced call holds, each with tracing's cost inside its t_ns, and
	 * each run on the accelerator with it, not on the host */
	struct inner *inner;
	size_t ninner, inner_room;
};

struct func_total {
	uint64_t calls;
	uint64_t t_ns;
};

struct trace {
	const char *path;
	uint64_t total_ns;	/* T: total_ns + startup_ns, or cpu_ns when t_cpu */
	int has_startup;	/* T includes the start-up before the wrapper's clock */
	uint64_t overhead_ns;	/* tracing's own cost, taken out of T ('# overhead_ns=') */
	uint64_t overhead_left_ns;	/* ... or left in: several threads on the wall clock */
	/* overhead_ns per row: what tracing cost each recorded call on average.  A call
	 * nested in a replaced one cost it that inside the outer call's t_ns, which T no
	 * longer holds: the prediction takes it out of the outer call's time too.  0 when
	 * T keeps tracing's cost. */
	double row_cost_ns;
	/* one clock read ('# clock_cost_ns=' is two): half of each of a row's two reads
	 * falls inside its t_ns, tracing's cost that T no longer holds either; 0 when T
	 * keeps tracing's cost or the trace does not say */
	double read_ns;
	uint64_t overhead_over_cpu_ns;	/* overhead_ns, when it exceeded cpu_ns (cut to it) */
	int follow_writes_unseen;	/* std.flow follow=: '# flow_follow_writes=not seen' */
	uint64_t inner_rows;	/* rows at depth > 0 */
	int has_total;
	int t_cpu;		/* t_ns are thread CPU times: 1, T is the process's cpu_ns;
				 * -1, the trace has no cpu_ns, T is wall time (clocks mixed);
				 * 2, t_ns on the wall clock, T the cpu_ns of one thread (--cpu-time) */
	int cpu_time_refused;	/* --cpu-time, but T is wall: 1 several threads or no cpu_ns,
				 * 2 the outermost calls' wall time exceeds cpu_ns */
	int has_depth;
	int has_faults;		/* the trace has a faults column (std.faults) */
	uint64_t faulted;	/* kept calls that took page faults */
	int64_t fault_ns;	/* what one fault costs ('# fault_ns='), -1: not said */
	uint64_t rows;
	struct func_total *funcs;	/* by func id, every row */
	size_t funcs_room;
	struct tids tids;		/* struct thread by tid */
	/* for the timeline of its threads (thread_events.h) */
	int64_t pid;			/* the main thread's tid; -1 not said */
	uint64_t clock_total_ns;	/* '# total_ns=' as written: the main thread's end */
	struct thread_events ev;
};

/* Reads F (its header already recognised as a trace's) through rows.h; F stays open, the
 * caller's.  CPU_TIME: --cpu-time (T from '# cpu_ns=' for a one-thread process).
 * Functions met for the first time are matched against the models MS (model.h), which
 * keep the call shapes met (model2d.h).  Returns 0, or -1 after printing the error. */
int trace_read(struct trace *tr, const struct input_file *f, struct models *ms,
	       int keep_overhead, int cpu_time);
void trace_free(struct trace *tr);

#endif
