/* dyl_spool.h - the spool: what the runtime keeps on disk beside a trace while the
 * process runs.  The one definition of its layout and constants (doc/specs/spool.md
 * tells the protocol); the decoder (dyl_decode.h) and the CSV rows (dyl_csv.h) are
 * beside it in runtime/format/, compiled into the runtime and into the tools.
 *
 * The spool of DIR/NAME is DIR/.NAME.dylspool (or a memfd when the trace is not a
 * regular file).  It is written so that a process killed at any moment (SIGKILL) leaves
 * every call it completed readable:
 *   - each recording thread appends its records to a window: 256 KiB of the spool
 *     mapped MAP_SHARED, so a record is in the file (the page cache) once stored;
 *   - a full window is copied out as a block, appended to the spool, and reused;
 *   - the function names, the clock's calibration and the CSV header are chunks too.
 * At exit the runtime converts the spool into CSV rows (decode.c, csv.c) and removes it;
 * after a crash `dyl-trace` runs the same converter over it.
 *
 * Layout: struct dyl_spool_head, then chunks, each 8-byte aligned, each starting with
 * struct dyl_chunk.  Windows start on a page (they are mapped); a PAD chunk fills the
 * gap before one.  A reader stops at the first chunk that is not whole.
 *
 * seq is given by the converter: every thread's records in start order (outer call
 * first at equal start), merged across threads by start (then tid).  A call still open
 * when its window was copied out started before rows of that block: the block lists
 * it as an open call (struct dyl_open) at its place, and its record, written in a later
 * block, carries DYL_X_SEQ ("numbered at an earlier place").
 */
#ifndef DYL_SPOOL_H
#define DYL_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include "dyl_limits.h"	/* DYL_NONE, DYL_MAX_COUNTERS: the API's values, which records carry */

#define DYL_SPOOL_MAGIC "DYLSPOOL"
#define DYL_SPOOL_VERSION 3u
#define DYL_WINDOW_SIZE (256u * 1024)	/* a window, header included */
/* Open calls a block lists at most: the nesting levels whose place the runtime keeps
 * (its DYL_MAX_FRAMES); deeper open calls are never listed. */
#define DYL_SPOOL_LEVELS 64

struct dyl_spool_head {
	char magic[8];
	uint32_t version;
	uint32_t zero;		/* 0; DYL_SPOOL_DISK_FULL once a write failed */
};
/* set in place in the head when the spool could not be written (ENOSPC, EFBIG): its
 * rows end there because the disk was full, not because the process was killed */
#define DYL_SPOOL_DISK_FULL 1u

struct dyl_chunk {
	uint32_t kind;		/* DYL_CH_* */
	uint32_t len;		/* bytes after this header (a multiple of 8) */
};
enum {
	DYL_CH_META = 0x4154454du,	/* "META": u32 ncolumns, u32 text length, the CSV header text */
	DYL_CH_NAMES = 0x454d414eu,	/* "NAME": u32 first id, u32 count, NUL-terminated names */
	DYL_CH_CLOCK = 0x4b4c4f43u,	/* "CLOK": struct dyl_spool_clock, then knots */
	DYL_CH_WINDOW = 0x4e495757u,	/* "WWIN": struct dyl_window */
	DYL_CH_BLOCK = 0x4b4c4242u,	/* "BBLK": struct dyl_block, opens, records */
	DYL_CH_PAD = 0x44415050u,	/* "PPAD" */
	DYL_CH_EVENTS = 0x53545645u,	/* "EVTS": u32 count, u32 0, struct dyl_event records */
	/* "FOOT": u32 text length, u32 0, the trace's footer ('# total_ns=' ...): the process
	 * finished and every row is in a block (its windows are not read) */
	DYL_CH_FOOTER = 0x544f4f46u,
};

/* A thread's window.  Only its owner stores into data and len; len is stored after the
 * record it covers, so a reader of the file sees whole records only. */
struct dyl_window {
	struct dyl_chunk ch;
	int32_t tid;		/* the thread writing into it now */
	uint32_t id;		/* blocks name their window by it */
	uint32_t gen;		/* times it was emptied: blocks name the generation they copied */
	uint32_t len;		/* bytes of whole records in data */
	uint32_t size;		/* bytes of data */
	uint32_t pad[9];
	char data[] __attribute__((aligned(64)));
};
#define DYL_WINDOW_DATA (DYL_WINDOW_SIZE - sizeof(struct dyl_window))
#define DYL_NO_WINDOW UINT32_MAX

/* A block: records copied out of a window (data[from..to) of generation gen). */
struct dyl_block {
	struct dyl_chunk ch;
	int32_t tid;
	uint32_t window;	/* DYL_NO_WINDOW: from a thread's private buffer */
	uint32_t gen;
	uint32_t from, to;
	uint32_t nopen;		/* struct dyl_open entries after this header */
	uint64_t min_start;	/* the least start of its records and open calls (ticks) */
};

/* A call open when its thread's records were copied out (see the top). */
struct dyl_open {
	uint64_t start;		/* ticks */
	uint16_t level;		/* its depth */
	uint16_t pad[3];
};

/* The clock's calibration: knots (tsc, CLOCK_MONOTONIC ns) follow; with fewer than two,
 * the provisional pair gives the slope (a killed process may leave no second knot). */
struct dyl_spool_clock {
	uint32_t tsc;		/* ticks are TSC ticks (else they are ns already) */
	uint32_t nknots;
	uint64_t t0;		/* the process's start, ticks */
	uint64_t prov_tsc, prov_ns;	/* 0 when none */
};
struct dyl_knot {
	uint64_t tsc, ns;
};

/* One call as the per-call path leaves it: 16 bytes, most of the cost of writing it
 * out (a write-out costs about 0.4 ns a byte here).  Calls that need more (byte counts,
 * counters, argument text, a value too big for its field here) set DYL_REC_EXT and carry
 * a payload: a header word, then packed fields, padded to 8 bytes:
 *   header: u8 words (the payload's, this one included), u8 DYL_X_*, u8 ncounters,
 *           u8 counter_base, u32 args_len
 *   DYL_X_WIDE: u64 t_end (or the duration in ns, DYL_REC_DUR_NS), u32 function id,
 *           u32 depth: when the 16 bytes cannot hold them (their fields are then not read)
 *   DYL_X_SIZES: in_bytes, out_bytes, work
 *   ncounters counters
 *   args_len bytes of text
 * ncounters is at most DYL_MAX_COUNTERS.  An empty size is DYL_NONE.
 * Sizes and counters are i64, or with DYL_X_NARROW (all of them fit) u32 sizes (UINT32_MAX:
 * none) and i32 counters: a call with byte counts and a counter takes 40 bytes, not 80.
 * Times are clock ticks. */
struct dyl_rec {
	uint64_t t_start;
	uint32_t dur;		/* t_end - t_start in ticks (in ns with DYL_REC_DUR_NS) */
	uint32_t meta;		/* function id (bits 0-19), depth (20-27), flags (28-31) */
};
#define DYL_REC_FUNC_BITS 20
#define DYL_REC_DEPTH_MAX 255
#define DYL_REC_DUR_NS 1u	/* the duration is in ns (DYL_CALL_DUR_NS) */
#define DYL_REC_EXT 2u		/* a payload follows */
#define DYL_X_SEQ 1u		/* numbered at its place in an earlier block (no word) */
#define DYL_X_SIZES 2u		/* in_bytes, out_bytes, work */
#define DYL_X_WIDE 4u		/* end or duration, id and depth at full width */
#define DYL_X_NARROW 8u		/* sizes in 32 bits, counters in 32 */

static inline uint32_t dyl_rec_size(const struct dyl_rec *r)
{
	const uint64_t *w = (const uint64_t *)(r + 1);
	return (uint32_t)sizeof(*r) + ((r->meta >> 28 & DYL_REC_EXT) ? 8u * (uint32_t)(w[0] & 0xff) : 0);
}
static inline uint32_t dyl_rec_depth(const struct dyl_rec *r)
{
	const uint64_t *w = (const uint64_t *)(r + 1);
	return (r->meta >> 28 & DYL_REC_EXT) && (w[0] >> 8 & DYL_X_WIDE) ? (uint32_t)(w[2] >> 32)
								       : (r->meta >> 20 & 0xff);
}

/* Thread events (runtime/threads/): thread start and end, joins, OpenMP parallel regions,
 * written to the spool as they happen (an EVTS chunk each time), so that a killed run
 * keeps them.  The converter (events.c) turns them into the trace's '#' lines. */
struct dyl_event {
	uint32_t kind;		/* DYL_EV_* */
	int32_t tid;		/* the thread it happened in */
	int32_t parent;		/* START: the thread that called pthread_create */
	uint32_t on;		/* WAIT, WAKE: what the object is (DYL_ON_*); else 0 */
	uint64_t handle;	/* START: the thread's pthread_t; JOIN: the joined thread's;
				 * WAIT, WAKE: the object's address */
	uint64_t t1, t2;	/* ticks.  START: create, start; END: end; JOIN, PARALLEL and
				 * WAIT: call, return; WAKE: call */
};
enum {
	DYL_EV_ON = 1,		/* the wrapper interposes thread calls (no times) */
	DYL_EV_START = 2,	/* a thread's start routine begins */
	DYL_EV_END = 3,		/* it returned, or the thread called pthread_exit or was cancelled */
	DYL_EV_JOIN = 4,	/* pthread_join (or a _np join) that succeeded */
	DYL_EV_PARALLEL = 5,	/* GOMP_parallel: an OpenMP parallel region */
	DYL_EV_WAIT = 6,	/* a wait that blocked: on a condition variable, a mutex, a
				 * semaphore; every barrier wait (its arrival wakes the others) */
	DYL_EV_WAKE = 7,	/* what may end another thread's wait: a signal or broadcast
				 * with waiters, an unlock or post with waiters */
	DYL_EV_NAME = 8,	/* the thread's name (PR_GET_NAME, at its end; at the process's
				 * end for those still running): its 16 bytes, NUL-padded, in
				 * handle then t1, as memory has them */
	/* process events (runtime/procs/, doc/jobs.md): t1 the call, t2 the return */
	DYL_EV_PROCS_ON = 9,	/* the wrapper interposes process calls (no times) */
	DYL_EV_FORK = 10,	/* fork, vfork, clone as fork: handle the child's pid */
	DYL_EV_SPAWN = 11,	/* posix_spawn, posix_spawnp: handle the child's pid */
	DYL_EV_EXEC = 12,	/* the exec family: the image ends here */
	DYL_EV_WAITPID = 13,	/* a blocking wait that returned child HANDLE */
	DYL_EV_PIPE_WRITE = 14,	/* write, writev on a pipe or FIFO: handle its inode, bytes in
				 * on (low 32 bits) and parent (high 32) */
	DYL_EV_PIPE_READ = 15,	/* read, readv: the same (bytes 0: end of file) */
};
/* what a WAIT or WAKE is on (the trace's on=) */
enum { DYL_ON_COND = 1, DYL_ON_MUTEX = 2, DYL_ON_SEM = 3, DYL_ON_BARRIER = 4 };

/* The spool's path for the trace PATH: DIR/.NAME.dylspool.  0, or -1 if too long. */
int dyl_spool_name(char *out, size_t room, const char *path);

#endif
