/* samples.h - call times grouped by (function, work size) or (function, work size,
 * bytes), and one statistic of each group (median, mean or min): the samples of a model
 * made from traces (dyl-model). */
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
	uint32_t func;		/* funcs.h id */
	int64_t work;
	int64_t bytes;		/* in_bytes + out_bytes; -1 when not keyed on bytes */
	int64_t *t;		/* t_ns of each call, in no particular order */
	size_t n, room;
};

struct samples {
	struct sample_group *groups;
	size_t n, room;
	uint32_t *slots;	/* group index + 1 by hash of (func, work, bytes); open addressing */
	size_t nslots;
};

/* Adds one call's time to its group; BYTES -1 when not keyed on bytes.  0, or -1 when
 * out of memory. */
int samples_add(struct samples *s, uint32_t func, int64_t work, int64_t bytes, int64_t t_ns);

/* Sorts the groups by function name, then work, then bytes. */
void samples_sort(struct samples *s);

/* The statistic of G's times, in ns (G->n > 0).  Reorders G->t (the median selects in
 * place).  The median of an even count is the mean of the two middle times. */
double samples_stat(struct sample_group *g, enum sample_stat stat);

void samples_free(struct samples *s);

#endif
