/* watch.c - which heap pages were written since std.diff last looked at them, so that
 * only those are compared (the full method's cost follows the data that changed, not
 * the data it tracks).
 *
 * The pages are write-protected with userfaultfd in its asynchronous mode
 * (UFFD_FEATURE_WP_ASYNC, Linux 6.7): a write to a protected page is resolved by the
 * kernel itself, which lifts the protection and goes on, with no handler thread and no
 * signal; the PAGEMAP_SCAN ioctl then lists the pages written since they were protected
 * and protects them again, in one walk of the page tables.  Unlike mprotect and a
 * SIGSEGV handler this is invisible to the program: its own SIGSEGV handler never runs,
 * a read(2) into a protected page succeeds (the kernel's write is tracked like any
 * other), and fork gives the child unprotected, unregistered memory.  The file
 * descriptor is opened with UFFD_USER_MODE_ONLY, which needs no privilege.
 *
 * Registration is per VMA (the kernel splits VMAs at the edges of a registered range):
 * the whole VMA holding a region is registered, found with the PROCMAP_QUERY ioctl
 * (Linux 6.11), so that the program's VMA count does not grow with its heap blocks.
 *
 * Everything is tried at the first use, on a scratch mapping, and any failure (an older
 * kernel, a seccomp filter, DYL_DIFF_WATCH=0) leaves std.diff comparing whole buffers,
 * with the reason in the trace (# diff=).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "diff.h"

/* Debian bookworm's kernel headers are older than these interfaces */
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef PAGEMAP_SCAN
struct page_region {
	uint64_t start, end, categories;
};
struct pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages, category_inverted,
		category_mask, category_anyof_mask, return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_WRITTEN (1 << 1)
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)
#endif
#ifndef PROCMAP_QUERY
struct procmap_query {
	uint64_t size, query_flags, query_addr, vma_start, vma_end, vma_flags, vma_page_size,
		vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define PROCMAP_QUERY _IOWR('f', 17, struct procmap_query)
#define PROCMAP_QUERY_COVERING_OR_NEXT_VMA 0x10
#endif

#define PAGE 4096ul
#define RUNS 128		/* written runs per ioctl */

struct watch {
	int state;		/* 0: not tried, 1: on, 2: off */
	int lock;		/* the first use */
	int uffd, pagemap, maps;
	dev_t dev[3];		/* the files they were opened on (the program may close them */
	ino_t ino[3];		/* and open its own under the numbers: never closed then) */
	char why[160];		/* on: how; off: why not */
};
static struct watch w = { .uffd = -1, .pagemap = -1, .maps = -1 };

static void close_all(void)
{
	int *fds[] = { &w.uffd, &w.pagemap, &w.maps };
	for (unsigned i = 0; i < 3; i++) {
		if (*fds[i] >= 0 && dyl_fd_is(*fds[i], w.dev[i], w.ino[i]))
			syscall(SYS_close, *fds[i]);
		*fds[i] = -1;
	}
}

/* remembers which files the descriptors are */
static void remember(void)
{
	int *fds[] = { &w.uffd, &w.pagemap, &w.maps };
	for (unsigned i = 0; i < 3; i++) {
		struct stat st;
		if (*fds[i] >= 0 && syscall(SYS_fstat, *fds[i], &st) == 0) {
			w.dev[i] = st.st_dev;
			w.ino[i] = st.st_ino;
		}
	}
}

/* registers the whole VMA [S, E) for write protection */
static int register_vma(uint64_t s, uint64_t e)
{
	struct uffdio_register r = { .range = { s, e - s }, .mode = UFFDIO_REGISTER_MODE_WP };
	return ioctl(w.uffd, UFFDIO_REGISTER, &r);
}

/* registers every VMA that overlaps [a, b) for write protection */
static int register_vmas(uintptr_t a, uintptr_t b)
{
	while (a < b) {
		struct procmap_query q = { .size = sizeof(q), .query_addr = a,
					   .query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA };
		if (ioctl(w.maps, PROCMAP_QUERY, &q) != 0 || q.vma_start >= b ||
		    register_vma(q.vma_start, q.vma_end) != 0)
			return -1;
		a = q.vma_end;
	}
	return 0;
}

static long scan_once(uintptr_t a, uintptr_t b, struct page_region *v, unsigned nv, uint64_t *walk_end)
{
	struct pm_scan_arg s = {
		.size = sizeof(s), .flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC,
		.start = a, .end = b, .vec = (uintptr_t)v, .vec_len = nv,
		.category_mask = PAGE_IS_WRITTEN, .return_mask = PAGE_IS_WRITTEN,
	};
	long n = ioctl(w.pagemap, PAGEMAP_SCAN, &s);
	*walk_end = s.walk_end;
	return n;
}

static void off(const char *why, int err)
{
	snprintf(w.why, sizeof(w.why), "%s%s%s", why, err ? ": " : "", err ? strerror(err) : "");
	close_all();
	__atomic_store_n(&w.state, 2, __ATOMIC_RELEASE);
}

static void setup(void)
{
	const char *e = dyl_env(DYL_ENV_DIFF_WATCH);

	if (e && !strcmp(e, "0"))
		return off("DYL_DIFF_WATCH=0", 0);
	w.uffd = dyl_fd_high((int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY));
	remember();
	if (w.uffd < 0)
		return off("no userfaultfd", errno);
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED };
	if (ioctl(w.uffd, UFFDIO_API, &api) != 0)
		return off("no asynchronous write protection (Linux 6.7)", errno);
	w.pagemap = dyl_fd_high((int)syscall(SYS_openat, AT_FDCWD, "/proc/self/pagemap", O_RDONLY | O_CLOEXEC));
	w.maps = dyl_fd_high((int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC));
	remember();
	if (w.pagemap < 0 || w.maps < 0)
		return off("cannot open /proc/self/pagemap or maps", errno);

	/* the whole path on two scratch pages: register, protect, write one, scan */
	unsigned char *t = dyl_raw_map(2 * PAGE);
	struct page_region v[4];
	uint64_t end;
	long n = -1;
	if (!t)
		return off("no memory", ENOMEM);
	t[0] = t[PAGE] = 1;
	if (register_vmas((uintptr_t)t, (uintptr_t)t + 2 * PAGE) != 0)
		goto fail;
	if (scan_once((uintptr_t)t, (uintptr_t)t + 2 * PAGE, v, 4, &end) < 0)
		goto fail;
	t[PAGE + 5] = 2;
	n = scan_once((uintptr_t)t, (uintptr_t)t + 2 * PAGE, v, 4, &end);
	if (n != 1 || v[0].start != (uintptr_t)t + PAGE || v[0].end != (uintptr_t)t + 2 * PAGE) {
		errno = 0;
		goto fail;
	}
	dyl_raw_unmap(t, 2 * PAGE);
	snprintf(w.why, sizeof(w.why), "userfaultfd asynchronous write protection + PAGEMAP_SCAN");
	__atomic_store_n(&w.state, 1, __ATOMIC_RELEASE);
	return;
fail:
	dyl_raw_unmap(t, 2 * PAGE);
	off("write protection does not work here (PROCMAP_QUERY, Linux 6.11, or PAGEMAP_SCAN)", errno);
}

int dyl_watch_on(void)
{
	int s = __atomic_load_n(&w.state, __ATOMIC_ACQUIRE);

	if (dyl_likely(s))
		return s == 1;
	dyl_spin_lock(&w.lock);
	if (!w.state)
		setup();
	dyl_spin_unlock(&w.lock);
	return w.state == 1;
}

const char *dyl_watch_how(void)
{
	dyl_watch_on();
	return w.why;
}

/* the runs a failed scan wrote into V before it stopped (the kernel writes what it found
 * and protected before it returns the error; V was zeroed) */
static void deliver_partial(const struct page_region *v, unsigned nv,
			    void (*fn)(uintptr_t, uintptr_t, void *), void *arg)
{
	for (unsigned i = 0; i < nv && v[i].end > v[i].start; i++)
		fn(v[i].start, v[i].end, arg);
}

/* [A, B) one VMA at a time, after a scan stopped at a page not registered (a VMA new
 * since the last look: the heap grew, a block was mapped): the registered ones are
 * scanned as usual (pages the failed scan protected now read as not written), a new
 * one is registered, protected, and listed whole: nothing is known of its past */
static int by_vma(uintptr_t a, uintptr_t b, void (*fn)(uintptr_t, uintptr_t, void *), void *arg)
{
	struct page_region v[RUNS];
	uint64_t end;
	int news = 0;

	while (a < b) {
		struct procmap_query q = { .size = sizeof(q), .query_addr = a };
		if (ioctl(w.maps, PROCMAP_QUERY, &q) != 0)
			return -1;
		uintptr_t e = q.vma_end < b ? q.vma_end : b;
		for (uintptr_t at = a; at < e; at = end) {
			long n = scan_once(at, e, v, RUNS, &end);
			if (n < 0) {
				if (register_vma(q.vma_start, q.vma_end) != 0)
					return -1;
				for (uintptr_t p = at; p < e; p = end)
					if (scan_once(p, e, v, RUNS, &end) < 0 || end <= p)
						return -1;
				fn(at, e, arg);
				news = 1;
				break;
			}
			for (long i = 0; i < n; i++)
				fn(v[i].start, v[i].end, arg);
			if (end <= at)
				return -1;
		}
		a = e;
	}
	return news;
}

int dyl_watch_written(uintptr_t a, uintptr_t b, void (*fn)(uintptr_t, uintptr_t, void *), void *arg)
{
	struct page_region v[RUNS];
	uint64_t end;

	for (uintptr_t at = a; at < b; at = end) {
		memset(v, 0, sizeof(v));
		long n = scan_once(at, b, v, RUNS, &end);
		if (n < 0) {
			int err = errno;
			if (err == EBADF || err == ENOTTY) {	/* the program closed our fd */
				off("the program closed the descriptors", err);
				return -1;
			}
			if (err != EPERM)
				return -1;
			deliver_partial(v, RUNS, fn, arg);
			return by_vma(at, b, fn, arg);
		}
		for (long i = 0; i < n; i++)
			fn(v[i].start, v[i].end, arg);
		if (end <= at)
			return -1;	/* no progress: never spin */
	}
	return 0;
}

void dyl_watch_protect(uintptr_t a, uintptr_t b, int on)
{
	if (a >= b)
		return;
	struct uffdio_writeprotect p = { .range = { a, b - a },
					 .mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0 };
	ioctl(w.uffd, UFFDIO_WRITEPROTECT, &p);
}

void dyl_watch_protect_registering(uintptr_t a, uintptr_t b)
{
	if (a >= b)
		return;
	struct uffdio_writeprotect p = { .range = { a, b - a }, .mode = UFFDIO_WRITEPROTECT_MODE_WP };
	if (ioctl(w.uffd, UFFDIO_WRITEPROTECT, &p) == 0)
		return;
	if (register_vmas(a, b) == 0)
		ioctl(w.uffd, UFFDIO_WRITEPROTECT, &p);
}

/* fork: the child's memory is unregistered, and our descriptors are the parent's (its
 * userfaultfd context and its /proc/self, resolved at open): start again when needed */
void dyl_watch_after_fork(void)
{
	close_all();
	w.lock = 0;
	w.state = 0;
}
