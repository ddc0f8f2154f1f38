/* dyl_keys.h - the keys of the trace's '#' lines, named once (doc/trace-format.md).
 *
 * A trace is '#' lines, the column line, the rows, more '#' lines.  Most '#' lines are
 * "# KEY=value"; the thread events' are "# WORD tid=N key=value...".  The runtime writes
 * them (runtime/trace.c, runtime/notes.c and the features' dyl_note calls,
 * runtime/format/events.c) and the tools read them (runtime/format/read/, speedup/): both
 * spell a key through this file, so that a key renamed on one side only does not build
 * or fails tests/tools/test_format_roundtrip.py.  The wrappers' templates
 * (generator/templates/, microgens/NAME/template.c.j2) pass their keys to dyl_note as
 * literals, the wrappers being generated text; they are named here too.
 *
 * Lengths come from the literals (DYL_KEY_LEN), never counted by hand.  No code, no state:
 * the runtime, the wrappers and the tools include it alike.
 */
#ifndef DYL_KEYS_H
#define DYL_KEYS_H

/* The length of a string literal built from these macros, without its NUL. */
#define DYL_KEY_LEN(lit) (sizeof(lit) - 1)
/* The start of KEY's line, up to its value: "# KEY=". */
#define DYL_KEY_LINE(key) "# " key "="
/* The same after the line break that ends the line before: to find it in a file. */
#define DYL_KEY_NL(key) "\n# " key "="

/* --- the header, before the column line --- */
#define DYL_TRACE_MAGIC "# dyliberator trace"	/* the first line: a trace of ours */
#define DYL_TRACE_VERSION "1"			/* ... then a blank and this */
#define DYL_KEY_PID "pid"			/* the process */
#define DYL_KEY_PID_START "pid_start"		/* its start in clock ticks (/proc) */
#define DYL_KEY_START_NS "start_ns"		/* its start, ns since the epoch */
#define DYL_KEY_CMDLINE "cmdline"
#define DYL_KEY_DECLINED "declined"		/* where a trace was not written */
#define DYL_KEY_PPID "ppid"			/* the parent process (doc/jobs.md) */
#define DYL_KEY_EXEC_OF "exec_of"		/* 1: an image that exec replaced wrote a trace */
#define DYL_KEY_CLOCK "clock"			/* the clock of the rows' times */
#define DYL_KEY_CLOCK_COST_NS "clock_cost_ns"	/* two reads of it */

/* The notes (dyl_note: "# KEY=value" lines in the header), by who writes them */
#define DYL_KEY_WRAPPER "wrapper"		/* generator/templates/wrap.c.j2 */
#define DYL_KEY_LIBRARY "library"		/* runtime/resolve.c */
#define DYL_KEY_LIBRARY_GENERATED_FROM "library_generated_from"
#define DYL_KEY_LIBRARY_FOR "library_for"
#define DYL_KEY_HANDLE_ONLY "handle_only"	/* runtime/handles.c */
#define DYL_KEY_FAULTS "faults"			/* runtime/faults/ */
#define DYL_KEY_FAULT_NS "fault_ns"
#define DYL_KEY_REGIONS_HEAP "regions_heap"	/* runtime/regions/ */
#define DYL_KEY_DIFF "diff"			/* runtime/diff/ */
#define DYL_KEY_FLOW "flow"			/* runtime/flow/ */
#define DYL_KEY_FLOW_FOLLOW "flow_follow"
#define DYL_KEY_FLOW_FOLLOW_WRITES "flow_follow_writes"
#define DYL_KEY_HOST_READS "host_reads"
#define DYL_KEY_TIME_CLOCK "time_clock"		/* microgens/std.time */
#define DYL_TIME_CLOCK_THREAD "thread-cputime"	/* its value: t_ns are thread CPU times */
#define DYL_KEY_REDIRECT "redirect"		/* microgens/std.redirect */
#define DYL_KEY_REDIRECT_LOAD_NS "redirect_load_ns"

/* --- after the rows --- */
#define DYL_KEY_ERROR "error"			/* a write failed: why the rows end */
#define DYL_ERROR_DISK_FULL "disk full"		/* ... its value's start on a full disk */
#define DYL_KEY_ROWS_IN_SPOOL "rows_in_spool"	/* DYL_CONVERT=later: the spool's name */
#define DYL_KEY_FLOW_CAPPED_CALLS "flow_capped_calls"

/* The footer's module table (runtime/callsite/, std.callsite): one line an object,
 * "# module=LO-HI BIAS BUILD_ID PATH" (hex; BUILD_ID '-' when none); the columns it names */
#define DYL_KEY_MODULE "module"
#define DYL_COL_CALLSITE "callsite"		/* the call's return address */
#define DYL_COL_STACK "stack"			/* stack1, stack2...: the frames above it */

/* std.mpi's header notes, written at MPI_Init (microgens/std.mpi/template.c.j2) and read
 * by the job's tools (speedup/lib/trace/mpi_read.c): the rank and size in MPI_COMM_WORLD,
 * and the host */
#define DYL_KEY_MPI_RANK "mpi_rank"
#define DYL_KEY_MPI_SIZE "mpi_size"
#define DYL_KEY_MPI_HOST "mpi_host"

/* The thread events (runtime/format/events.c): "# threads=recorded", then one line a
 * thread, a wait or wake, a join or a parallel call, each "# WORD tid=N key=value..." */
#define DYL_KEY_THREADS "threads"
#define DYL_THREADS_RECORDED "recorded"
#define DYL_KEY_THREAD "thread"
#define DYL_KEY_WAIT "wait"
#define DYL_KEY_WAKE "wake"
#define DYL_KEY_JOIN "join"
#define DYL_KEY_PARALLEL "parallel"
#define DYL_KEY_THREAD_NAME "thread_name"	/* last: each thread's name */
#define DYL_EVENT_LINE(word) "# " word " " DYL_EVENT_TID "="	/* an event line's start */
#define DYL_EVENT_FIELD(key) " " key "="		/* a field after tid */
#define DYL_EVENT_TID "tid"			/* the thread (all lines) */
#define DYL_EVENT_PARENT "parent"		/* thread: the thread that created it */
#define DYL_EVENT_CREATE_NS "create_ns"
#define DYL_EVENT_START_NS "start_ns"
#define DYL_EVENT_END_NS "end_ns"
#define DYL_EVENT_ON "on"			/* wait, wake: cond, mutex, sem, barrier */
#define DYL_EVENT_OBJ "obj"
#define DYL_EVENT_AT_NS "at_ns"			/* wake */
#define DYL_EVENT_TARGET "target"		/* join: the thread joined */
#define DYL_EVENT_CALL_NS "call_ns"		/* wait, join, parallel */
#define DYL_EVENT_RET_NS "ret_ns"
#define DYL_EVENT_NAME "name"			/* thread_name: \xHH for odd bytes */

/* The process events (runtime/procs/, doc/jobs.md): "# procs=recorded", then, among the
 * thread lines in time order, "# WORD tid=N key=value..." */
#define DYL_KEY_PROCS "procs"			/* = DYL_THREADS_RECORDED */
#define DYL_KEY_FORK "fork"			/* fork, vfork, clone as fork */
#define DYL_KEY_SPAWN "spawn"			/* posix_spawn, posix_spawnp */
#define DYL_KEY_EXEC "exec"
#define DYL_KEY_WAITPID "waitpid"		/* a blocking wait that returned a child */
#define DYL_KEY_PIPE_WRITE "pipe_write"
#define DYL_KEY_PIPE_READ "pipe_read"
#define DYL_EVENT_CHILD "child"			/* fork, spawn: the child's pid */
#define DYL_EVENT_PID "pid"			/* waitpid: the child waited for */
#define DYL_EVENT_PIPE "pipe"			/* pipe_*: the pipe's inode */
#define DYL_EVENT_BYTES "bytes"			/* pipe_*: bytes moved */

/* The footer: the process's times, and what tracing cost it */
#define DYL_KEY_END_NS "end_ns"
#define DYL_KEY_TOTAL_NS "total_ns"		/* the process finished: T */
#define DYL_KEY_STARTUP_NS "startup_ns"
#define DYL_KEY_CPU_NS "cpu_ns"
#define DYL_KEY_OVERHEAD_NS "overhead_ns"
#define DYL_KEY_OVERHEAD_CALLS_TIMED "overhead_calls_timed"
#define DYL_KEY_OVERHEAD_OUTSIDE_NS "overhead_outside_ns"

/* What the tools add to a trace recovered from its spool (runtime/format/read/) */
#define DYL_KEY_RECOVERED_FROM "recovered_from"
#define DYL_KEY_LAST_END_NS "last_end_ns"

/* A model file's '#' line (dyl-model writes it, the tools' model reader reads it) */
#define DYL_KEY_SETUP_NS "setup_ns"

#endif
