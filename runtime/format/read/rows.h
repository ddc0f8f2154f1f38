/* rows.h - a trace as a stream of rows, whatever form the runtime kept it in.
 *
 * A trace source is opened once (its metadata and columns are known then), yields its
 * rows one by one in file order (rows_next), and can yield again the row at a position
 * it gave before (rows_at: printing in seq order without keeping every row in memory).
 * Each on-disk form is one `struct rows_format` (sniff, open, next, at...); the CSV
 * the runtime writes today is the first.  Rows are checked as they are read: a bad row
 * is one message "PROG: FILE:LINE: what" and rows_next returns -1.  A trace cut short
 * (the process was killed) ends at its last full row, with src->truncated set.
 *
 * Adding a form (the runtime's binary records, say): write its rows_format in a file of
 * its own and put it in rows.c's formats[] before CSV, which takes anything.  sniff looks
 * at the first bytes; open fills pid, start_ns, cmdline, notes, header, ncolumns,
 * depth_col and faults_col (the CSV header the form stands for: cat prints it); next
 * yields rows in
 * any order with pos set, turning extra columns into CSV text in src->buf, and at the
 * end sets total_ns (if the trace has one), truncated and partial_line; at reads a
 * row again from its pos; line_of may be NULL (then messages name the file only,
 * or say "record N" through input_error's own text).  src->priv is the form's own state,
 * freed by its close.
 */
#ifndef DYL_READ_ROWS_H
#define DYL_READ_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include "flow_hash.h"
#include "dyl_csv.h"	/* DYL_CSV_BASE: the columns a trace starts with */

#define ROWS_HEADER DYL_CSV_BASE
#define ROWS_NONE (-1)	/* an empty field */
#define ROWS_MAX_VALUE (UINT64_C(1) << 62)	/* a number at least this is too large: start +
						 * duration must not overflow int64 */

/* One call.  FUNC is the func_names.h id of the name.  EXTRA is the text of the columns after
 * `work` (depth, args, counters...) as CSV, without the leading comma; it points into
 * the source and is valid until the next call on it. */
struct trace_row {
	uint64_t seq;
	uint64_t tid;
	int64_t t_start, t_ns;			/* ns; ROWS_NONE when the trace has no times */
	int64_t in_bytes, out_bytes, work;	/* ROWS_NONE: not estimated */
	uint32_t func;
	uint32_t depth;				/* 0 without a depth column */
	int64_t faults;				/* page faults the thread took in the call;
						 * ROWS_NONE: no faults column, or empty */
	uint64_t pos;				/* for rows_at */
	const char *extra;
	uint32_t extra_len;
};

/* R's bytes as a model keyed on bytes takes them, in + out (as the runtime adds them up
 * for work: an empty side counts 0); ROWS_NONE when both are empty (the call keeps its
 * measured time).  The one rule of dyl-model, the prediction, the plans and MPI jobs. */
static inline int64_t rows_call_bytes(const struct trace_row *r)
{
	if (r->in_bytes == ROWS_NONE && r->out_bytes == ROWS_NONE)
		return ROWS_NONE;
	return (r->in_bytes > 0 ? r->in_bytes : 0) + (r->out_bytes > 0 ? r->out_bytes : 0);
}

/* A '#' line: the text after '#' and blanks; AFTER: it came after the header. */
struct trace_note {
	const char *text;
	uint32_t len;
	uint32_t after;
};

struct rows_format;

struct trace_src {
	const char *path;
	const struct rows_format *format;
	/* the bytes */
	const char *data;
	size_t size;
	int mapped;
	int borrowed;		/* the caller's bytes (rows_open_file): not freed here */
	/* the bytes are a mapped file: the pages read are given back as the rows are read
	 * (csv_next), so a big trace does not stay in memory; RELEASED is how far */
	int release;
	const char *released;
	int beside;		/* opened by rows_open_beside */
	unsigned flags;		/* ROWS_* below */
	/* what the trace says of itself (from '#' lines; -1/NULL when it does not say) */
	int64_t pid;
	int64_t total_ns;	/* known once the rows are read: the footer comes last */
	int64_t cpu_ns;		/* the process's CPU time, beside total_ns */
	int64_t startup_ns;	/* CPU time before the wrapper's clock started (exec, ld.so) */
	int64_t fault_ns;	/* what one page fault costs (std.faults' measure), -1: not said */
	int64_t overhead_ns;	/* what tracing itself cost the process (runtime's measure) */
	int64_t overhead_outside_ns;	/* the part of it with no call open: in no t_ns */
	int64_t clock_cost_ns;	/* two clock reads, as a timed call makes them; -1: not said */
	int thread_clock;	/* t_ns are thread CPU times ('# time_clock=thread-cputime') */
	int64_t start_ns;	/* wall-clock start of the process, ns since the epoch */
	char *cmdline;
	struct trace_note *notes;
	size_t nnotes, notes_room;
	/* the columns */
	const char *header;	/* the header line, without its newline */
	uint32_t header_len;
	int ncolumns;
	int depth_col;		/* -1: none */
	int faults_col;		/* -1: none (std.faults writes it) */
	/* the end */
	int truncated;		/* cut short: a partial last row, or no total_ns */
	unsigned long rows;	/* rows read so far */
	unsigned long partial_line;	/* the line of a partial last row, 0 if none */
	/* the reader's own state */
	const char *p, *end;
	unsigned long lineno;
	char *buf;
	void *priv;
#define NAME_CACHE 64
	int name_cache[NAME_CACHE];	/* func_names.h id + 1 of recent names */
};

struct rows_format {
	const char *name;
	int (*sniff)(const char *data, size_t size);
	int (*open)(struct trace_src *src);
	int (*next)(struct trace_src *src, struct trace_row *row);
	int (*at)(struct trace_src *src, uint64_t pos, struct trace_row *row);
	unsigned long (*line_of)(const struct trace_src *src, uint64_t pos);
	void (*close)(struct trace_src *src);	/* frees priv; may be NULL */
};

/* Opens PATH ('-': standard input) and reads up to the first row.  0, or -1 after one
 * message. */
int rows_open(struct trace_src *src, const char *path);
/* As rows_open, for a trace the user did not name (found beside its .flow): never
 * through a symbolic link (input_open_beside). */
int rows_open_beside(struct trace_src *src, const char *path);

/* What a reader may ask beyond the defaults (dyl-speedup does); every form honours them: */
#define ROWS_NEED_TIMES		1u	/* t_start_ns and t_ns may not be empty ("t_ns is
					 * empty"): a row without times is an error */
#define ROWS_KEEP_PARTIAL	2u	/* a last line without its '\n' is a row like the
					 * others, not a cut-short one */
struct input_file;
/* As rows_open, over a file already in memory (input.h), which stays the caller's:
 * rows_close does not free it, and it must outlive SRC.  FLAGS: ROWS_* above. */
int rows_open_file(struct trace_src *src, const struct input_file *f, unsigned flags);
/* The next row in file order: 1, 0 at the end (then truncated and total_ns are final),
 * -1 after one message. */
int rows_next(struct trace_src *src, struct trace_row *row);
/* The row at POS, from an earlier rows_next. */
int rows_at(struct trace_src *src, uint64_t pos, struct trace_row *row);
/* The line number of the row at POS (0: the format has no lines), for messages. */
unsigned long rows_line_of(const struct trace_src *src, uint64_t pos);
void rows_close(struct trace_src *src);

/* The warnings of a cut-short trace, once, after the last row. */
void rows_warn_truncated(const struct trace_src *src);

/* Messages go through input.h (input_error, input_warning: "dyl-trace: FILE:LINE: text"). */

/* The seq numbers met so far, to find one met twice without keeping the rows: a bit
 * each for seqs up to twice the rows met (seqs number the calls without gaps), a hash
 * table for those beyond, so that no seq in a file sizes the bits. */
struct seq_seen {
	uint64_t *bits;
	size_t words;
	uint64_t rows;
	struct flow_hash far;
};
/* 0, or -1 after the message "seq N again (first on line L)". */
int rows_seq_check(struct trace_src *src, struct seq_seen *seen, const struct trace_row *row);
void rows_seq_free(struct seq_seen *seen);

/* The positions of SRC's rows in seq order (reading them all): *N rows.  A seq met
 * twice is an error naming both lines.  NULL after one message. */
uint64_t *rows_by_seq(struct trace_src *src, size_t *n);

#endif
