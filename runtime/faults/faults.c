/* faults.c - the calling thread's page faults so far (dyl_faults, for std.faults).
 *
 * A first-touch page fault costs about 1.4 us here, inside the time of the call that
 * takes it, yet it belongs to the program's memory and not to the library's work: the
 * speedup and model tools need to know which calls took some.
 *
 * Each thread gets its own perf software event (page faults, this thread only) with a
 * sample period of 1 and no sample fields: every fault writes one bare 8-byte record into
 * the event's ring.  The ring is mapped read-only, which puts it in overwrite mode: the
 * kernel never waits for a reader and data_head only grows, so the faults so far are
 * data_head / 8, a plain load (no system call per read; software events with a period of
 * 1 are never throttled).  The fd is closed right after mmap: the mapping holds the event,
 * and the program keeps all its descriptors.  Costs: 8 KiB of mapping per thread that
 * calls, about 130 ns more per fault while the event is on.
 *
 * Faults the kernel takes on the program's behalf (a read(2) into fresh pages) count
 * too, unless perf_event_paranoid forbids kernel events to this user: then only the
 * faults taken in user mode count.  Where no event can be had at all (no perf, seccomp,
 * no descriptor left), dyl_faults returns -1 in that thread, with one notice per process.
 *
 * fork: perf mappings are not copied into a child, so the child's thread must not read
 * its parent's ring.  An atfork handler forgets it (the count goes on from the parent's
 * at the fork, so a wrapped fork() counts both sides); a fork that runs no handlers
 * (_Fork, a raw clone, or a wrapped call in an earlier atfork handler) is caught by a
 * generation number in a page the kernel wipes in the child (without it, such a child
 * read whatever it had mapped since at the ring's address: a crash, or a garbage count).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"

#define RECORD 8	/* a perf_event_header alone: sample_type 0 */

enum { CLOSED, OPENING, OPEN, NONE };	/* NONE: unavailable, or the thread is ending */

static TLS int state;
static TLS const struct perf_event_mmap_page *ring;
static TLS int64_t base;	/* faults before this ring (the parent's, in a forked child) */
static TLS int64_t at_fork;	/* this thread's count when it forked */
static TLS int my_gen;		/* the generation its ring was opened in */

static size_t ring_size;	/* the metadata page and one data page */
/* The process's generation, in a page wiped in any child: 0 there until the child takes
 * a new one, so that a thread whose ring is its parent's (its generation is older) opens
 * its own, while threads the child made meanwhile keep theirs. */
static int *live;
static int live_static = 1;	/* the word where pages cannot be wiped on fork */
static int gen = 1;		/* the generation taken last (copied into a child) */
static pthread_key_t exit_key;
static int have_key;

static long count_now(void)
{
	return (long)(__atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE) / RECORD);
}

/* The fork guard, mapped at the first opening: MADV_WIPEONFORK zeroes it in any child. */
static int *live_word(void)
{
	int *w = __atomic_load_n(&live, __ATOMIC_ACQUIRE), *expected = NULL;
	long page = sysconf(_SC_PAGESIZE);

	if (w)
		return w;
	long r = syscall(SYS_mmap, NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (r == -1)
		w = &live_static;
	else if (syscall(SYS_madvise, r, page, MADV_WIPEONFORK) != 0) {
		syscall(SYS_munmap, r, page);
		w = &live_static;
	}
	else {
		w = (int *)r;
		*w = gen;
	}
	if (!__atomic_compare_exchange_n(&live, &expected, w, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		if (w != &live_static)
			syscall(SYS_munmap, w, page);
		w = expected;
	}
	return w;
}

/* In a child (the page is wiped): a generation no ring of the parent's has.  The child's
 * threads may get here together. */
static void new_generation(void)
{
	int zero = 0, g = __atomic_load_n(&gen, __ATOMIC_RELAXED) + 1;

	if (__atomic_compare_exchange_n(live, &zero, g, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		__atomic_store_n(&gen, g, __ATOMIC_RELAXED);
}

/* The first line of the small file PATH into BUF (empty if unreadable); raw system
 * calls, as everything here. */
static void read_line(const char *path, char *buf, size_t room)
{
	long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	long n = fd >= 0 ? syscall(SYS_read, fd, buf, room - 1) : -1;

	if (fd >= 0)
		syscall(SYS_close, fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

/* kernel.perf_event_paranoid, as text ("?" if unreadable) */
static void paranoid(char *buf, size_t room)
{
	read_line("/proc/sys/kernel/perf_event_paranoid", buf, room);
	if (!buf[0])
		snprintf(buf, room, "?");
}

/* What the process's first thread to open got, for the trace's "# faults=" line: a user
 * could not otherwise tell a fallback's zero (a read(2) into fresh pages) from a real one. */
static void say_once(int excluded, const char *what, int err)
{
	static int said;
	char p[16], text[160];

	if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	paranoid(p, sizeof(p));
	if (what) {
		snprintf(text, sizeof(text), "not counted (%s: %s; kernel.perf_event_paranoid=%s)",
			 what, strerror(err), p);
		dyl_warn_once("faults", "page faults cannot be counted here (%s: %s; "
			      "kernel.perf_event_paranoid=%s): the faults column stays empty",
			      what, strerror(err), p);
	}
	else if (excluded)
		snprintf(text, sizeof(text), "user-mode faults only (kernel.perf_event_paranoid=%s)", p);
	else
		snprintf(text, sizeof(text), "user-mode and kernel faults");
	dyl_note(DYL_KEY_FAULTS, text);
}

/* Raw system calls: a wrapper may interpose mmap and close, and the ring is no region of
 * the program's.  0, or -1 (said once per process). */
static int open_ring(void)
{
	struct perf_event_attr a;
	const char *what = "perf_event_open";

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		/* perf_event_paranoid 2 and no CAP_PERFMON: user-mode faults only */
		a.exclude_kernel = a.exclude_hv = 1;
		fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd >= 0) {
		long r = syscall(SYS_mmap, NULL, ring_size, PROT_READ, MAP_SHARED, fd, 0);
		int e = errno;
		syscall(SYS_close, fd);
		if (r != -1) {
			ring = (const struct perf_event_mmap_page *)r;
			say_once(a.exclude_kernel, NULL, 0);
			return 0;
		}
		errno = e;
		what = "mmap of its ring";
	}
	say_once(0, what, errno);
	return -1;
}

/* --- what one fault costs ------------------------------------------------------------ */

#define CAL_PAGES 32

/* the first touch of the page at P, ns */
static uint64_t touch_ns(long p)
{
	uint64_t t0 = dyl_monotonic_ns();

	*(volatile char *)p = 1;
	return dyl_monotonic_ns() - t0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The first touch of one fresh page, ns: the median of CAL_PAGES (4 KiB pages, huge pages
 * refused); where transparent huge pages are always on, a program's big blocks fault 2 MiB
 * at a time, and the slower of that and a 4 KiB fault is the answer.  0 if it cannot be
 * measured. */
static uint64_t fault_cost(long page)
{
	uint64_t t[CAL_PAGES], cost = 0;
	long r = syscall(SYS_mmap, NULL, CAL_PAGES * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (r == -1)
		return 0;
	syscall(SYS_madvise, r, CAL_PAGES * page, MADV_NOHUGEPAGE);
	for (int i = 0; i < CAL_PAGES; i++)
		t[i] = touch_ns(r + i * page);
	syscall(SYS_munmap, r, CAL_PAGES * page);
	qsort(t, CAL_PAGES, sizeof(t[0]), cmp_u64);
	cost = t[CAL_PAGES / 2];
	char thp[64];
	read_line("/sys/kernel/mm/transparent_hugepage/enabled", thp, sizeof(thp));
	if (strstr(thp, "[always]")) {
		const long huge = 2l << 20;
		r = syscall(SYS_mmap, NULL, 2 * huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (r != -1) {
			uint64_t ns = touch_ns((r + huge - 1) & -huge);
			syscall(SYS_munmap, r, 2 * huge);
			if (ns > cost)
				cost = ns;
		}
	}
	return cost;
}

void dyl_faults_calibrate(void)
{
	static int done;
	char v[32];

	if (__atomic_exchange_n(&done, 1, __ATOMIC_RELAXED))
		return;
	int saved = errno;
	dyl_busy++;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t ns = page > 0 ? fault_cost(page) : 0;
	if (ns) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)ns);
		dyl_note(DYL_KEY_FAULT_NS, v);
	}
	dyl_busy--;
	errno = saved;
}

/* out of line: dyl_faults itself stays a few loads */
static __attribute__((noinline)) int64_t faults_slow(void)
{
	if (live && __atomic_load_n(live, __ATOMIC_ACQUIRE) == 0)
		new_generation();	/* a child whose fork ran no handler */
	if (state == OPEN) {
		/* a ring of the parent's, not mapped here; counting starts again from 0 */
		state = CLOSED;
		base = 0;
	}
	if (state != CLOSED)
		return -1;	/* unavailable, the thread ends, or a signal interrupted our opening */
	state = OPENING;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	int saved = errno;
	dyl_busy++;	/* a wrapped libc's calls made here are not the program's */
	int ok = ring_size && live_word() && open_ring() == 0;
	my_gen = __atomic_load_n(live, __ATOMIC_ACQUIRE);
	if (ok && have_key)
		pthread_setspecific(exit_key, (void *)1);
	dyl_busy--;
	errno = saved;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	state = ok ? OPEN : NONE;
	return ok ? base + count_now() : -1;
}

int64_t dyl_faults(void)
{
	if (dyl_likely(state == OPEN && *live == my_gen))
		return base + count_now();
	return faults_slow();
}

/* The thread ends: its ring goes (a wrapped call in a later destructor gets -1). */
static void thread_gone(void *arg)
{
	int was = state;

	state = NONE;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (was == OPEN && *live == my_gen)	/* (not a ring a forked parent mapped) */
		syscall(SYS_munmap, ring, ring_size);
	ring = NULL;
}

static void before_fork(void)
{
	at_fork = state == OPEN && *live == my_gen ? base + count_now() : 0;
}

/* The child: the ring is not mapped here (VM_DONTCOPY); this thread opens its own at its
 * next call and counts on from its parent's count. */
static void child_after_fork(void)
{
	if (live)
		new_generation();
	if (state == OPEN) {
		state = CLOSED;
		ring = NULL;
		base = at_fork;
	}
}

/* at start-up, in the order start.c gives */
void dyl_faults_start(void)
{
	dyl_busy++;
	long page = sysconf(_SC_PAGESIZE);
	ring_size = page > 0 ? 2 * (size_t)page : 0;
	have_key = pthread_key_create(&exit_key, thread_gone) == 0;
	pthread_atfork(before_fork, NULL, child_after_fork);
	dyl_busy--;
}
