/* diff.h - dyl-trace diff A B: two runs side by side, per function (perf diff's way). */
#ifndef DYL_TRACE_DIFF_H
#define DYL_TRACE_DIFF_H

#include <stdio.h>

enum { DIFF_TABLE, DIFF_CSV, DIFF_JSON };

struct row_filter;

/* Compares A and B (each a trace, or a record folder: its trace.*.csv) into OUT as
 * FMT, of the calls FILTER keeps.  0, or 2 after one message. */
int cmd_diff(FILE *out, const char *a, const char *b, int fmt, struct row_filter *filter);

#define DIFF_HELP \
"  diff A B         two runs side by side, per function: calls, total time, bytes\n" \
"                   (in_bytes + out_bytes) and work in A, in B, and the change (B - A,\n" \
"                   and time's in %), largest change of time first; a function that ran\n" \
"                   on one side only is marked so.  A and B are traces or record\n" \
"                   folders (dyl record's, their trace.*.csv).  Several processes on a\n" \
"                   side: matched by command line when each has one match on the\n" \
"                   other side, else all added up.  --csv: process,func,only,calls_a,\n" \
"                   calls_b,calls_delta,total_ns_a,total_ns_b,total_ns_delta,\n" \
"                   total_ns_pct,bytes_a,bytes_b,bytes_delta,work_a,work_b,work_delta\n" \
"                   (empty: none of the calls had it); --json the same per process\n"

#endif
