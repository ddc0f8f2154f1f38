/* dyl_csv.h - the trace's CSV rows: its columns, in the order the trace format fixes,
 * and a decoded row (dyl_decode.h) written as one line of them.  No stdio, no state: the
 * runtime writes its trace with it at exit, the tools their rows of a spool. */
#ifndef DYL_CSV_H
#define DYL_CSV_H

#include <stddef.h>
#include <stdint.h>
#include "dyl_decode.h"

/* The columns every trace starts with (a reader requires them), then the runtime's
 * own two; counter columns (std.papi, std.faults...) follow args. */
#define DYL_CSV_BASE "seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work"
#define DYL_CSV_COLUMNS DYL_CSV_BASE ",depth,args"
#define DYL_CSV_MAX_COUNTERS 16	/* counter columns written at most */

/* One CSV row, '\n'-terminated; returns its length.  ROOM must be at least DYL_ROW_MAX.
 * NCOLUMNS: the counter columns after args.  A name or argument text too long for the
 * row is cut short.  A field holding a comma, quote or line break is quoted (line
 * breaks become blanks). */
#define DYL_ROW_MAX 4096
size_t dyl_format_row(char *out, size_t room, const struct dyl_row *r, unsigned ncolumns);

/* The same row, faster when rows follow each other as a conversion writes them: what
 * the last row had (its seq, its thread and function) is kept in W and reused.  W starts
 * zeroed; the bytes are those of dyl_format_row. */
#define DYL_CSV_MIDS 32	/* (a power of two) */
struct dyl_csv_writer {
	uint64_t seq;		/* the last row's, with its text */
	char seq_txt[24];
	uint32_t seq_len;	/* 0: none yet */
	uint32_t seq_last;	/* its last digit (not kept in SEQ_TXT) */
	/* ",TID,FUNC," of the threads' and functions' last rows, by a hash of both (a
	 * program alternates between a few functions, each thread its own) */
	struct dyl_csv_mid {
		int32_t tid;
		uint32_t func_id;
		const char *func;
		uint32_t len;	/* of TEXT; 0: none (or a name that needs quotes) */
		char text[64];
	} mids[DYL_CSV_MIDS];
	uint32_t last_mid;	/* the last row's */
	/* t_start_ns: its digits above the last 8 (TS_HI, TS_LEN of them) for the values
	 * from TS_BASE (their value x 10^8) on: a start in the same 0.1 s writes its last 8
	 * digits only (a zeroed W: the first 0.1 s, no digits above) */
	uint64_t ts_base;
	uint32_t ts_len;
	char ts_hi[16];
	/* the usual row's end (no sizes, no args, no counters, depth < 10), made for
	 * TAIL_NCOL - 1 counter columns: ",,,,0," then a comma a column and '\n' */
	uint32_t tail_ncol, tail_len;
	char tail[32];
};
size_t dyl_csv_row(struct dyl_csv_writer *w, char *out, size_t room, const struct dyl_row *r,
		   unsigned ncolumns);

/* The run of plain rows ROWS (N of them, thread TID, numbered from SEQ: dyl_conv_plain),
 * the names C's, at OUT: as many as leave DYL_ROW_MAX before END (*DONE of them).  The
 * bytes of dyl_csv_row; returns their end. */
char *dyl_csv_plain(struct dyl_csv_writer *w, char *out, const char *end, const struct dyl_conv *c,
		    int32_t tid, uint64_t seq, const struct dyl_plain *rows, size_t n,
		    unsigned ncolumns, size_t *done);

/* The block a conversion writes at a time: it stays in the L2 cache (bench/spool/:
 * blocks of 1 and 4 MiB cost more a row, 128 KiB the same) */
#define DYL_CONVERT_BLOCK (256u * 1024)
/* Every row of C (from its seq on) as CSV into BUF (SIZE bytes, at least 2 x DYL_ROW_MAX),
 * handed to PUT(ARG, BUF, LEN) each time it is full and at the end; stops when PUT
 * returns nonzero.  Returns the rows written.  (csvconv.c) */
uint64_t dyl_csv_convert(struct dyl_conv *c, char *buf, size_t size,
			 int (*put)(void *arg, const char *data, size_t len), void *arg);

/* The columns after work (depth, args, counters), without the comma before them or a
 * '\n': what a reader of the row calls its extra columns.  ROOM: DYL_ROW_MAX or more. */
size_t dyl_format_extra(char *out, size_t room, const struct dyl_row *r, unsigned ncolumns);

/* V in decimal at P (at most 20 characters); returns the end.  Signed: a '-' first. */
char *dyl_put_u64(char *p, uint64_t v);
char *dyl_put_i64(char *p, int64_t v);

#endif
