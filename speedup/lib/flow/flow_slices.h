/* flow_slices.h - tQUAD's view on the time axis (issue 23, --slices NS): each function's
 * bytes read and written per slice of NS nanoseconds, a call's bytes spread evenly over
 * its interval [t_start, t_start + t_ns); per function its activity span, mean and peak
 * bandwidth; and phases, found from the slices.
 *
 * Phases: a slice's active set is the functions that move at least a tenth of its bytes
 * (a slice that moves none has the empty set: the program between calls).  A new phase
 * starts where the set changes, or where the set stays but the slice moves 4 times more
 * or less than the phase's mean.  Phases shorter than MINLEN slices (2, or 1/50 of the
 * run) join the phase before them (the first, the one after), keeping its set; then
 * neighbours with the same set and a traffic level within 4 times join. */
#ifndef SPEEDUP_FLOW_SLICES_H
#define SPEEDUP_FLOW_SLICES_H

#include <stdint.h>
#include "flow_engine.h"

struct flow_phase {
	uint64_t first, last;		/* slices, inclusive */
	double bytes;			/* read + written in it */
	uint64_t sig;			/* its set of functions (a signature) */
};

struct flow_slices {
	int64_t ns;			/* the slice */
	int64_t t0;			/* the first call's start: slice 0 starts there */
	uint64_t n;			/* slices */
	size_t nnodes;
	double *read, *written;		/* [slice * nnodes + node] bytes */
	/* per node */
	int64_t *first_ns, *last_ns;	/* its calls' span (from t0); -1: no calls */
	double *peak;			/* its largest slice's bytes per second */
	struct flow_phase *phase;
	size_t nphases;
	uint64_t untimed;		/* calls without times (not placed) */
};

/* Slices of NS over F's calls.  0, or -1 with a reason in ERR (ROOM bytes): no timed
 * calls, or more than 2^24 slice x function cells (a larger NS is needed). */
int flow_slices_make(struct flow_slices *s, const struct flow *f, int64_t ns, char *err,
		     size_t room);
/* Is NODE one of phase P's functions (a tenth of its bytes or more)? */
int flow_phase_has(const struct flow_slices *s, const struct flow_phase *p, uint32_t node);
void flow_slices_free(struct flow_slices *s);

#endif
