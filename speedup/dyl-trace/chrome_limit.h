/* chrome_limit.h - chrome --max-events N: which calls a Chrome trace keeps when it may
 * hold only N of them.  The N longest: in Perfetto a long call is what one sees zoomed
 * out and what one looks for first; the many short ones are left out (and counted in a
 * note event), not the end of the run, as "the first N" would. */
#ifndef DYL_TRACE_CHROME_LIMIT_H
#define DYL_TRACE_CHROME_LIMIT_H

#include <stddef.h>
#include <stdint.h>
#include "rows.h"

struct row_filter;

/* The calls one trace keeps: indices into its rows in seq order (rows_by_seq), ascending. */
struct chrome_keep {
	size_t *idx;
	size_t n, next;	/* next: chrome_kept's cursor */
	uint64_t *order;	/* the trace's rows in seq order (rows_by_seq, which reads them
				 * once): the caller's to take and free */
	size_t norder;
};

/* Over the N traces SRCS, the MAX timed calls FILTER keeps (NULL: all) with the longest
 * t_ns (at equal t_ns the earlier trace, then the earlier seq): KEEP[i] for trace i.
 * *TOTAL: the timed calls FILTER keeps in all.  0, or -1 after one message. */
int chrome_longest(struct trace_src *srcs, int n, uint64_t max, struct row_filter *filter,
		   struct chrome_keep *keep, uint64_t *total);
/* Is the I-th call in seq order kept?  I must grow from one call to the next. */
int chrome_kept(struct chrome_keep *k, size_t i);
void chrome_keep_free(struct chrome_keep *keep, int n);

#endif
