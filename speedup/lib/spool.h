/* spool.h - traces of processes that did not finish, read from their spool.
 *
 * A spool given by name, or a trace without footer that has its spool beside it, is
 * recovered here: the runtime's own decoder (runtime/format/) reads the spool, and its
 * rows are kept as they are, not printed as CSV and parsed again.  rows.c then serves
 * them as the "spool" form of a trace source: the header and the '#' lines are the CSV
 * text the spool holds; the rows come from spool_rows_format. */
#ifndef SPEEDUP_SPOOL_H
#define SPEEDUP_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include "rows.h"

struct spool_row;
struct spool_rows {
	char *header;		/* the trace's header as the spool holds it ('#' lines, columns) */
	size_t header_len;
	unsigned long header_lines;	/* its lines: row N is on line header_lines + N + 1 */
	char *tail;		/* '#' lines after the rows: recovered_from, last_end_ns... */
	size_t tail_len;
	unsigned ncolumns;	/* counter columns after args */
	struct spool_row *rows;	/* in the order the decoder gives them */
	size_t n, room, next;	/* NEXT: the row rows_next gives next */
	char *text;		/* the rows' extra columns (depth, args, counters) as CSV */
	size_t text_len, text_room;
	char **names;		/* by the spool's id: the name as a reader of the CSV sees it */
	int *func_ids;		/* by the spool's id: funcs.h id + 1, 0 until first met */
	uint32_t nnames;
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
