/* callsite.h - what std.callsite recorded, read back: each row's call site and the
 * frames above it (callsite.c), named offline from the trace's module table with
 * flow_syms.h; `summary --by-callsite` (callsite.c) and `folded` (folded.c). */
#ifndef SPEEDUP_CALLSITE_H
#define SPEEDUP_CALLSITE_H

#include <stdint.h>
#include <stdio.h>
#include "rows.h"

#define CALLSITE_MAX 8	/* callsite, stack1...stack7 */

/* Where a trace keeps them: the index among a row's extra fields (after work) of its
 * callsite column, then of stack1..., N of them. */
struct callsite_cols {
	int col[CALLSITE_MAX];
	int n;
};

/* SRC's columns.  0; -1 after one message (no callsite column: not recorded with
 * -g std.callsite). */
int callsite_columns(const struct trace_src *src, struct callsite_cols *c);
/* The row's addresses, the call site first, into PC: their number (0..n; the first
 * empty field ends them). */
int callsite_addrs(const struct callsite_cols *c, const struct trace_row *r, uint64_t *pc);
struct flow_syms;
/* The namer of SRC's addresses, from its '# module=' lines (known once its rows are
 * read: the table is in the footer).  NULL out of memory. */
struct flow_syms *callsite_syms(const struct trace_src *src);

/* Is PC (a return address) in the runtime (1) or in one of SRC's wrappers (2, '#
 * wrapper=')?  0: neither.  A call the library made inside a wrapped call by a tail
 * call returns into that call's wrapper, a function of the same name; the runtime's
 * frames (a thread's start) are not the program's. */
int callsite_ours(const struct trace_src *src, struct flow_syms *syms, uint64_t pc);

/* The subcommands: 0, or 2 after one message.  FMT: 0 table, 1 CSV, 2 JSON (main.c's
 * FMT_*); WEIGHT: time, calls, bytes or work. */
int callsite_summary(char **paths, int n, int fmt, FILE *out);
int callsite_folded(char **paths, int n, const char *weight, FILE *out);

#endif
