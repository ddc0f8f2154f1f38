/* dyl_decode.h - the spool (dyl_spool.h) back into rows, in seq order.
 *
 * Runs inside the profiled process when its image ends (the runtime converts its own
 * spool into the trace) and in the tools after a crash (dyl-trace reads the rows
 * directly).  So it takes no lock, calls no malloc (memory comes from mmap: the runtime
 * may be running inside a wrapper of malloc) and no stdio, and keeps no state outside
 * struct dyl_conv.
 */
#ifndef DYL_DECODE_H
#define DYL_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include "dyl_spool.h"


struct dyl_row {
	uint64_t seq;
	int32_t tid;
	const char *func;	/* its name, FUNC_LEN bytes */
	uint32_t func_id, func_len;	/* the spool's id of the name (dyl_conv_name) */
	int timed;		/* t_start_ns and t_ns known */
	uint64_t t_start_ns, t_ns;
	int64_t in_bytes, out_bytes, work;	/* DYL_NONE: empty */
	uint32_t depth;
	const char *args;	/* NULL or ARGS_LEN bytes */
	uint32_t args_len;
	uint32_t counter_base, ncounters;
	const int64_t *counters;	/* NULL or NCOUNTERS values (in counter_buf when narrow) */
	int64_t counter_buf[DYL_MAX_COUNTERS];
};

struct dyl_conv;	/* opaque; its memory comes from mmap, never malloc */

/* Opens the spool FD (its first SIZE bytes: the runtime's own spool may have space
 * reserved beyond).  Read with pread, a block at a time when its turn comes: memory
 * stays a block per thread whatever the spool's size.  FLAGS: DYL_CONV_WINDOWS: also
 * the records still in windows, not copied out (a reader after a crash; the runtime
 * itself copies them out first).  NULL when FD is not a spool, with *WHY set. */
#define DYL_CONV_WINDOWS 1
struct dyl_conv *dyl_conv_open(int fd, uint64_t size, int flags, const char **why);
/* Numbers from SEQ on (an image converting a second spool after a failed exec); the
 * next free number after the rows so far. */
void dyl_conv_set_seq(struct dyl_conv *c, uint64_t seq);
uint64_t dyl_conv_seq(const struct dyl_conv *c);
/* The next row in seq order (a call numbered at an earlier place may come late): 1, or
 * 0 at the end. */
int dyl_conv_next(struct dyl_conv *c, struct dyl_row *row);
/* The usual rows, faster: calls of one thread in a row, each a plain record (no sizes,
 * arguments or counters, timed in ticks), as a thread whose calls do not nest leaves
 * them.  Up to MAX of them into OUT with their thread in *TID, numbered from *SEQ on;
 * how many, or 0 when the next row is not such (dyl_conv_next gives it).  Both may be
 * called in any order: the rows are the same, in the same order. */
struct dyl_plain {
	uint64_t t_start_ns, t_ns;
	uint32_t func_id, depth;
};
size_t dyl_conv_plain(struct dyl_conv *c, struct dyl_plain *out, size_t max, int32_t *tid,
		      uint64_t *seq);
/* What the spool says of itself: the CSV header text (comment lines and the column
 * line, '\n'-terminated), the number of extra counter columns, the end of the last call
 * (ns since the process started), whether the spool was cut short. */
const char *dyl_conv_header(const struct dyl_conv *c, size_t *len);
/* The trace's footer ('#' lines from '# end_ns=' on) when the process finished and left
 * its rows in the spool (a FOOT chunk: DYL_CONVERT=later), else NULL.  Such a spool's
 * windows are not read, DYL_CONV_WINDOWS or not: every row is in a block. */
const char *dyl_conv_footer(const struct dyl_conv *c, size_t *len);
/* The function names: ids 0 .. nnames - 1; an id the spool names nothing for is "?".
 * A name is cut at DYL_NAME_MAX bytes. */
#define DYL_NAME_MAX 512
uint32_t dyl_conv_nnames(const struct dyl_conv *c);
const char *dyl_conv_name(const struct dyl_conv *c, uint32_t id, uint32_t *len);
unsigned dyl_conv_ncolumns(const struct dyl_conv *c);
uint64_t dyl_conv_last_end_ns(const struct dyl_conv *c);
int dyl_conv_cut_short(const struct dyl_conv *c);
/* Where the spool is damaged (a chunk or record whose sizes do not add up, as from a
 * disk error or a stray write): the byte offset of the first such place, 0 if none,
 * and in *WHAT what was lost there.  Known once the rows are read: a record is checked
 * when its block's turn comes.  Nothing is read past a damaged place's own bytes. */
uint64_t dyl_conv_damage(const struct dyl_conv *c, const char **what);
/* TICKS of the spool's clock as ns since the process started, as a row's t_start_ns
 * (thread events' times, events.c). */
uint64_t dyl_conv_ns(struct dyl_conv *c, uint64_t ticks);
void dyl_conv_close(struct dyl_conv *c);

#endif
