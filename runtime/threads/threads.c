/* threads.c - thread events: when each thread was created, started and ended, joins,
 * and OpenMP parallel regions, for dyl-speedup's timeline (doc/trace-format.md,
 * "Threads").  The interposers are in the wrapper (dyl_threads.h: only a definition in a
 * preloaded object comes before the C library's); they call the functions below.
 *
 * A created thread starts in dyl_thread_run with a small record of its start routine,
 * its argument, its creator and when pthread_create was called.  dyl_thread_run records
 * the start, calls the routine and records the end when it returns; a thread that calls
 * pthread_exit or is cancelled ends through a thread-specific key's destructor, which
 * glibc runs on every way out of a thread (no unwinding of ours is involved: the
 * program's cleanup handlers and its return values are untouched).
 *
 * Events go to the spool as they happen (spool.c: dyl_spool_event), so that a killed run
 * keeps them.  Times are clock ticks, converted as the rows' are.  A forked child keeps
 * only its own events: the thread that forked is its main thread there (its end is not
 * recorded).
 *
 * Names: each thread's, as it is at its end (it may have named itself after it began:
 * pthread_setname_np), and at the process's end those of the threads still there (the
 * main thread's too), from /proc/self/task.  Once a thread, never on a call's path.
 *
 * Every C library call made here is made with dyl_busy up: a wrapper of libc itself
 * (pthread_setcancelstate, getpid, mmap...) must not record the runtime's own calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"
#include "thread_record.h"

/* what dyl_thread_run needs; lives from pthread_create to the thread's start */
struct start {
	void *(*fn)(void *);
	void *arg;
	pid_t parent, pid;
	uint64_t create;	/* ticks */
	struct start *next;	/* in the free list */
};

/* The module's state: records for threads about to start (from pages of their own: no
 * malloc), and the key whose destructor sees a thread end. */
static struct threads_state {
	pthread_mutex_t lock;
	struct start *free;
	pthread_once_t once;
	pthread_key_t key;
	int key_ok;
} thr = { PTHREAD_MUTEX_INITIALIZER, NULL, PTHREAD_ONCE_INIT, 0, 0 };

/* Does this process record thread events? */
static int recording(void)
{
	if (__atomic_load_n(&dyl_proc.initialized, __ATOMIC_ACQUIRE) != 2)
		dyl_init();
	return __atomic_load_n(&dyl_proc.initialized, __ATOMIC_ACQUIRE) == 2 && !dyl_proc.off &&
	       !dyl_proc.secure && !DYL_DISABLED() && !dyl_busy;
}

void dyl_threads_record(uint32_t kind, pid_t parent, uint32_t on, uint64_t handle, uint64_t t1,
			uint64_t t2)
{
	int saved = errno, cancel;

	DYL_BUSY_IN();
	struct dyl_event e = { kind, (int32_t)syscall(SYS_gettid), (int32_t)parent, on, handle,
			       t1, t2 };
	/* the spool's write is a cancellation point: a thread cancelled there would leave
	 * the trace's lock held (the process would hang at its next event or its exit) */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	dyl_spool_event(&e);
	pthread_setcancelstate(cancel, NULL);
	DYL_BUSY_OUT();
	errno = saved;
}

/* Thread TID's NAME (16 bytes, NUL-padded) into the spool, as dyl_threads_record does. */
static void record_name(int32_t tid, const char *name)
{
	int saved = errno, cancel;
	struct dyl_event e = { DYL_EV_NAME, tid, 0, 0, 0, 0, 0 };

	memcpy(&e.handle, name, 8);
	memcpy(&e.t1, name + 8, 8);
	DYL_BUSY_IN();
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	dyl_spool_event(&e);
	pthread_setcancelstate(cancel, NULL);
	DYL_BUSY_OUT();
	errno = saved;
}

/* The calling thread's name (the kernel's comm: 15 bytes at most). */
static void name_self(void)
{
	char name[16] = { 0 };
	int saved = errno;

	DYL_BUSY_IN();
	int ok = prctl(PR_GET_NAME, name) == 0;
	int32_t tid = (int32_t)syscall(SYS_gettid);
	DYL_BUSY_OUT();
	errno = saved;
	if (ok && name[0])
		record_name(tid, name);
}

/* The thread ended (from dyl_thread_run, or without returning from its start routine:
 * pthread_exit, cancelled): its name, then its end */
static void ended(void *pid)
{
	if ((pid_t)(intptr_t)pid == (pid_t)syscall(SYS_getpid)) {	/* (not in a child the thread forked) */
		name_self();
		dyl_threads_record(DYL_EV_END, 0, 0, 0, dyl_now(), 0);
	}
}

/* Thread TID's name (TID: its digits, LEN of them) from /proc/self/task/TID/comm into
 * NAME (16 bytes).  1, or 0. */
static int read_comm(const char *tid, size_t len, char *name)
{
	static const char dir[] = "/proc/self/task/", comm[] = "/comm";
	char path[sizeof(dir) + 24 + sizeof(comm)];
	int fd;
	ssize_t n = 0;

	if (len > 24)
		return 0;
	memcpy(path, dir, sizeof(dir) - 1);
	memcpy(path + sizeof(dir) - 1, tid, len);
	memcpy(path + sizeof(dir) - 1 + len, comm, sizeof(comm));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, name, 16);
	close(fd);
	while (n > 0 && (name[n - 1] == '\n' || name[n - 1] == '\0'))
		n--;
	if (n <= 0)
		return 0;
	memset(name + n, 0, (size_t)(16 - n));
	return 1;
}

/* dyl_hooks.threads_end, at the process's end: the names of the threads still running
 * (the main thread among them).  System calls only: a fatal signal's handler may be here. */
static void name_live(void)
{
	/* (a dirent64 is 24 bytes at least: BATCH of them fit BUF) */
	enum { BATCH = 4096 / 24 + 1 };
	char buf[4096], names[BATCH][16];
	int32_t tids[BATCH];
	long n;
	int fd, saved = errno;

	DYL_BUSY_IN();
	if ((fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
			int k = 0;
			for (long off = 0; off < n;) {
				/* struct linux_dirent64: ino, off, reclen (u16), type, name */
				unsigned short reclen;
				memcpy(&reclen, buf + off + 16, sizeof(reclen));
				const char *d = buf + off + 19;
				int32_t tid = 0;
				size_t len = 0;
				for (; d[len] >= '0' && d[len] <= '9' && len < 9; len++)
					tid = tid * 10 + (d[len] - '0');
				if (len && !d[len] && k < BATCH && read_comm(d, len, names[k]))
					tids[k++] = tid;
				off += reclen;
			}
			DYL_BUSY_OUT();
			for (int i = 0; i < k; i++)
				record_name(tids[i], names[i]);
			DYL_BUSY_IN();
		}
		close(fd);
	}
	DYL_BUSY_OUT();
	errno = saved;
}

/* A forked child has one thread: the lock may have been held by another of the
 * parent's, in the middle of the free list (its records are left, a page at most). */
static void after_fork_child(void)
{
	pthread_mutex_init(&thr.lock, NULL);
	thr.free = NULL;
}

static void make_key(void)
{
	thr.key_ok = pthread_key_create(&thr.key, ended) == 0;
	pthread_atfork(NULL, NULL, after_fork_child);
}

static struct start *get_start(void)
{
	struct start *s;

	pthread_mutex_lock(&thr.lock);
	if (!thr.free) {
		struct start *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page != MAP_FAILED)
			for (size_t i = 0; i < 4096 / sizeof(*page); i++) {
				page[i].next = thr.free;
				thr.free = &page[i];
			}
	}
	if ((s = thr.free))
		thr.free = s->next;
	pthread_mutex_unlock(&thr.lock);
	return s;
}

static void put_start(struct start *s)
{
	pthread_mutex_lock(&thr.lock);
	s->next = thr.free;
	thr.free = s;
	pthread_mutex_unlock(&thr.lock);
}

void *dyl_thread_wrap(void *(*fn)(void *), void *arg)
{
	uint64_t now = dyl_now();
	int saved = errno;

	if (!fn || !recording())
		return NULL;
	DYL_BUSY_IN();
	pthread_once(&thr.once, make_key);
	struct start *s = thr.key_ok ? get_start() : NULL;
	if (s)
		*s = (struct start){ fn, arg, (pid_t)syscall(SYS_gettid),
				     (pid_t)syscall(SYS_getpid), now, NULL };
	DYL_BUSY_OUT();
	errno = saved;
	return s;
}

void dyl_thread_created(void *s, int result)
{
	if (result != 0) {	/* no thread: S was not handed over */
		DYL_BUSY_IN();
		put_start(s);
		DYL_BUSY_OUT();
	}
}

void *dyl_thread_run(void *arg)
{
	struct start *s = arg;
	void *(*fn)(void *) = s->fn;
	void *a = s->arg;
	pid_t parent = s->parent, pid = s->pid;
	uint64_t create = s->create;

	DYL_BUSY_IN();
	uint64_t handle = (uint64_t)pthread_self();
	put_start(s);
	DYL_BUSY_OUT();
	dyl_threads_record(DYL_EV_START, parent, 0, handle, create, dyl_now());
	DYL_BUSY_IN();
	pthread_setspecific(thr.key, (void *)(intptr_t)pid);
	DYL_BUSY_OUT();
	void *ret = fn(a);
	DYL_BUSY_IN();
	pthread_setspecific(thr.key, NULL);
	DYL_BUSY_OUT();
	ended((void *)(intptr_t)pid);
	return ret;
}

uint64_t dyl_thread_join_begin(void)
{
	uint64_t now = dyl_now();
	int saved = errno;
	int on = recording();

	errno = saved;
	return on ? now : 0;
}

void dyl_thread_join_end(uint64_t t, unsigned long thread, int ok)
{
	if (t && ok)
		dyl_threads_record(DYL_EV_JOIN, 0, 0, thread, t, dyl_now());
}

uint64_t dyl_parallel_begin(void)
{
	return dyl_thread_join_begin();
}

void dyl_parallel_end(uint64_t t)
{
	if (t)
		dyl_threads_record(DYL_EV_PARALLEL, 0, 0, 0, t, dyl_now());
}

void dyl_threads_on(void)
{
	if (recording()) {
		__atomic_store_n(&dyl_hooks.threads_end, name_live, __ATOMIC_RELEASE);
		dyl_threads_record(DYL_EV_ON, 0, 0, 0, 0, 0);
	}
}
