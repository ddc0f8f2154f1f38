/* summary.h - one trace summarised per function: calls, total and self time, and the
 * distribution of the call times (mean, min, median, max). */
#ifndef SPEEDUP_SUMMARY_H
#define SPEEDUP_SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include "rows.h"

struct func_stats {
	uint32_t func;		/* func_names.h id */
	uint64_t calls;
	uint64_t timed;		/* calls with a time (all, unless the trace has no times) */
	int64_t total_ns;	/* sum of t_ns */
	int64_t self_ns;	/* total minus the time of the calls made from inside */
	int64_t min_ns, max_ns;	/* -1 when no call is timed */
	double mean_ns, median_ns;
};

struct trace_summary {
	uint64_t rows;
	uint64_t untimed;	/* rows without a time */
	size_t nthreads;
	uint64_t nested;	/* calls made from inside another recorded call */
	struct func_stats *funcs;	/* by total_ns, largest first */
	size_t nfuncs;
};

/* Reads all of SRC's rows.  0, or -1 after one message. */
int summary_read(struct trace_src *src, struct trace_summary *s);
/* The same with the rows grouped otherwise than by function (summary --by-callsite):
 * GROUP gives a row's group, a func_names.h id too (func_stats.func then names the
 * group: the table is ordered by those names at equal totals); -1 out of memory, -2
 * after its own message. */
typedef int (*summary_group_fn)(void *ctx, const struct trace_src *src, const struct trace_row *r);
int summary_read_grouped(struct trace_src *src, struct trace_summary *s, summary_group_fn group,
			 void *ctx);
void summary_free(struct trace_summary *s);

#endif
