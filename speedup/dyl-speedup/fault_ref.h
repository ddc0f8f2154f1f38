/* fault_ref.h - the part of a call's time that its page faults took, which an accelerated
 * implementation would take as well.
 *
 * A call that first writes a fresh output buffer takes the page faults of its pages
 * (about 1.4 us a page here).  The pages are the program's: an accelerator writing the
 * same buffer takes the same faults.  The model's f(w) holds faults only at its own
 * sweep's rate, so replacing a faulted call's whole time by f(w) drops a cost the program
 * keeps.  What a faulted call took above the calls of the same function and work that
 * took none is kept beside f(w):
 *   excess = max(0, t - median t of the same process's fault-free calls at that work)
 * and at most faults x the cost of one fault, where the trace says it ('# fault_ns=',
 * measured by the runtime): the slowness of a first call (cold caches and TLB, a library's
 * first use) is no fault's, though that call takes a few (its code's pages) and would
 * otherwise be kept whole: 7 ms of a 20 ms first thin dgemm_ that took 3 faults)
 * (for a model keyed on bytes, "work" is the call's shape: struct call's shape). */
#ifndef SPEEDUP_FAULTS_H
#define SPEEDUP_FAULTS_H

#include "samples.h"
#include "trace_read.h"

/* The fault-free medians of one process, for the (func, work) pairs that have a faulted
 * call: only these are gathered, so a trace without faults costs nothing here. */
struct fault_refs {
	struct samples s;
	double *median;		/* by group of s; NAN: no fault-free call at that work */
	int64_t fault_ns;	/* the cost of one fault, when the trace says it; else -1 */
};

/* Gathers TR's references.  0, or -1 after printing "out of memory". */
int fault_refs_build(struct fault_refs *fr, const struct trace *tr);

/* The excess of faulted call C (CALL_FAULTED): 1 and *EXCESS, or 0 when no call of
 * its function at its work took no faults (then *EXCESS is 0). */
int fault_refs_excess(struct fault_refs *fr, const struct call *c, double *excess);

void fault_refs_free(struct fault_refs *fr);

#endif
