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
#define DYL_THREAD_BUF (64 * 1024)	/* formatted rows kept per thread before a write */
#define DYL_ROW_MAX 4096		/* longest row; longer args are cut */
#define DYL_MAX_COLUMNS 16
#define DYL_ARGS_LEVELS 64		/* nesting levels with their own args buffer */

/* Per-thread state: allocated with mmap, so that no malloc is needed on any path. */
struct dyl_thread {
	struct dyl_thread *next;	/* in dyl_rt.threads */
	pid_t tid;
	uint32_t depth;
	uintptr_t frames[DYL_MAX_FRAMES];	/* where each open call's dyl_call lies on the stack */
	volatile uint32_t len;	/* bytes of complete rows in buf; only the owner appends */
	uint32_t flushed;	/* bytes of buf already written by another thread's flush */
	pthread_mutex_t flush_lock;	/* one flusher at a time (the owner or dyl_finish) */
	char args[DYL_ARGS_LEVELS][1024];	/* std.args text, one per nesting level in flight */
	char buf[DYL_THREAD_BUF];
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
	uint64_t t0;		/* clock at start, ns */
	uint64_t seq;		/* next call number, taken by dyl_enter */
	int fd;			/* trace file, -1 until claimed */
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
HIDDEN extern TLS struct dyl_thread *dyl_self;
HIDDEN extern TLS int dyl_busy;	/* >0 while the runtime runs: wrapped calls it makes are not recorded */

HIDDEN void dyl_init(void);
HIDDEN uint64_t dyl_realtime_ns(void);
HIDDEN struct dyl_thread *dyl_thread_get(void);
HIDDEN void dyl_flush_thread(struct dyl_thread *t);
HIDDEN void dyl_finish(void);	/* flush everything, write the footer */
HIDDEN void dyl_trace_setup(void);	/* at start-up: remember $DYL_TRACE */
HIDDEN void dyl_trace_claim(void);	/* at the first recorded call: take the name */
HIDDEN void dyl_trace_write(const char *data, size_t len);
HIDDEN void dyl_trace_footer(void);
HIDDEN void dyl_trace_drop_unused(void);	/* before exec: give back a claimed, unwritten file */
HIDDEN void dyl_trace_reset_after_fork(void);
HIDDEN size_t dyl_format_row(char *out, size_t room, const struct dyl_call *c, uint64_t seq,
			     pid_t tid);

#endif
