/* internal.h - what the runtime's files share; nothing here is exported. */
#ifndef DYL_INTERNAL_H
#define DYL_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include "dyl.h"

#define HIDDEN __attribute__((visibility("hidden")))
#define TLS __thread __attribute__((tls_model("initial-exec")))

#define DYL_MAX_FRAMES 64	/* open calls whose stack place is remembered */
#define DYL_THREAD_BUF (256 * 1024)	/* binary records kept per thread before a write-out */
#define DYL_ROW_MAX 4096		/* longest CSV row; longer args are cut */
#define DYL_MAX_COLUMNS 16
#define DYL_ARGS_LEVELS 64		/* nesting levels with their own args buffer */

/* One call as the per-call path leaves it in its thread's buffer: 16 bytes, which
 * are most of the cost of writing it out.  Calls that need more (byte counts, a
 * reserved call number, counters, argument text, or a value too big for its field
 * here) set DYL_REC_EXT and carry a payload (record.c).  Times are clock ticks; the
 * call number is given at write-out. */
struct dyl_rec {
	uint64_t t_start;
	uint32_t dur;		/* t_end - t_start in ticks (in ns with DYL_REC_DUR_NS) */
	uint32_t meta;		/* function id (bits 0-19), depth (20-27), flags (28-31) */
};
#define DYL_REC_FUNC_BITS 20
#define DYL_REC_DEPTH_MAX 255
#define DYL_REC_DUR_NS 1u	/* the duration is in ns (DYL_CALL_DUR_NS) */
#define DYL_REC_EXT 2u		/* a payload follows (record.c) */
#define DYL_ARGS_MAX 1023	/* argument text kept per call */
/* the longest record: header, payload header, seq, sizes, extra header, counters, args */
#define DYL_REC_MAX (sizeof(struct dyl_rec) + 24 + 8 + 24 + 8 + 8 * DYL_MAX_COUNTERS + \
		     DYL_ARGS_MAX + 8)

/* A record's payload header (first payload word, with DYL_REC_EXT) */
#define DYL_X_SEQ 1u		/* the call number reserved for it */
#define DYL_X_SIZES 2u		/* in_bytes, out_bytes, work */
#define DYL_X_EXTRA 4u		/* counters and/or args */
static inline uint32_t dyl_rec_size(const struct dyl_rec *r)
{
	const uint64_t *w = (const uint64_t *)(r + 1);
	return (uint32_t)sizeof(*r) + ((r->meta >> 28 & DYL_REC_EXT) ? 8u * (uint32_t)(w[0] & 0xff) : 0);
}
static inline uint32_t dyl_rec_depth(const struct dyl_rec *r)
{
	const uint64_t *w = (const uint64_t *)(r + 1);
	return (r->meta >> 28 & DYL_REC_EXT) ? (uint32_t)(w[0] >> 32) : (r->meta >> 20 & 0xff);
}
/* the reserved number, if R has one */
static inline int dyl_rec_seq(const struct dyl_rec *r, uint64_t *seq)
{
	const uint64_t *w = (const uint64_t *)(r + 1);
	if (!(r->meta >> 28 & DYL_REC_EXT) || !(w[0] >> 8 & DYL_X_SEQ))
		return 0;
	*seq = w[3];
	return 1;
}

/* Per-thread state: allocated with mmap, so that no malloc is needed on any path. */
struct dyl_thread {
	struct dyl_thread *next;	/* in dyl_rt.threads */
	pid_t tid;
	uint32_t depth;
	uintptr_t frames[DYL_MAX_FRAMES];	/* where each open call's dyl_call lies on the stack */
	/* seq + 1 of the open call at each level that was numbered at a write-out before
	 * it ended (it started before rows already written), 0 when none */
	uint64_t reserved[DYL_MAX_FRAMES];
	volatile uint32_t len;	/* bytes of complete records in buf; only the owner appends */
	uint32_t flushed;	/* bytes of buf already written by another thread's flush */
	pthread_mutex_t flush_lock;	/* one flusher at a time (the owner or dyl_finish) */
	char args[DYL_ARGS_LEVELS][1024];	/* std.args text, one per nesting level in flight */
	char buf[DYL_THREAD_BUF] __attribute__((aligned(64)));
};

/* The one piece of process-wide state. */
struct dyl_runtime {
	int initialized;	/* 0, 1 while initializing, 2 ready */
	int off;		/* DYL_OFF: forward only */
	int disabled;		/* the trace cannot be written: forward only */
	int forked;		/* a forked child: never takes the shared PATH */
	int finished;		/* the footer is written */
	pid_t pid;
	unsigned long long start_ticks;	/* the process's start time (/proc/self/stat) */
	uint64_t start_ns;	/* CLOCK_REALTIME when this image (or forked child) started */
	uint64_t t0;		/* clock at start, ticks */
	uint64_t t0_ns;		/* CLOCK_MONOTONIC at start (for total_ns) */
	uint64_t seq;		/* next call number, taken per write-out */
	int fd;			/* trace file, -1 until claimed */
	int spool_fd;		/* binary write-outs (spool.c), -1 when none */
	int no_spool;		/* the trace is not a regular file, or no spool can be made */
	uint64_t spool_size;
	uint64_t spool_alloc;	/* bytes reserved with fallocate; UINT64_MAX: unsupported */
	char spool_path[4096 + 16];
	int header_done;	/* the header is written (columns and notes are fixed) */
	char tmpl[4096];	/* $DYL_TRACE made absolute at start-up (%p not expanded) */
	char path[4096];
	const char *filter;	/* DYL_FILTER */
	/* Lock order: lock, a thread's flush_lock, io, meta. */
	pthread_mutex_t lock;	/* the threads list */
	pthread_mutex_t io;	/* the trace file */
	pthread_mutex_t meta;	/* columns, notes, header_done, warned: held around no call */
	struct dyl_thread *threads;
	pthread_key_t key;	/* thread-exit flush */
	unsigned ncolumns;
	const char *columns[DYL_MAX_COLUMNS];
	char notes[4096];	/* '# key=value' lines written with the header */
	char warned[1024];	/* keys already warned about */
};

HIDDEN extern struct dyl_runtime dyl_rt;

/* dyl_rt.disabled is read on every call, outside any lock, and set under dyl_rt.io;
 * dyl_rt.fd is read outside the lock too: both go through atomics. */
#define DYL_DISABLED() __atomic_load_n(&dyl_rt.disabled, __ATOMIC_RELAXED)
#define DYL_DISABLE() __atomic_store_n(&dyl_rt.disabled, 1, __ATOMIC_RELAXED)
#define DYL_SET_FD(v) __atomic_store_n(&dyl_rt.fd, (v), __ATOMIC_RELEASE)
HIDDEN extern TLS struct dyl_thread *dyl_self;
HIDDEN extern TLS int dyl_busy;	/* >0 while the runtime runs: wrapped calls it makes are not recorded */

HIDDEN void dyl_init(void);
HIDDEN struct dyl_thread *dyl_thread_get(void);
/* Writes T's records out; OPEN: the owner's open calls (levels 0..OPEN-1) that started
 * before some of them and must be numbered before them. */
HIDDEN void dyl_flush_thread(struct dyl_thread *t, uint32_t open);
HIDDEN int dyl_recorded_any(void);	/* has this image recorded a call? */

/* fatal.c */
HIDDEN void dyl_fatal_setup(void);	/* write the trace out on a fatal signal */

/* clock.c */
HIDDEN void dyl_clock_setup(void);
HIDDEN uint64_t dyl_monotonic_ns(void);
HIDDEN uint64_t dyl_realtime_ns(void);
HIDDEN void dyl_clock_mark(void);	/* a calibration point; dyl_rt.io held */
HIDDEN uint64_t dyl_ticks_to_ns(uint64_t ticks);	/* dyl_rt.io held */
HIDDEN uint64_t dyl_clock_cost_ns(void);
HIDDEN const char *dyl_clock_name(void);

/* funcs.c */
HIDDEN void dyl_func_decide(struct dyl_func *f, int record);
HIDDEN const char *dyl_func_name(uint32_t id);
HIDDEN void dyl_funcs_after_fork(void);

/* record.c */
struct dyl_open {	/* a call open at a write-out, numbered in its block */
	uint64_t start;	/* ticks */
	uint16_t level;
	uint16_t pad[3];
};
HIDDEN uint32_t dyl_rec_put(struct dyl_rec *r, const struct dyl_call *c, uint64_t seq1,
			    uint64_t dur, uint32_t id, uint32_t depth);
HIDDEN int dyl_rec_before(uint64_t start_a, uint32_t depth_a, uint64_t start_b, uint32_t depth_b);
HIDDEN void dyl_rec_convert(pid_t tid, const char *recs, uint32_t len, const struct dyl_open *open,
			    uint32_t nopen, uint64_t base);

/* spool.c */
HIDDEN void dyl_spool_out(struct dyl_thread *t, uint32_t from, uint32_t to, uint32_t open);
HIDDEN void dyl_spool_convert(void);	/* dyl_rt.io held: every spooled row into the trace */
HIDDEN void dyl_spool_drop(void);	/* dyl_rt.io held */
HIDDEN void dyl_spool_after_fork(void);

/* one CSV row, decoded from a record */
struct dyl_row {
	uint64_t seq;
	pid_t tid;
	const char *func;
	int timed;		/* t_start_ns and t_ns known */
	uint64_t t_start_ns, t_ns;
	int64_t in_bytes, out_bytes, work;
	uint32_t depth;
	const char *args;	/* NULL or ARGS_LEN bytes */
	uint32_t args_len;
	uint32_t counter_base, ncounters;
	const int64_t *counters;
};
HIDDEN void dyl_finish(void);	/* flush everything, write the footer */
HIDDEN void dyl_trace_setup(void);	/* at start-up: remember $DYL_TRACE */
HIDDEN void dyl_trace_claim(void);	/* at the first recorded call: take the name */
HIDDEN void dyl_trace_write(const char *data, size_t len);
/* dyl_trace_write in pieces: lock (and open the file, write the header), put, unlock */
HIDDEN int dyl_trace_lock(void);	/* 0: the trace cannot be written (unlocked then) */
HIDDEN void dyl_trace_put(const char *data, size_t len);
HIDDEN void dyl_trace_unlock(void);
HIDDEN void dyl_trace_footer(void);
HIDDEN void dyl_trace_drop_unused(void);	/* before exec: give back a claimed, unwritten file */
HIDDEN void dyl_trace_reset_after_fork(void);
HIDDEN size_t dyl_format_row(char *out, size_t room, const struct dyl_row *r);

#endif
