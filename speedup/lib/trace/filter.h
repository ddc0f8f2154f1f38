/* filter.h - which calls a tool looks at: --func PATTERN (shell wildcards; '!PATTERN'
 * excludes, the last match wins, as dyliberator -f) and --time-range START,END (calls
 * that start in [START, END), times from the process's start, with units).  One
 * filter for dyl-trace summary, chrome, diff and dyl-flow. */
#ifndef SPEEDUP_FILTER_H
#define SPEEDUP_FILTER_H

#include <stddef.h>
#include <stdint.h>

struct row_filter {
	const char **pats;	/* --func patterns, in order ('!' first: excludes) */
	int npats;
	int has_range;		/* --time-range given */
	int64_t lo, hi;		/* [lo, hi) in ns; hi INT64_MAX when open */
	uint8_t *verdict;	/* by func_names.h id: 0 not yet known, 1 keep, 2 drop */
	size_t room;
};

/* Takes --func P, --func=P, --time-range R or --time-range=R at ARGV[*I] (moving *I past
 * a separate value).  1 taken, 0 not a filter option, -1 after a one-line message
 * "PROG: ..." on stderr. */
int filter_option(struct row_filter *f, int argc, char **argv, int *i, const char *prog);
/* 1 when any filter is set. */
int filter_active(const struct row_filter *f);
/* 1 when the call of FUNC (func_names.h id) that started at T_START (ns; -1: no time)
 * is kept. */
int filter_keep(struct row_filter *f, uint32_t func, int64_t t_start);
/* What F keeps, for an output's header: "functions 'dgemm_*' '!x'; calls starting in
 * [10 ms, 2.5 s)".  Into BUF (ROOM bytes), which it returns. */
const char *filter_describe(const struct row_filter *f, char *buf, size_t room);
void filter_free(struct row_filter *f);

/* The --func patterns alone: 1 when NAME is kept (no pattern: 1). */
int filter_name_kept(const struct row_filter *f, const char *name);

#endif
