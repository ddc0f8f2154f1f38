/* predict.h - the paper's prediction (section III) for one process, and for a run of
 * several processes:
 *   P   = sum t_ki / T                        the share of the run spent in the kernels
 *   S_P = sum t_ki / sum f_k(w_ki)            the kernels' own speedup
 *   S_G = 1 / ((1 - P) + P / S_P)             Amdahl: the whole program's speedup
 *   predicted T' = T - sum t_ki + sum f_k(w_ki) + setup   (S_G = T / T')
 * where setup is the once-per-process cost of each accelerator used ('# setup_ns=' in
 * its model file), counted with the kernels' modelled time (in S_P too)
 * where the sums run over the replaced calls.  t_ki is the call's t_ns less tracing's
 * cost of the wrapped calls nested in it: that cost is taken out of T ('# overhead_ns='),
 * and the outer call's t_ns holds it, so it must come out of both or neither (T' is
 * then the same whether the nested functions were wrapped or not).  A replaced call that took page faults
 * (a faults column) stands for f_k(w_ki) + its excess over the fault-free calls
 * (fault_ref.h): the faults are the program's, an accelerator takes them too. */
#ifndef SPEEDUP_PREDICT_H
#define SPEEDUP_PREDICT_H

#include <stdint.h>
#include "trace_read.h"

struct timeline;

/* What happened to one traced function's calls. */
struct kernel {
	uint64_t all_calls, all_t_ns;	/* every call in the trace */
	uint64_t calls, t_ns;		/* replaced calls and their time t (measured_ns less
					 * inner_cost_ns, never below 0) */
	uint64_t measured_ns;		/* their sum of t_ns */
	double predicted_ns;		/* sum f_k(w) over the replaced calls */
	uint64_t out_of_range, out_of_range_t_ns;	/* replaced calls outside the samples */
	double out_of_range_predicted_ns;
	uint64_t no_work, no_work_t_ns;	/* kept: the trace has no work size for them */
	uint64_t no_bytes, no_bytes_t_ns;	/* kept: no bytes, and the model is keyed on them */
	uint64_t nested;		/* inside a replaced call: replaced with it */
	/* rows of any function nested in this function's replaced calls, and tracing's
	 * cost of them, taken out of measured_ns (and out of T with the rest of it).  The
	 * cost is an average: one call may hold less (the sum is what is bounded) */
	uint64_t inner_rows, inner_cost_ns;
	/* the clock read each replaced call's own t_ns holds (trace_read.h read_ns), taken out
	 * of measured_ns too */
	uint64_t reads_ns;
	/* calls of this function nested in replaced calls (of any function), and their
	 * t_ns: what of all_calls would not stay on the host */
	uint64_t hidden_calls, hidden_t_ns;
	uint64_t slower, slower_t_ns;	/* kept by --only-faster: f(w) >= t */
	double slower_predicted_ns;
	uint64_t fault_calls;		/* replaced calls that took page faults */
	double fault_kept_ns;		/* their excess, in predicted_ns */
	uint64_t fault_unmatched;	/* ... without a fault-free call at their work */
	/* with link rows (doc/residency.md), the top-level mode's transfers: h2d of its
	 * replaced calls' reads, d2h of what they wrote (resid.h) */
	uint64_t h2d_bytes, d2h_bytes, h2d_transfers, d2h_transfers;
	double h2d_ns, d2h_ns;
	/* --device: the replaced calls' predicted time by what bounds each (enum dev_bound) */
	double bound_ns[4];
	/* --device: the replaced calls' work and bytes, summed (a roofline's point) */
	double work, bytes;
};

/* One residency mode's figures (doc/residency.md): its transfers, and T' and S_G with
 * them in place of the top-level mode's. */
struct xfer_fig {
	int known;		/* computed (exact: only where host reads were recorded) */
	uint64_t h2d_bytes, d2h_bytes, h2d_transfers, d2h_transfers;
	double h2d_ns, d2h_ns;
	double S_G, predicted_total_ns;
};

struct prediction {
	const char *path;	/* the trace; NULL for a whole run */
	int processes;
	uint64_t total_ns;	/* T */
	int t_cpu;		/* as struct trace's: 1 CPU time, 2 CPU T (--cpu-time), -1 mixed,
				 * 0 wall */
	int cpu_time_refused;	/* --cpu-time, and T stayed wall time (trace_read.h) */
	int has_startup;	/* T includes a start-up ('# startup_ns=') */
	uint64_t overhead_ns;	/* tracing's own cost, already out of T */
	uint64_t overhead_left_ns;	/* ... or left in it (several threads, wall clock) */
	double row_cost_ns;	/* overhead_ns per row (trace_read.h); a run's: its processes' */
	uint64_t overhead_over_cpu_ns;	/* as trace_read.h's */
	int follow_writes_unseen;	/* as trace_read.h's */
	uint64_t rows;
	uint64_t calls, t_ns;	/* replaced calls, sum t_ki */
	uint64_t measured_ns;	/* their sum of t_ns as the trace has them */
	double predicted_ns;	/* sum f_k(w_ki) */
	double setup_ns;	/* accelerators' set-up, once per process each */
	uint64_t setup_files, setup_counted;	/* model files (bit file_id) used, counted */
	uint64_t out_of_range, no_work, no_bytes, nested, slower;
	uint64_t inner_rows, inner_cost_ns;	/* summed over the kernels */
	uint64_t reads_ns;			/* the same */
	uint64_t fault_calls, fault_unmatched;
	double fault_kept_ns;
	int has_faults;		/* traces with a faults column */
	int threads;		/* threads with a replaced call (max over processes) */
	double P, S_P, S_G, predicted_total_ns;
	/* the threads' timelines (timeline.h): T' is the critical path through them, S_G = T / T' */
	int timeline;		/* processes predicted by their timelines */
	double timeline_total_ns;	/* a process's T' by it; a run's: the sum of its T' */
	double threads_ns;	/* the threads' measured lives, summed (the main thread's: T); a
				 * run's: its processes' (T for one without a timeline).  P's base
				 * when it exceeds T: several threads ran at once */
	double amdahl_total_ns;	/* T - t + f, as if the threads ran one after another */
	double queue_wait_ns;	/* what replaced calls waited for a device */
	uint64_t waited_calls;
	int devices;		/* --devices: calls at once, 0 unlimited */
	uint64_t tl_clock_total_ns;	/* the trace's total_ns, the timeline's clock */
	const char *no_timeline;	/* why a process's is Amdahl's answer (static text) */
	struct timeline *tl;	/* a process's timelines; NULL */
	/* link rows: the kernel models are compute only, and the transfers the residency
	 * simulation finds are added (transfers.h) */
	int residency;		/* processes predicted so (a run: all, or 0) */
	int xfer_top;		/* the mode of the top-level figures (enum resid_mode; a run
				 * whose processes differ: -1) */
	struct xfer_fig top;	/* the top-level figures (a run: its processes' sum) */
	struct xfer_fig xfer[3];	/* by enum resid_mode */
	double xfer_ns;		/* the top mode's h2d_ns + d2h_ns: in T' */
	double xfer_tail_ns;	/* of it, charged after the last call (timeline: at the end) */
	uint64_t host_read_events, assumed_reads;	/* TRACE.flow's HOST_READ records */
	uint64_t unmatched_calls;	/* replaced calls not found among the flow's calls */
	int flow_no_diff;	/* its flow was recorded without std.diff */
	/* a process's events and its replaced calls by seq, kept for more simulations (the
	 * offload plan: resid_simulate with other calls accelerated); NULL for a run */
	struct transfers_state *resid;
	struct kernel *k;	/* by func id */
	int nk;
	size_t kroom;		/* of a run's k (predict_add) */
};

/* Walks TR's calls and fills P (allocated here), with the models MS that TR was read
 * against (trace_read).  DEVICES: replaced calls at once (0:
 * unlimited), for the timeline of a trace that recorded its threads.  ONLY_FASTER: replace only calls the
 * model makes faster.  FAULTS_REPLACED: a faulted call's whole time is replaced by f(w),
 * no excess kept (the accelerator would not take the program's page faults).  Returns 0
 * or -1 (out of memory, message printed). */
int predict_trace(struct trace *tr, struct models *ms, int only_faster, int faults_replaced,
		  int devices, struct prediction *p);
/* Adds process P to the run RUN (zeroed by the caller before the first one). */
int predict_add(struct prediction *run, const struct prediction *p);
/* P, S_P, S_G and the predicted total from the sums. */
void predict_finish(struct prediction *p);
/* 1 when P's models matched calls but none could be replaced for want of a work size
 * (or of bytes, for a model keyed on them): its S_G = 1 answers nothing. */
int predict_nothing(const struct prediction *p);
void predict_free(struct prediction *p);

#endif
