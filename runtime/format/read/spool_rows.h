/* spool_rows.h - traces of processes that did not finish, read from their spool.
 *
 * A spool given by name, or a trace without footer that has its spool beside it, is
 * recovered here: the runtime's own decoder (runtime/format/) reads the spool, and its
 * rows are kept as they are, not printed as CSV and parsed again.  rows.c then serves
 * them as the "spool" form of a trace source: the header and the '#' lines are the CSV
 * text the spool holds; the rows come from spool_rows_format. */
#ifndef DYL_READ_SPOOL_ROWS_H
#define DYL_READ_SPOOL_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include "dyl_csv.h"
#include "rows.h"

struct spool_row;
struct dyl_conv;
struct spool_rows {
	char *path;		/* the spool */
	int fd;
	uint64_t size;
	char *header;		/* the trace's header as the spool holds it ('#' lines, columns) */
	size_t header_len;
	unsigned long header_lines;	/* its lines: row N is on line header_lines + N + 1 */
	char *tail;		/* '#' lines after the rows (recovered_from, last_end_ns...), once
				 * they are read: NULL before */
	size_t tail_len;
	unsigned ncolumns;	/* counter columns after args */
	int faults;		/* the counter in the faults column, -1: none */
	struct dyl_conv *conv;	/* rows_next's pass over the rows */
	uint64_t next, max_seq;
	int ended, warned;	/* the rows are all read; the damage is said */
	struct dyl_conv *again;	/* rows_at's pass, and where it stands */
	uint64_t again_pos;
	struct spool_row *late;	/* rows numbered below an earlier row, in pos order */
	size_t nlate, late_room;
	char *late_text;	/* their extra columns */
	size_t late_text_len, late_text_room;
	char **names;		/* by the spool's id: the name as a reader of the CSV sees it */
	int *func_ids;		/* by the spool's id: func_names.h id + 1, 0 until first met */
	uint32_t nnames;
	char extra[DYL_ROW_MAX];	/* the last row's extra columns */
	/* the trace's own lines after '# rows_in_spool=' (its footer), for a spool that has
	 * none: the runtime wrote the footer to the trace when the spool could not grow */
	char *trace_foot;
	size_t trace_foot_len;
};

/* The bytes DATA (SIZE) of the file PATH: when they are a spool, or a trace without its
 * footer with its spool beside it, the spool's rows in *OUT and 0; 1 when there is
 * nothing to recover (read the file as it is); -1 after one message. */
int spool_recover(const char *path, const char *data, size_t size, struct spool_rows **out);
void spool_rows_free(struct spool_rows *s);
/* Would spool_recover try to read a spool for these bytes (the spool itself, or a trace
 * without footer with a spool beside it)?  For a reader that tells traces from other
 * files by their header before reading them. */
int spool_recoverable(const char *path, const char *data, size_t size);

/* The rows of a recovered spool, as a form of trace source (rows.h); src->priv is the
 * struct spool_rows, and the CSV header is read from it first (rows.c). */
extern const struct rows_format spool_rows_format;

#endif
