/* internal.h - what the runtime's files share; nothing here is exported.
 *
 * The runtime is layered: each file calls only its own layer and those below.  The
 * layers, their files and what each may use are listed once, in tests/runtime/layers.py,
 * which checks them.  The core (the files of runtime/ itself) names no feature; the
 * features sit above it, each in its own folder, and runtime/start.c, which starts every
 * part in order, above them all.  A feature the core must call installs a hook
 * (dyl_hooks).
 */
#ifndef DYL_INTERNAL_H
#define DYL_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include "dyl.h"
#include "dyl_spool.h"
#include "dyl_keys.h"	/* the trace's '#' lines: their keys */

#define HIDDEN __attribute__((visibility("hidden")))
#define TLS __thread __attribute__((tls_model("initial-exec")))

/* Invariants (the spool's windows, locks held, the region table), checked in debug
 * builds only (make DEBUG=1: -DDYL_DEBUG), where a failure names the file and line and
 * aborts; in release builds they cost nothing, not even the evaluation of X. */
#ifdef DYL_DEBUG
HIDDEN void dyl_assert_fail(const char *what, const char *file, int line)
	__attribute__((noreturn));
#define DYL_ASSERT(x) ((x) ? (void)0 : dyl_assert_fail(#x, __FILE__, __LINE__))
#include <errno.h>
/* M is held (by some thread: a mutex does not say by which) */
#define DYL_ASSERT_HELD(m) DYL_ASSERT(pthread_mutex_trylock(m) == EBUSY)
#else
#define DYL_ASSERT(x) ((void)sizeof(!(x)))	/* (not evaluated; its variables count as used) */
#define DYL_ASSERT_HELD(m) ((void)sizeof(m))
#endif

#define DYL_MAX_FRAMES DYL_SPOOL_LEVELS	/* open calls whose stack place is remembered */
#define DYL_MAX_COLUMNS 16
#define DYL_ARGS_LEVELS 64		/* nesting levels with their own args buffer */

/* the longest record: the 16 bytes, payload header, wide fields, sizes, counters, args,
 * padding (dyl_spool.h) */
#define DYL_REC_MAX (sizeof(struct dyl_rec) + 8 + 16 + 24 + 8 * DYL_MAX_COUNTERS + \
		     DYL_ARGS_MAX + 8)
#define DYL_ARGS_MAX 1023	/* argument text kept per call */

/* What tracing itself costs the process (runtime.c): the runtime times every
 * DYL_COST_EVERY-th call whole, from dyl_enter to the end of dyl_leave, less its own
 * t_ns (the first DYL_COST_FIRST calls of a thread all), each sample weighted by the
 * calls it stands for; write-outs and set-up are timed whole.  Sums, in clock ticks
 * unless named _ns. */
#define DYL_COST_EVERY 32
#define DYL_COST_FIRST 64
struct dyl_cost {
	uint64_t outer;		/* dyl_enter to the end of dyl_leave, weighted */
	uint64_t outer_ns;	/* the same in thread CPU ns, when calls are timed so */
	uint64_t inner;		/* the same calls' t_end - t_start, weighted */
	uint64_t inner_ns;	/* their durations kept in ns (DYL_CALL_DUR_NS), weighted */
	uint64_t whole;		/* write-outs and set-up, timed every time */
	uint64_t outside;	/* the part of whole spent with no call open on its thread
				 * (set-up, the exit's write-out, a host read's fault): in no
				 * call's t_ns, so in no replaced call's either (dyl-speedup) */
	uint64_t samples;	/* calls timed whole */
};

/* Per-thread state: allocated with mmap, so that no malloc is needed on any path. */
struct dyl_thread {
	struct dyl_thread *next;	/* in dyl_proc.threads */
	/* where the per-call path appends: a window of the spool (dyl_spool.h), or the
	 * private one below until the spool has one for this thread */
	struct dyl_window *win;
	pid_t tid;
	uint32_t depth;
	uint32_t cost_left;	/* calls until the next one timed whole (beside depth: the
				 * per-call path touches one line of this struct) */
	uint32_t cost_period;	/* the calls between two timed whole, the last one included */
	uint64_t cost_taken;	/* calls timed whole so far */
	uintptr_t frames[DYL_MAX_FRAMES];	/* where each open call's dyl_call lies on the stack */
	/* 1 at each level whose open call a write-out listed (it started before rows
	 * already written out: it is numbered at that place, dyl_spool.h) */
	uint64_t reserved[DYL_MAX_FRAMES];
	uint32_t flushed;	/* bytes of the window already written by another thread's flush */
	struct dyl_cost cost;	/* this thread's (dyl_costs.sum once it ends) */
	pthread_mutex_t flush_lock;	/* one flusher at a time (the owner or dyl_finish) */
	char args[DYL_ARGS_LEVELS][1024];	/* std.args text, one per nesting level in flight */
	char own_window[DYL_WINDOW_SIZE] __attribute__((aligned(4096)));
};
#define DYL_OWN_WINDOW(t) ((struct dyl_window *)(t)->own_window)

/* The process-wide state, one struct per owner (the part that writes it).  Lock order:
 * dyl_proc.lock, a thread's flush_lock, dyl_out.io, dyl_meta.lock. */

/* The process (runtime.c): who it is and when it started, set at start-up and again in
 * a forked child, and its threads.  The per-call path reads off and pending. */
struct dyl_proc {
	int initialized;	/* 0, 1 while initializing, 2 ready */
	int off;		/* DYL_OFF: forward only */
	int pending;		/* a forked child's thread keeps its private window until the
				 * child claims its own trace: the next call does */
	int forked;		/* a forked child: never takes the shared PATH */
	int secure;		/* AT_SECURE: off, and nothing read from the environment */
	pid_t pid;
	pid_t ppid;		/* its parent (getppid at start, and in a forked child) */
	int exec_of;		/* an earlier image of this process wrote a trace and exec'd
				 * this one (DYL_EXEC_OF, runtime/procs/) */
	int argc;		/* the program's arguments, as glibc gives constructors */
	char **argv;		/* (NULL: unknown; /proc/self/cmdline then) */
	const char *filter;	/* DYL_FILTER */
	uint64_t start_ns;	/* CLOCK_REALTIME when this image (or forked child) started */
	uint64_t t0;		/* clock at start, ticks */
	uint64_t t0_ns;		/* CLOCK_MONOTONIC at start (for total_ns) */
	uint64_t startup_ns;	/* the process's CPU time at start: exec, the dynamic loader
				 * and the constructors before ours, which total_ns misses */
	pthread_mutex_t lock;	/* the threads list */
	struct dyl_thread *threads;
	pthread_key_t key;	/* thread-exit flush */
};
HIDDEN extern struct dyl_proc dyl_proc;

/* What tracing cost the process (struct dyl_cost): threads that ended (runtime.c) and
 * the set-up and write-outs (dyl_cost_add); how calls are timed (notes.c). */
struct dyl_costs {
	struct dyl_cost sum;	/* of threads that ended, and the process's set-up; lock */
	int cpu;		/* calls timed in thread CPU time (std.time clock=thread): the
				 * calls timed whole are too, or a call's sleep would count */
};
HIDDEN extern struct dyl_costs dyl_costs;

/* The output (trace.c, output.c): the trace file, its name and the lock of the output. */
struct dyl_out {
	int disabled;		/* the trace cannot be written: forward only */
	int finished;		/* the footer is written */
	int fd;			/* trace file, -1 until claimed */
	dev_t fd_dev;		/* its file (dyl_fd_check) */
	ino_t fd_ino;
	int header_done;	/* the header is written (columns and notes are fixed) */
	unsigned long long start_ticks;	/* the process's start time (/proc/self/stat) */
	pthread_mutex_t io;	/* the trace file: dyl_io_lock, dyl_io_unlock */
	int io_cancel;		/* the holder's cancel state before dyl_io_lock */
	char tmpl[4096];	/* $DYL_TRACE made absolute at start-up (%p not expanded) */
	char path[4096];
};
HIDDEN extern struct dyl_out dyl_out;

/* The spool (spool.c): its file, its windows, what it holds.  dyl_out.io guards it. */
struct dyl_spool {
	int fd;			/* -1 when none */
	int memfd;		/* in memory: the trace is not a regular file */
	dev_t dev;		/* its file (dyl_fd_check) */
	ino_t ino;
	uint64_t size;
	uint64_t alloc;		/* bytes reserved with fallocate; UINT64_MAX: unsupported */
	uint64_t flow_bytes;	/* of it std.flow's (FLOW chunks): not rows, no part of DYL_CONVERT_MAX */
	uint32_t names;		/* function names in it */
	uint32_t knots;		/* clock knots in it */
	uint64_t blocks;	/* blocks written out to it */
	uint64_t seq;		/* the first call number of the next conversion */
	uint32_t nwindows;
	struct dyl_window *free_windows[64];	/* of threads that ended, for the next ones */
	uint32_t nfree_windows;
	char path[4096 + 16];
};
HIDDEN extern struct dyl_spool dyl_spool;

/* What the header says beyond its fixed columns (notes.c), and the warnings given
 * (state.c): held around no call. */
struct dyl_meta {
	pthread_mutex_t lock;	/* columns, notes, dyl_out.header_done, warned */
	unsigned ncolumns;
	const char *columns[DYL_MAX_COLUMNS];
	char notes[4096];	/* '# key=value' lines written with the header */
	char warned[1024];	/* keys already warned about */
};
HIDDEN extern struct dyl_meta dyl_meta;

/* dyl_out.io with the thread's cancellation held off.  The writes made under it (write,
 * pwritev, close) are cancellation points: a thread cancelled there would leave the lock
 * held, and the process would hang at its next write or at exit.  The cancellation
 * waits until the lock is let go.  The holder keeps its old state in io_cancel. */
static inline void dyl_io_lock(void)
{
	int old;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_mutex_lock(&dyl_out.io);
	dyl_out.io_cancel = old;
}
static inline void dyl_io_unlock(void)
{
	int old = dyl_out.io_cancel;

	pthread_mutex_unlock(&dyl_out.io);
	pthread_setcancelstate(old, NULL);
}

/* dyl_out.disabled is read on every call, outside any lock, and set under dyl_out.io;
 * dyl_out.fd is read outside the lock too: both go through atomics. */
#define DYL_DISABLED() __atomic_load_n(&dyl_out.disabled, __ATOMIC_RELAXED)
#define DYL_DISABLE() __atomic_store_n(&dyl_out.disabled, 1, __ATOMIC_RELAXED)
#define DYL_SET_FD(v) __atomic_store_n(&dyl_out.fd, (v), __ATOMIC_RELEASE)
HIDDEN extern TLS struct dyl_thread *dyl_self;
HIDDEN extern TLS int dyl_busy;	/* >0 while the runtime runs: wrapped calls it makes are not recorded */
/* dyl_busy guards against this thread's own signal handlers: keep the compiler from
 * moving the buffer's accesses out of the guarded region. */
#define DYL_BUSY_IN() (dyl_busy++, __atomic_signal_fence(__ATOMIC_SEQ_CST))
#define DYL_BUSY_OUT() (__atomic_signal_fence(__ATOMIC_SEQ_CST), dyl_busy--)

/* What the features ask the core to call (state.c holds it; a feature installs its
 * function with an atomic store, before it first asks for the call).  NULL: none.  The
 * core tests a flag before each call, so a pointer costs what a direct call behind
 * that flag cost. */
struct dyl_hooks {
	/* at the very end of dyl_leave, in a thread that set dyl_leave_pending (std.diff:
	 * the stack below the outermost call's caller is dead, diff.c) */
	void (*after_leave)(void);
	/* std.flow (runtime/flow/), at the spool's conversion (dyl_out.io held): FLUSH before
	 * (what its buffers hold into the spool), CONVERTED after the rows (TRACE.flow from
	 * the spool FD of SIZE bytes, whose rows were numbered from SEQ) */
	void (*flow_flush)(void);
	void (*flow_converted)(int fd, uint64_t size, uint64_t seq);
	/* std.callsite (runtime/callsite/): its footer lines (the module table) into BUF of
	 * ROOM bytes; their length */
	int (*footer_lines)(char *buf, size_t room);
	/* at an exec, first, in any image (recorded or not, a vfork child's too):
	 * std.flow:host_reads opens the pages it protected (the kernel reads the strings) */
	void (*before_exec)(void);
	/* at the image's end, before the footer (dyl_finish): the thread events' last
	 * words (runtime/threads/: the names of the threads still running) */
	void (*threads_end)(void);
};
HIDDEN extern struct dyl_hooks dyl_hooks;
HIDDEN extern TLS int dyl_leave_pending;	/* the hook clears it */

/* state.c */
HIDDEN void dyl_cost_sum(struct dyl_cost *to, const struct dyl_cost *c);	/* TO += C */

/* runtime.c */
HIDDEN void dyl_init(void);
HIDDEN void dyl_core_start(int argc, char **argv);	/* from start.c */
HIDDEN struct dyl_thread *dyl_thread_get(void);
/* Writes T's records out; OPEN: the owner's open calls (levels 0..OPEN-1) that started
 * before some of them and must be numbered before them. */
HIDDEN void dyl_flush_thread(struct dyl_thread *t, uint32_t open);
HIDDEN int dyl_recorded_any(void);	/* has this image recorded a call? */
/* Tracing's own cost (struct dyl_cost): TICKS of it timed whole (set-up, write-outs;
 * state.c). */
HIDDEN void dyl_cost_add(uint64_t ticks);
HIDDEN void dyl_resume(void);	/* a failed exec: recording goes on after the footer */
HIDDEN void dyl_finish(void);	/* flush everything, write the footer */
HIDDEN void dyl_prepare(void);	/* a wrapped library is loaded at start-up */

/* FD moved to DYL_FD_FLOOR or above, close-on-exec (FD itself when that fails; -1
 * stays -1): the runtime's descriptors sit above the program's usual ones, so that the
 * program's own open() calls get the numbers they would get without the wrapper. */
#define DYL_FD_FLOOR 900
HIDDEN int dyl_fd_high(int fd);	/* state.c */

/* env.c: the DYL_* variables, read once at start-up (dyl_env: the value, NULL when unset
 * or not an allowed value) */
enum dyl_env_id {
	DYL_ENV_TRACE, DYL_ENV_OFF, DYL_ENV_FILTER, DYL_ENV_CLOCK, DYL_ENV_DIFF_WATCH,
	DYL_ENV_DEBUG_DIR, DYL_ENV_PAPI_EVENTS, DYL_ENV_MICROGEN_PATH, DYL_ENV_RUNTIME,
	DYL_ENV_CONVERT, DYL_ENV_CONVERT_MAX, DYL_ENV_WAITS, DYL_ENV_EXEC_OF, DYL_ENV_COUNT
};
HIDDEN void dyl_env_setup(void);
HIDDEN const char *dyl_env(enum dyl_env_id id);
/* ID's value as a size in bytes (K, M, G: powers of 1024); its default when unset or bad */
HIDDEN uint64_t dyl_env_size(enum dyl_env_id id);
/* what holds for ID when it is unset, where the table cannot say (DYL_CLOCK: what the
 * CPU has), for dyl_env_warn's message */
HIDDEN void dyl_env_default(enum dyl_env_id id, const char *value);
HIDDEN void dyl_env_warn(void);	/* unknown names and bad values, once each */
/* the MPI rank the launcher gave (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID:
 * the first set to digits), or NULL */
HIDDEN const char *dyl_env_rank(void);
/* ID out of the program's environment (unsetenv; read before: its value stays here) */
HIDDEN void dyl_env_drop(enum dyl_env_id id);

/* The runtime's own descriptors (trace.c).  The program may close them and open files of
 * its own under the same numbers (a daemon closing 3..4095, say): before each use the
 * runtime checks that *FD still refers to the file it opened (device DEV, inode INO), else
 * opens PATH again (FLAGS | O_NOFOLLOW; the same file only) into *FD.  0: *FD is ours;
 * -1 (errno set): it cannot be, the caller warns.  dyl_fd_close closes *FD only if ours. */
HIDDEN int dyl_fd_check(int *fd, dev_t dev, ino_t ino, const char *path, int flags);
HIDDEN int dyl_fd_is(int fd, dev_t dev, ino_t ino);
HIDDEN void dyl_fd_close(int *fd, dev_t dev, ino_t ino);

/* fatal.c */
/* on a fatal signal, WRITE_OUT (dyl_finish) first */
HIDDEN void dyl_fatal_setup(void (*write_out)(void));

/* clock.c */
HIDDEN void dyl_clock_setup(void);
HIDDEN uint64_t dyl_monotonic_ns(void);
HIDDEN uint64_t dyl_realtime_ns(void);
HIDDEN uint64_t dyl_cpu_ns(void);	/* the process's CPU time */
HIDDEN void dyl_clock_mark(void);	/* a calibration point; dyl_out.io held */
/* the knots (tsc, ns) so far, for the spool's converter (dyl_out.io held) */
HIDDEN const struct dyl_knot *dyl_clock_knots(uint32_t *n);
HIDDEN struct dyl_knot dyl_clock_provisional(void);
HIDDEN uint64_t dyl_clock_cost_ns(void);
HIDDEN double dyl_clock_ns_per_tick(void);	/* 1 on the monotonic clock */
HIDDEN const char *dyl_clock_name(void);
/* Tracing's own cost (struct dyl_cost): the process's total in ns so far, with the
 * count of calls timed whole. */
HIDDEN uint64_t dyl_cost_ns(uint64_t *samples, uint64_t *outside_ns);

/* funcs.c */
HIDDEN void dyl_func_decide(struct dyl_func *f, int record);
HIDDEN const char *dyl_func_name(uint32_t id);
HIDDEN uint32_t dyl_func_count(void);
HIDDEN void dyl_funcs_after_fork(void);

/* record.c */
HIDDEN uint32_t dyl_rec_put(struct dyl_rec *r, const struct dyl_call *c, int numbered, int wide,
			    uint64_t dur, uint32_t id, uint32_t depth);

/* spool.c (dyl_out.io held unless said) */
HIDDEN void dyl_spool_open(void);	/* the trace is claimed: its spool */
/* T's records [FROM, TO) as a block: made (its head into B, the open calls it lists into
 * OPENS, DYL_MAX_FRAMES of them; T's flush_lock held), then appended (the output locked) */
HIDDEN void dyl_spool_block(struct dyl_block *b, struct dyl_open *opens, struct dyl_thread *t,
			    uint32_t from, uint32_t to, uint32_t open);
HIDDEN void dyl_spool_block_put(const struct dyl_block *b, struct dyl_open *opens,
				struct dyl_thread *t);
/* The image ends: the spool completed (names, clock, events, the FOOTer FOOT), then
 * either every row converted into the trace and the spool removed (0), or (DYL_CONVERT=later,
 * or auto with a large spool) the rows left in the spool, which is kept (1: the trace gets
 * the '# rows_in_spool=' line). */
HIDDEN int dyl_spool_finish(const char *foot, size_t len);
HIDDEN void dyl_spool_names_ahead(void);	/* the names area made now (dyl_prepare) */
HIDDEN void dyl_spool_exec(void);	/* an exec: the rows are converted now, never later */
HIDDEN void dyl_spool_drop(void);
/* Recording stopped on a write that failed (a full disk): the spool, a file still ours,
 * is kept as it is for the tools (1), else dropped (0).  dyl_out.io held. */
HIDDEN int dyl_spool_keep_failed(void);
HIDDEN void dyl_spool_meta(void);	/* the header text changed */
/* the header TEXT (LEN bytes, NCOLUMNS counters) as the trace got it */
HIDDEN void dyl_spool_meta_text(const char *text, size_t len, uint32_t ncolumns);
HIDDEN void dyl_spool_names_now(void);	/* a new function name (io not held) */
HIDDEN struct dyl_window *dyl_spool_window(pid_t tid);	/* NULL: none */
HIDDEN void dyl_spool_window_done(struct dyl_window *w);	/* its thread ended */
HIDDEN int dyl_spool_window_is_shared(const struct dyl_thread *t);
HIDDEN void dyl_spool_after_fork(void);	/* in the child */
/* A thread event (runtime/threads/) into the spool now, or when it exists (io not held) */
HIDDEN void dyl_spool_event(const struct dyl_event *e);
/* appends a chunk of KIND made of [A, A+ALEN) and [B, B+BLEN) (padded to 8 bytes): 0, or
 * -1 (no spool, or it cannot be written: the warning given) */
HIDDEN int dyl_spool_chunk(uint32_t kind, const void *a, size_t alen, const void *b, size_t blen);
/* a chunk of KIND, SIZE bytes in all (its header included; a multiple of the page),
 * zeros, mapped shared at a page of the spool (as windows are): its header filled; NULL
 * when none can be had (no spool, no room) */
HIDDEN void *dyl_spool_map(uint32_t kind, uint32_t size);

/* trace.c */
/* Opens PATH for writing with FLAGS (O_CREAT|O_EXCL: new only) and O_NOFOLLOW, never
 * waiting (O_NONBLOCK, cleared after); an existing file must be a regular file of the
 * effective user with one link (made 0600 under O_CREAT), or a character device
 * (/dev/null), or a pipe named by our own descriptor (/dev/stdout).  -1 with errno: ELOOP
 * a symlink, EPERM another user's file or a link, ENXIO a FIFO, socket or block device,
 * ESTALE a file renamed over (no name left) between the open and the check. */
HIDDEN int dyl_open_safe(const char *path, int flags);
/* Why dyl_open_safe (failing with ERR) refused PATH, in words; NULL: not refused.
 * errno is ERR on return. */
HIDDEN const char *dyl_refused(const char *path, int err);
HIDDEN void dyl_trace_error(int err, const char *what);	/* '# error=' line, or stderr */
HIDDEN size_t dyl_trace_header_text(char *buf, size_t room);	/* dyl_meta.lock held */
HIDDEN void dyl_trace_setup(void);	/* at start-up: remember $DYL_TRACE */
/* The steps output.c puts in order (dyl_out.io held): */
HIDDEN void dyl_trace_open(int only_path);	/* claim the name (the top of trace.c) */
HIDDEN size_t dyl_trace_header(char *buf, size_t room);	/* written; its text in BUF */
HIDDEN void dyl_trace_put(const char *data, size_t len);	/* rows, '#' lines */
HIDDEN int dyl_trace_footer_text(char *buf, size_t room);
HIDDEN void dyl_trace_footer(const char *buf, int n, int in_spool);
HIDDEN void dyl_trace_footer_after_failure(const char *foot, size_t flen);
HIDDEN void dyl_trace_drop(void);	/* a claimed, unwritten file given back */
HIDDEN void dyl_trace_end(void);
HIDDEN void dyl_trace_reset_after_fork(void);

/* output.c: the output path, in order (the caller drives the spool, then the trace) */
/* take the name: at the first recorded call (0), or at start-up where it changes nothing (1) */
HIDDEN void dyl_out_claim(int ahead);
/* lock (and open the file and its spool, write the header); 0: the trace cannot be
 * written (unlocked then) */
HIDDEN int dyl_out_lock(void);
HIDDEN void dyl_out_unlock(void);
HIDDEN void dyl_out_block(struct dyl_thread *t, uint32_t from, uint32_t to, uint32_t open);
HIDDEN void dyl_out_end(void);	/* the spool completed and converted, then the footer */
HIDDEN void dyl_out_drop_unused(void);	/* before exec: give back a claimed, unwritten file */

#endif
