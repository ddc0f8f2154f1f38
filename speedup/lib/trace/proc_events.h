/* proc_events.h - the process events of a trace (issue 37; doc/jobs.md): the forks,
 * spawns, exec, blocking waits for children and pipe reads and writes the wrapper saw, and
 * the header's ppid= and exec_of=.  dyl-speedup places a run's processes on one timeline
 * with them. */
#ifndef SPEEDUP_PROC_EVENTS_H
#define SPEEDUP_PROC_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include "rows.h"

/* the kind of a process event, as its line's first word */
enum pev_kind {
	PEV_FORK,	/* '# fork tid=T call_ns=C child=PID': fork, vfork, clone as fork */
	PEV_SPAWN,	/* '# spawn tid=T call_ns=C child=PID': posix_spawn, posix_spawnp */
	PEV_EXEC,	/* '# exec tid=T call_ns=C': the image is replaced; the trace ends */
	PEV_WAITPID,	/* '# waitpid tid=T call_ns=C ret_ns=R pid=PID': a blocking wait that
			 * returned child PID (wait, waitpid, wait3, wait4, waitid) */
	PEV_PIPE_WRITE,	/* '# pipe_write tid=T call_ns=C ret_ns=R pipe=INODE bytes=N' */
	PEV_PIPE_READ,	/* '# pipe_read tid=T call_ns=C ret_ns=R pipe=INODE bytes=N' (0: EOF) */
};

/* One event.  Times are ns on the trace's own clock (as t_start_ns).  Fields a kind does
 * not have are 0 (ret_ns of fork, spawn and exec: call_ns). */
struct pev {
	enum pev_kind kind;
	uint64_t tid;
	int64_t call_ns, ret_ns;
	int64_t pid;		/* FORK, SPAWN: the child; WAITPID: the child waited for */
	uint64_t pipe;		/* PIPE_*: the pipe's inode (the same in both processes) */
	uint64_t bytes;		/* PIPE_*: bytes moved */
};

struct proc_events {
	int recorded;		/* '# procs=recorded': the wrapper watched process calls */
	int64_t ppid;		/* '# ppid=': the parent process; -1 when not said */
	int exec_of;		/* '# exec_of=1': written by an image that exec replaced */
	struct pev *ev;		/* in file order (by call_ns) */
	size_t nev, ev_room;
};

/* Reads SRC's notes into EV (zeroed here).  0; -1 after one message naming PATH and the
 * line's text (a field that is no number, ret_ns before call_ns); out of memory too. */
int proc_events_read(struct proc_events *ev, const struct trace_src *src, const char *path);
void proc_events_free(struct proc_events *ev);

#endif
