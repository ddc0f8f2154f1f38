/* folded.c - dyl-trace folded: the calls as folded stacks, Brendan Gregg's format
 * ("main;solve;dgemm_ 12345": the frames outermost first, the library's function last,
 * a weight), which flamegraph.pl, inferno and speedscope read.
 *
 * A row's stack is what std.callsite recorded: with depth=N the N frames above the
 * call site (stack N ... stack1), then the call site's function, then the function
 * called; frames above main (the C library's start) are left out.  Each frame is its
 * function's name alone (no line: the lines of one function are one frame), else
 * module+0xoff, named offline as in callsite.c.  The weight is the sum of the calls'
 * t_ns (time: a recorded call made inside another counts in both), their count
 * (calls), in_bytes + out_bytes (bytes) or work; a stack of weight 0 is left out.
 *
 * Rows are first summed per distinct tuple of addresses (a func_names.h name each), in
 * one pass; each tuple is then named once, and equal names merged, across the traces
 * too: the lines come sorted, one per stack.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "callsite.h"
#include "flow_syms.h"
#include "func_names.h"
#include "grow.h"
#include "input.h"

enum { W_TIME, W_CALLS, W_BYTES, W_WORK };

struct line {
	char *stack;
	uint64_t weight;
};

struct folded {
	int weight;
	uint64_t *sum;		/* by func_names.h id of a tuple */
	size_t sum_room;
	int *ids;		/* the tuples of the trace being read */
	size_t nids, ids_room;
	struct line *lines;
	size_t nlines, lines_room;
};

static uint64_t weight_of(int w, const struct trace_row *r)
{
	uint64_t in = r->in_bytes == ROWS_NONE ? 0 : (uint64_t)r->in_bytes;
	uint64_t outb = r->out_bytes == ROWS_NONE ? 0 : (uint64_t)r->out_bytes;

	switch (w) {
	case W_TIME:
		return r->t_ns == ROWS_NONE ? 0 : (uint64_t)r->t_ns;
	case W_CALLS:
		return 1;
	case W_BYTES:
		return in + outb;
	default:
		return r->work == ROWS_NONE ? 0 : (uint64_t)r->work;
	}
}

/* the tuple's key: "TRACE\x1fFUNC\x1fPC,PC..." (the trace's index: its addresses are its
 * own process's) */
static int tuple_of(int trace, const struct trace_row *r, const uint64_t *pc, int n)
{
	const struct func *f = funcs_get((int)r->func);
	char key[4096 + 24 * CALLSITE_MAX];
	int len = snprintf(key, 4096, "%d\x1f%.*s\x1f", trace, (int)(f->len < 4000 ? f->len : 4000), f->name);
	int added;

	for (int i = 0; i < n; i++)
		len += snprintf(key + len, 24, "%" PRIx64 ",", pc[i]);
	return funcs_intern(key, (size_t)len, &added);
}

/* a frame's name, ';' and line ends made '_' (they would split the line) */
static size_t frame_name(struct flow_syms *syms, uint64_t pc, char *out, size_t room, int *is_main)
{
	size_t n = syms ? flow_syms_func(syms, pc, out, room, is_main) : 0;

	if (!n) {
		*is_main = 0;
		n = (size_t)snprintf(out, room, "0x%" PRIx64, pc);
		n = n < room ? n : room - 1;
	}
	for (size_t i = 0; i < n; i++)
		if (out[i] == ';' || out[i] == '\n' || out[i] == '\r')
			out[i] = '_';
	return n;
}

/* Is NAME the C library's start, which calls main? */
static int libc_start(const char *name, size_t len)
{
	static const char *const starts[] = { "__libc_start_call_main", "__libc_start_main", "_start" };

	for (int i = 0; i < 3; i++) {
		size_t l = strlen(starts[i]);
		if (len >= l && !memcmp(name, starts[i], l) && (len == l || name[l] == '@'))
			return 1;
	}
	return 0;
}

/* the tuple ID's stack as a line: frames outermost first, then the function; the
 * runtime's frames left out, and a wrapper's frame right above its own function's
 * (the wrapped function called, then itself in the library: one frame) */
static char *stack_of(const struct trace_src *src, struct flow_syms *syms, int id)
{
	const struct func *f = funcs_get(id);
	const char *fn = memchr(f->name, '\x1f', f->len) + 1;
	const char *pcs = (const char *)memrchr(f->name, '\x1f', f->len) + 1;	/* (FUNC may hold one) */
	char names[CALLSITE_MAX][512];
	size_t len[CALLSITE_MAX];
	int n = 0, is_main = 0;

	for (const char *p = pcs; n < CALLSITE_MAX && !is_main && *p && *p != ','; n++) {
		char *end;
		uint64_t pc = strtoull(p, &end, 16);
		p = end + 1;
		int ours = callsite_ours(src, syms, pc);
		if (ours != 1)
			len[n] = frame_name(syms, pc, names[n], sizeof(names[n]), &is_main);
		if (ours != 1 && libc_start(names[n], len[n]))
			break;	/* (a program without symbols: its main is the frame below) */
		if (ours == 1 || (ours == 2 && n > 0 && len[n] == len[n - 1] &&
				  !memcmp(names[n], names[n - 1], len[n])))
			n--;
	}
	size_t room = (size_t)(pcs - fn), used = 0;
	for (int i = 0; i < n; i++)
		room += len[i] + 1;
	char *s = malloc(room + 1);
	if (!s)
		return NULL;
	for (int i = n - 1; i >= 0; i--) {
		memcpy(s + used, names[i], len[i]);
		used += len[i];
		s[used++] = ';';
	}
	memcpy(s + used, fn, (size_t)(pcs - fn - 1));
	used += (size_t)(pcs - fn - 1);
	s[used] = 0;
	return s;
}

/* one trace's rows summed per tuple, then named into F's lines.  0, or 2 after a message */
static int read_trace(struct folded *f, const char *path, int trace)
{
	struct trace_src src;
	struct callsite_cols c;
	struct trace_row r;
	int rc;

	if (rows_open(&src, path) != 0)
		return 2;
	if (callsite_columns(&src, &c) != 0) {
		rows_close(&src);
		return 2;
	}
	f->nids = 0;
	while ((rc = rows_next(&src, &r)) > 0) {
		uint64_t pc[CALLSITE_MAX], w = weight_of(f->weight, &r);
		int id = tuple_of(trace, &r, pc, callsite_addrs(&c, &r, pc));
		if (id < 0 || grow_to(&f->sum, sizeof(*f->sum), (size_t)id + 1, &f->sum_room, 256) != 0)
			goto oom;
		if (!f->sum[id] && w && grow(&f->ids, sizeof(*f->ids), f->nids, &f->ids_room, 64) != 0)
			goto oom;
		if (!f->sum[id] && w)
			f->ids[f->nids++] = id;
		f->sum[id] += w;
	}
	if (rc == 0 && src.truncated)
		rows_warn_truncated(&src);
	struct flow_syms *syms = rc < 0 ? NULL : callsite_syms(&src);
	for (size_t i = 0; rc == 0 && i < f->nids; i++) {
		char *s = stack_of(&src, syms, f->ids[i]);
		if (!s || grow(&f->lines, sizeof(*f->lines), f->nlines, &f->lines_room, 64) != 0) {
			free(s);
			flow_syms_free(syms);
			goto oom;
		}
		f->lines[f->nlines++] = (struct line){ s, f->sum[f->ids[i]] };
	}
	flow_syms_free(syms);
	rows_close(&src);
	return rc < 0 ? 2 : 0;
oom:
	input_error(path, 0, "out of memory");
	rows_close(&src);
	return 2;
}

static int by_stack(const void *x, const void *y)
{
	return strcmp(((const struct line *)x)->stack, ((const struct line *)y)->stack);
}

int callsite_folded(char **paths, int n, const char *weight, FILE *out)
{
	static const char *const names[] = { "time", "calls", "bytes", "work" };
	struct folded f = { .weight = -1 };
	int rc = 0;

	for (int i = 0; i < 4; i++)
		if (!strcmp(weight, names[i]))
			f.weight = i;
	if (f.weight < 0) {
		fprintf(stderr, "dyl-trace: --weight %s: choose time, calls, bytes or work\n", weight);
		return 2;
	}
	for (int i = 0; i < n && rc == 0; i++)
		rc = read_trace(&f, paths[i], i);
	if (rc == 0)
		qsort(f.lines, f.nlines, sizeof(*f.lines), by_stack);
	for (size_t i = 0; rc == 0 && i < f.nlines; i++) {
		uint64_t w = f.lines[i].weight;
		while (i + 1 < f.nlines && !strcmp(f.lines[i + 1].stack, f.lines[i].stack))
			w += f.lines[++i].weight;
		fprintf(out, "%s %" PRIu64 "\n", f.lines[i].stack, w);
	}
	for (size_t i = 0; i < f.nlines; i++)
		free(f.lines[i].stack);
	free(f.lines);
	free(f.ids);
	free(f.sum);
	return rc;
}
