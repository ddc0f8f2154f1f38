/* thread_events.h - the program's threads as the trace's footer records them: which thread
 * created which and when, when each ran, and who joined whom (the '#' lines of
 * doc/threads.md).  The timeline prediction stands on them. */
#ifndef SPEEDUP_THREAD_EVENTS_H
#define SPEEDUP_THREAD_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include "rows.h"

#define TEV_NONE (-1)	/* a time the trace leaves empty (end_ns= of a thread still running) */

/* '# thread tid=T parent=P create_ns=C start_ns=S end_ns=E' */
struct tev_thread {
	uint64_t tid, parent;
	int64_t create_ns, start_ns, end_ns;
};

/* '# join tid=P target=T call_ns=A ret_ns=B' */
struct tev_join {
	uint64_t tid, target;
	int64_t call_ns, ret_ns;
};

/* '# parallel tid=P call_ns=A ret_ns=B': an OpenMP region (GOMP_parallel) */
struct tev_parallel {
	uint64_t tid;
	int64_t call_ns, ret_ns;
};

/* '# wait tid=P on=KIND obj=O call_ns=A ret_ns=B': a wait that blocked on object O */
struct tev_wait {
	uint64_t tid, obj;
	int64_t call_ns, ret_ns;
	int barrier;		/* on=barrier: its call is a wake-up too (an arrival) */
};

/* '# wake tid=P on=KIND obj=O at_ns=A': a signal, broadcast, unlock or post with waiters */
struct tev_wake {
	uint64_t tid, obj;
	int64_t at_ns;
};

/* '# thread_name tid=T name=NAME': NAME with its \xHH decoded */
struct tev_name {
	uint64_t tid;
	char name[64];
};

struct thread_events {
	int recorded;		/* '# threads=recorded': the wrapper watched thread creation */
	struct tev_thread *threads;
	size_t nthreads, threads_room;
	struct tev_join *joins;
	size_t njoins, joins_room;
	struct tev_parallel *regions;
	size_t nregions, regions_room;
	struct tev_wait *waits;
	size_t nwaits, waits_room;
	struct tev_wake *wakes;
	size_t nwakes, wakes_room;
	struct tev_name *names;
	size_t nnames, names_room;
};

/* Reads SRC's notes into EV (zeroed here).  0; -1 after one message naming PATH and the
 * line's text (a field that is no number, a time before create_ns); out of memory too. */
int thread_events_read(struct thread_events *ev, const struct trace_src *src, const char *path);
void thread_events_free(struct thread_events *ev);
/* Does the note (TEXT, LEN) start with the word W followed by a blank or its end? */
int tev_starts_with_word(const char *text, size_t len, const char *w);
/* The fields KEYS (N of them) of the note NT into VALS (TEV_NONE: absent or empty); those
 * in REQUIRED (a bit each) must be present and not empty.  0, or -1 after a message
 * naming PATH (proc_events.c reads its lines with it too). */
int tev_fields(const struct trace_note *nt, const char *path, const char *const *keys,
	       int64_t *vals, int n, unsigned required);
/* Thread TID's name (the last '# thread_name' line of it), or NULL. */
const char *thread_events_name(const struct thread_events *ev, uint64_t tid);

#endif
