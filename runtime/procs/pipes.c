/* pipes.c - reads and writes on pipes and FIFOs, for dyl-speedup's timeline of a run's
 * processes: a read that returned bytes of a pipe's stream waited for the write of them
 * (doc/jobs.md).  The interposers are in the wrapper (dyl_procs.h).
 *
 * Every read and write of the program comes here, so the question "is FD a pipe?" must
 * cost no system call on the usual fd: the answer is cached per descriptor (a word each
 * for the first FDS_CACHED, lock-free), from one fstat.  close, dup2, dup3, pipe, fclose
 * and close_range forget their descriptors; a descriptor closed past them (a raw system
 * call, the C library's own closes) may keep a stale answer: a cached pipe is checked with
 * fstat before its event is recorded (a pipe's read or write is a system call anyway), a
 * cached "not a pipe" may miss a pipe's events, never invent one.
 *
 * Nothing is cached before the runtime is set up, from its own calls (dyl_busy), or in a
 * vfork child (it shares this table with its parent, not its descriptors).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "procs_record.h"
#include "threads/thread_record.h"

#define FDS_CACHED 65536	/* descriptors above are never taken for pipes */
#define NOT_PIPE 2		/* else 0: not known; odd: a pipe, inode << 1 | 1 */

static struct pipes_state {
	uint64_t kind[FDS_CACHED];
} pipes;

/* FD's inode if it is a pipe or FIFO now (fstat), else 0; cached when WHO may cache. */
static uint64_t classify(int fd)
{
	struct stat st;
	int saved = errno;
	uint64_t ino = 0;

	if (!dyl_procs_recording() || getpid() != dyl_proc.pid) {
		errno = saved;
		return 0;
	}
	if (fstat(fd, &st) == 0) {
		ino = S_ISFIFO(st.st_mode) ? (uint64_t)st.st_ino : 0;
		__atomic_store_n(&pipes.kind[fd], ino ? ino << 1 | 1 : NOT_PIPE, __ATOMIC_RELAXED);
	}
	errno = saved;
	return ino;
}

uint64_t dyl_pipe_of(int fd)
{
	if ((unsigned)fd >= FDS_CACHED)
		return 0;
	uint64_t k = __atomic_load_n(&pipes.kind[fd], __ATOMIC_RELAXED);
	if (k == NOT_PIPE)
		return 0;
	/* (a cached pipe is checked again: see the top) */
	return classify(fd);
}

void dyl_pipe_done(uint64_t t, int write, uint64_t ino, long n)
{
	if (!t || n < 0 || !dyl_procs_recording())
		return;
	uint64_t bytes = (uint64_t)n;
	dyl_threads_record(write ? DYL_EV_PIPE_WRITE : DYL_EV_PIPE_READ, (int32_t)(bytes >> 32),
			   (uint32_t)bytes, ino, t, dyl_now());
}

void dyl_pipe_forget(int lo, int hi)
{
	if (lo < 0)
		return;
	for (unsigned fd = (unsigned)lo; fd <= (unsigned)hi && fd < FDS_CACHED; fd++)
		__atomic_store_n(&pipes.kind[fd], 0, __ATOMIC_RELAXED);
}
