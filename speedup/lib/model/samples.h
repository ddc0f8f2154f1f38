/* samples.h - call times grouped by (function, work size) or (function, work size,
 * bytes), and one statistic of each group (median, mean or min): the samples of a model
 * made from traces (dyl-model), and the fault-free times faulted calls are set against
 * (faults.h). */
#ifndef SPEEDUP_SAMPLES_H
#define SPEEDUP_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

/* --stat clipped leaves out a call over CLIP x the median, or over CLIP_LONG x the median
 * and a time slice (CLIP_SLICE_NS) above it */
#define SAMPLES_CLIP 10
#define SAMPLES_CLIP_LONG 3
#define SAMPLES_CLIP_SLICE_NS 1000000.0
enum sample_stat { STAT_MEDIAN, STAT_MEAN, STAT_MIN, STAT_CLIPPED };

/* One (func, work, bytes) and the times of its calls. */
struct sample_group {
	uint32_t func;		/* func_names.h id */
	int64_t work;
	int64_t bytes;		/* in_bytes + out_bytes; -1 when not keyed on bytes */
	int64_t *t;		/* t_ns of each call, in no particular order */
	size_t n, room;
	/* calls added as SAMPLE_FAULTED stay apart until samples_settle_faults */
	size_t clean;		/* of t, the calls known to have taken no page fault */
	int64_t *ft;
	size_t fn, froom;
};

/* What a trace says of a call's page faults (its faults column). */
enum sample_faults { SAMPLE_FAULTS_UNKNOWN, SAMPLE_NO_FAULTS, SAMPLE_FAULTED };

struct samples {
	struct sample_group *groups;
	size_t n, room;
	uint32_t *slots;	/* group index + 1 by hash of (func, work, bytes); open addressing */
	size_t nslots;
};

/* Adds one call's time to its group; BYTES -1 when not keyed on bytes.  0, or -1 when
 * out of memory. */
int samples_add(struct samples *s, uint32_t func, int64_t work, int64_t bytes, int64_t t_ns,
		enum sample_faults faults);

/* The group of (FUNC, WORK, BYTES); a new, empty one if CREATE; else NULL when there is
 * none.  NULL too when out of memory. */
struct sample_group *samples_find(struct samples *s, uint32_t func, int64_t work, int64_t bytes,
				  int create);
/* Adds one time to G (as a call without faults): 0, or -1 when out of memory. */
int samples_push(struct sample_group *g, int64_t t_ns);

/* The calls added as SAMPLE_FAULTED: left out where their group has a call known to
 * have taken no fault (*LEFT_OUT of them); elsewhere (nothing better is known) they join
 * the group's samples (*KEPT of them, in *KEPT_GROUPS groups).  0, or -1 when out of
 * memory. */
int samples_settle_faults(struct samples *s, uint64_t *left_out, uint64_t *kept,
			  uint64_t *kept_groups);

/* Sorts the groups by function name, then work, then bytes. */
void samples_sort(struct samples *s);
/* The indices of the groups in that order, the groups left in place (dyl-model keeps
 * data of its own beside each).  NULL when out of memory. */
size_t *samples_sorted(const struct samples *s);

/* The statistic of G's times, in ns (G->n > 0).  Reorders G->t (the median selects in
 * place).  The median of an even count is the mean of the two middle times. */
double samples_stat(struct sample_group *g, enum sample_stat stat);

void samples_free(struct samples *s);

#endif
