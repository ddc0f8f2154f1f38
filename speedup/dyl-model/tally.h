/* tally.h - dyl-model's call times per (func, work[, bytes]) group, in memory bounded by
 * the groups, not the calls: each group's times go to a sketch (qsketch.h: exact up to
 * 4096 calls, within 1 % past them), its faulted calls to another until they are
 * settled (samples.h's rule), and its sum for the mean. */
#ifndef DYL_MODEL_TALLY_H
#define DYL_MODEL_TALLY_H

#include <stddef.h>
#include <stdint.h>
#include "qsketch.h"
#include "samples.h"

struct tally {
	struct qsketch t;	/* the samples */
	double sum;		/* of t's values, in the order they came */
	uint64_t clean;		/* of t, the calls known to have taken no page fault */
	struct qsketch ft;	/* the faulted calls, until tallies_settle_faults */
};

/* By the group's index in struct samples. */
struct tallies {
	struct tally *v;
	size_t room;
};

/* One call's time T_NS in group I.  0, or -1 out of memory. */
int tally_add(struct tallies *ts, size_t i, int64_t t_ns, enum sample_faults faults);
/* samples_settle_faults' rule over the N groups: faulted calls left out where their group
 * has a fault-free call, kept elsewhere.  0, or -1 out of memory. */
int tallies_settle_faults(struct tallies *ts, size_t n, uint64_t *left_out, uint64_t *kept,
			  uint64_t *kept_groups);
/* samples_stat's statistic of group I (with samples): exact while it has at most
 * QSKETCH_EXACT calls, within the sketch's error past that. */
double tally_stat(struct tallies *ts, size_t i, enum sample_stat stat);
void tallies_free(struct tallies *ts, size_t n);

#endif
