/* dyl.h - the runtime interface seen by generated wrappers.
 *
 * One runtime (libdylrt.so) serves every wrapper preloaded into a process, so that
 * two separately generated wrappers share one trace, one call numbering and one
 * nesting depth.  Wrappers call it only through the functions below.  This header holds
 * declarations (and the inline clock read); what a wrapper compiles into itself is in
 * dyl_wrap.h.
 */
#ifndef DYL_H
#define DYL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DYL_API __attribute__((visibility("default")))
#define dyl_likely(x)   __builtin_expect(!!(x), 1)
#define dyl_unlikely(x) __builtin_expect(!!(x), 0)

/* The layout of struct dyl_call and the calls below, as a symbol every wrapper
 * refers to at load time (dyl_wrap.h: the code compiled into each wrapper). */
DYL_API extern const int dyl_abi_6;

/* DYL_NONE ("no value" for in_bytes, out_bytes and work) and DYL_MAX_COUNTERS */
#include "dyl_limits.h"

/* The library a wrapper forwards to.  'handle' caches the dlopen handle once found. */
struct dyl_lib {
	const char *soname;	/* DT_SONAME, e.g. "libcrypto.so.3" (may be NULL) */
	const char *path;	/* the file the generator read */
	void *handle;
};

/* Looks up a symbol of the wrapper's own successors (dlsym(RTLD_NEXT) must be called
 * from the wrapper's object, not from the runtime's). */
typedef void *(*dyl_next_fn)(const char *name, const char *version);

/* One wrapped function; a static object in the wrapper.  'state' caches the
 * DYL_FILTER decision (0: not yet decided, 1: record, 2: forward only); 'id' is the
 * function's number in the runtime's name table, given with the decision, so that a
 * trace record carries 4 bytes instead of the name. */
struct dyl_func {
	const char *name;
	int state;
	uint32_t id;
};

/* dyl_call.flags */
#define DYL_CALL_DUR_NS 1u	/* t_end holds the duration in ns, not an end in ticks
				 * (std.time's thread and PAPI clocks) */
#define DYL_CALL_COST 2u	/* timed whole, to measure what tracing costs (runtime.c) */
#define DYL_CALL_FLOW_MARKED 4u	/* std.flow put this call's mark: a --defs look after
					 * it is the call's (runtime/flow/hooks.c) */

/* One wrapped call in flight; lives on the wrapper's stack. */
struct dyl_call {
	const struct dyl_func *func;
	uint64_t t_enter;	/* with DYL_CALL_COST: the clock at dyl_enter */
	uint64_t t_start;	/* clock ticks, see dyl_now() */
	uint64_t t_end;		/* clock ticks (or ns, see flags) */
	int64_t in_bytes, out_bytes, work;
	uint32_t depth;
	uint32_t ncounters;
	uint32_t counter_base;	/* first counter column this call fills */
	const char *args;	/* formatted argument values, or NULL */
	int64_t counters[DYL_MAX_COUNTERS];
	uint32_t flags;		/* DYL_CALL_* */
	uint32_t cost_weight;	/* with DYL_CALL_COST: the calls its cost stands for */
};

/* Finds the original NAME (of VERSION, if non-NULL) in LIB.  Never returns NULL: when
 * the symbol exists nowhere it prints why and aborts, since no call can be made. */
DYL_API void *dyl_resolve(struct dyl_lib *lib, const char *name, const char *version,
			  dyl_next_fn next, const void *self);

/* The original for a call from CALLER (the wrapper's return address): what the
 * caller's own lookup scope finds past the wrappers (runtime/scope.c).  When that is
 * every caller's answer (the global scope has it, or one loaded object defines NAME)
 * it is stored in *SLOT, and the wrapper's later calls go straight to it; when several
 * loaded objects define NAME, *SLOT stays NULL and each call comes here, answered from
 * a table by call site.  Never returns NULL (as dyl_resolve). */
DYL_API void *dyl_resolve_at(struct dyl_lib *lib, const char *name, const char *version,
			     dyl_next_fn next, const void *self, void **slot, const void *caller);

/* One original to look up ahead (dyl_resolve_all): the wrapper's pointer to it. */
struct dyl_sym {
	const char *name;
	const char *version;	/* NULL: the default one */
	void **slot;		/* set when found; left NULL otherwise */
};
/* Looks up every original of a wrapper from its constructor (SELF: an address in the
 * wrapper), so that no first call resolves inside a signal handler.  Those not found
 * (their library is not loaded yet, or several objects define them and none globally)
 * stay NULL: dyl_resolve_at finds them at their first call. */
DYL_API void dyl_resolve_all(const struct dyl_sym *syms, unsigned n, const void *self);
/* After dyl_resolve_all: names the file that serves LIB's originals (most of those of
 * SYMS found) in the trace, '# library=SONAME PATH', and warns once when it is not the
 * file the wrapper was generated from (LIB->path, or one with the same BUILD_ID, hex
 * or NULL).  Found none yet (the library is loaded later): the first dyl_resolve of
 * LIB does it. */
DYL_API void dyl_lib_check(struct dyl_lib *lib, const char *build_id,
			   const struct dyl_sym *syms, unsigned n);

/* Starts recording a call.  Returns 0 when the call must simply be forwarded: recording
 * is off, the function is filtered out, or the runtime itself is the caller. */
DYL_API int dyl_enter(struct dyl_call *c, struct dyl_func *f);
/* Ends the call started by dyl_enter and appends its trace row. */
DYL_API void dyl_leave(struct dyl_call *c);

/* The trace clock, in ticks: the TSC where it is invariant (dyl_tsc_on), else
 * CLOCK_MONOTONIC in ns (dyl_clock_read); DYL_CLOCK=tsc|monotonic chooses.  Ticks
 * become ns when the trace is written out.  Inline: on the TSC a read is one
 * instruction, and a call through the PLT would cost as much again.  Always inlined:
 * a wrapper built at -O0 (units) makes no call for it either. */
DYL_API extern int dyl_tsc_on;
DYL_API uint64_t dyl_clock_read(void);

static inline __attribute__((always_inline)) uint64_t dyl_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (dyl_likely(dyl_tsc_on))
		return __builtin_ia32_rdtsc();
#endif
	return dyl_clock_read();
}
/* The calling thread's CPU time, ns (std.time:clock=thread). */
DYL_API uint64_t dyl_thread_cpu_ns(void);
/* The calling thread's page faults (minor and major) so far, from a perf event of its
 * own opened at its first call (std.faults); -1 where they cannot be counted.  A read is
 * a load, no system call. */
DYL_API int64_t dyl_faults(void);
/* Measures what the first touch of a fresh page costs (no event on: the time an untraced
 * run pays) and notes it in the trace ('# fault_ns='), once per process; std.faults' init.
 * dyl-speedup keeps at most that much a fault of a faulted call's excess. */
DYL_API void dyl_faults_calibrate(void);
/* The trace's footer gets the module table ('# module=' lines: each loaded object's range,
 * load bias, build ID and path), for the tools to name std.callsite's return addresses
 * offline; with DEPTH > 0, libunwind is loaded for dyl_callsite_stack.  std.callsite's init. */
DYL_API void dyl_callsite_setup(int depth);
/* The return addresses of at most N frames above RA (the wrapper's own return address)
 * into OUT: their number, or -1 without libunwind (then the wrapper asks backtrace()). */
DYL_API int dyl_callsite_stack(uintptr_t ra, int64_t *out, int n);

/* Registers extra trace columns (e.g. PAPI events); returns the index of the first,
 * or -1 when the header is already written or the table is full. */
DYL_API int dyl_add_columns(const char *const *names, unsigned n);

/* Adds a '# key=value' metadata line to the trace (micro-generators use it). */
DYL_API void dyl_note(const char *key, const char *value);

/* The value of the DYL_* variable NAME as the process started with it (the runtime reads
 * each once, runtime/env.c); NULL when unset, not an allowed value, or unknown. */
DYL_API const char *dyl_env_get(const char *name);

/* Prints a message on stderr once per distinct KEY, prefixed with "dyliberator: ". */
DYL_API void dyl_warn_once(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A per-thread scratch string for std.args (valid until the thread's next call). */
DYL_API char *dyl_args_buffer(unsigned *size);

/* std.args: the C string S quoted into BUF (ROOM bytes, DYL_ARGS_STRING fits the most it
 * writes): at most 32 characters, escaped, '...' after a longer one (or one that runs
 * into memory it cannot read).  S is read through process_vm_readv, never directly: a
 * bad pointer ((const char *)1) shows as "0x1(unreadable)", NULL as "(nil)", and errno
 * is left as it was.  Returns BUF. */
#define DYL_ARGS_STRING 144
DYL_API const char *dyl_args_string(const char *s, char *buf, unsigned room);

/* The process image is about to end without exit(): HOW is DYL_IMAGE_EXEC (the exec
 * family) or DYL_IMAGE_EXIT (_exit, _Exit).  Writes out every row recorded so far.
 * dyl_image_goes_on() is called when an exec failed.  Both keep errno.  The
 * trampolines in dyl_process.h call them. */
#define DYL_IMAGE_EXIT 0
#define DYL_IMAGE_EXEC 1
DYL_API void dyl_image_ends(int how);
DYL_API void dyl_image_goes_on(void);

/* Thread events (runtime/threads/), for the interposers every wrapper compiles in
 * (dyl_threads.h).  Each records nothing where the process records nothing (DYL_OFF,
 * AT_SECURE, the trace cannot be written).
 *   pthread_create: S = dyl_thread_wrap(fn, arg) as it is entered; NULL: forward FN and
 *     ARG as they are; else start dyl_thread_run with S instead, then give
 *     dyl_thread_created(S, the result).  dyl_thread_run records the thread's start and
 *     end (its start routine returned, or it called pthread_exit or was cancelled).
 *   joins: T = dyl_thread_join_begin() as it is entered (0: record nothing), then
 *     dyl_thread_join_end(T, the thread joined, whether the join succeeded).
 *   GOMP_parallel: T = dyl_parallel_begin(), then dyl_parallel_end(T).
 *   dyl_threads_on(): the wrapper's interposers are the ones the program calls
 *     ('# threads=recorded').
 *   waits (runtime/threads/waits.c): T = dyl_wait_begin(the interposer's return address)
 *     before a wait that blocks, or a wake-up that found waiters (0: record nothing, as for
 *     the runtime's own locks); then dyl_wait_end(T, DYL_WAIT_*,
 *     the object) after the wait, or dyl_wake(T, DYL_WAIT_*, the object) after the wake-up. */
DYL_API void *dyl_thread_wrap(void *(*fn)(void *), void *arg);
DYL_API void *dyl_thread_run(void *s);
DYL_API void dyl_thread_created(void *s, int result);
DYL_API uint64_t dyl_thread_join_begin(void);
DYL_API void dyl_thread_join_end(uint64_t t, unsigned long thread, int ok);
DYL_API uint64_t dyl_parallel_begin(void);
DYL_API void dyl_parallel_end(uint64_t t);
DYL_API void dyl_threads_on(void);
enum { DYL_WAIT_COND = 1, DYL_WAIT_MUTEX = 2, DYL_WAIT_SEM = 3, DYL_WAIT_BARRIER = 4 };
DYL_API uint64_t dyl_wait_begin(const void *caller);
DYL_API void dyl_wait_end(uint64_t t, int on, const void *obj);
DYL_API void dyl_wake(uint64_t t, int on, const void *obj);

/* Process events (runtime/procs/, doc/jobs.md), for the interposers every wrapper
 * compiles in (dyl_procs.h, dyl_process.h).  All keep errno and record nothing where the
 * process records nothing, nor from the runtime's own calls.
 *   T = dyl_proc_begin() as a fork, spawn or wait is entered (0: record nothing), then
 *     dyl_proc_forked(T, the child's pid or -1, 1 for a spawn) in the parent, or
 *     dyl_proc_waited(T, the child a blocking wait returned, or <= 0).
 *   exec: M = dyl_proc_exec() first (the exec's line; NULL, or "DYL_EXEC_OF=PID" to add
 *     to the new image's environment), then dyl_image_ends(DYL_IMAGE_EXEC).
 *   read, write: INO = dyl_pipe_of(fd) (0: not a pipe, forward as is; a cached table
 *     lookup), T = dyl_proc_begin(), the call, dyl_pipe_done(T, 1 for a write, INO, its
 *     result).  dyl_pipe_forget(LO, HI): descriptors LO..HI were closed or replaced.
 *   dyl_procs_on(): the wrapper's interposers are the ones the program calls
 *     ('# procs=recorded'). */
DYL_API uint64_t dyl_proc_begin(void);
DYL_API void dyl_proc_forked(uint64_t t, long child, int spawn);
DYL_API void dyl_proc_waited(uint64_t t, long pid);
/* In the child of clone() without CLONE_VM, first: it records and writes nothing. */
DYL_API void dyl_proc_cloned(void);
DYL_API const char *dyl_proc_exec(void);
DYL_API uint64_t dyl_pipe_of(int fd);
DYL_API void dyl_pipe_done(uint64_t t, int write, uint64_t ino, long n);
DYL_API void dyl_pipe_forget(int lo, int hi);
DYL_API void dyl_procs_on(void);
/* The wrapper's constructor: starts the runtime, takes DYL_EXEC_OF out of the program's
 * environment, and records '# procs=recorded' when OURS (the program's fork is this
 * wrapper's). */
DYL_API void dyl_procs_start(int ours);
/* The program's environment as it is now, for execv and execvp. */
DYL_API char **dyl_env_list(void);

#ifdef __cplusplus
}
#endif
#endif
