/* spool.c - the spool's writing side (the format and why: dyl_spool.h).
 *
 * Created when the process claims its trace, beside it ("DIR/.NAME.dylspool"); in
 * memory (memfd) when the trace is not a regular file (/dev/null, a pipe) or its
 * directory takes no spool.  Each recording thread gets a window mapped from it; a
 * full window is appended as a block and reused, so a write-out is one pwritev and
 * no formatting.  When the image ends the spool is converted into the trace
 * (runtime/format/: decode.c, csv.c) and removed; with DYL_CONVERT=later, or by default
 * when it is large (convert_when), it is completed (a FOOT chunk) and kept instead, and
 * the tools read it in place (dyl_spool_finish).
 *
 * The spool is made as the trace is (trace.c): never through a symlink, never into
 * another user's file (such a name: one line, and the rows wait in memory), 0600.  The
 * program may close its descriptor: each append, new window and the conversion check it
 * first (spool_ok) and open the file again by name.  Windows already mapped stay (a
 * mapping outlives the descriptor); an in-memory spool cannot be opened again (its rows
 * are lost then, with one line).
 *
 * Space for blocks is reserved ahead with fallocate: the file system then does its
 * per-block bookkeeping once per step, not on every write-out, and a window's pages exist before
 * they are touched (a store into a hole of a full disk would be a SIGBUS, not an error).
 *
 * Function names are stored into a names area, a mapped part of the spool like a window
 * (so a function's first call makes no system call): NAMES chunks one after the other,
 * the rest of the area one PAD chunk.  A name goes in as a reader must see it: the PAD
 * after it first, then its text, then the chunk's header over the old PAD's in one
 * 8-byte store.  A full area is followed by a new one; with none (no room, no mmap), a
 * NAMES chunk is appended.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "dyl_csv.h"
#include "dyl_events.h"
#include "internal.h"

#define SPOOL_STEP (64u << 20)
#define PAGE 4096u
#define NAMES_AREA (64u * 1024)	/* ~1,600 names of 20 characters */

/* The names area mapped now (see the top of the file); dyl_out.io guards it. */
static struct {
	char *map;	/* NULL: none yet (or the last one is full) */
	uint32_t used;	/* bytes of NAMES chunks at its start; a PAD chunk follows */
	int failed;	/* no area could be made: append from now on */
} names;

static int write_at(struct iovec *iov, int n, uint64_t off)
{
	while (n > 0) {
		ssize_t w = pwritev(dyl_spool.fd, iov, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (uint64_t)w;
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++, n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* The spool cannot be written (a full disk): one warning, the program goes on.  The
 * trace says why its rows end ('# error='), and so does the spool's head (written in
 * place: its block exists), for dyl-trace when the process dies before its end. */
static void failed(void)
{
	int err = errno ? errno : ENOSPC;
	const char *where = dyl_spool.memfd ? "memory" : dyl_spool.path;

	if ((err == ENOSPC || err == EFBIG || err == EDQUOT) && !dyl_spool.memfd)
		dyl_warn_once("write", "the disk is full: the trace %s stops here (%s: %s); the "
			      "rows written so far stay in the spool, the program goes on untraced",
			      dyl_out.path, where, strerror(err));
	else
		dyl_warn_once("write", "cannot write the trace %s (%s: %s); the program goes on "
			      "untraced", dyl_out.path, where, strerror(err));
	DYL_DISABLE();
	if (dyl_spool.fd >= 0 && !dyl_spool.memfd &&
	    dyl_fd_is(dyl_spool.fd, dyl_spool.dev, dyl_spool.ino)) {
		uint32_t flag = DYL_SPOOL_DISK_FULL;
		if (pwrite(dyl_spool.fd, &flag, sizeof(flag),
			   (off_t)offsetof(struct dyl_spool_head, zero)) != (ssize_t)sizeof(flag))
			flag = 0;
	}
	char what[sizeof(dyl_spool.path) + 64];
	snprintf(what, sizeof(what), "%s: %s", where, strerror(err));
	dyl_trace_error(err, what);
}

/* The spool's descriptor is still ours (the program may have closed it: trace.c),
 * else its file is opened again by name.  0, or -1 with the warning given. */
static int spool_ok(void)
{
	if (dyl_fd_check(&dyl_spool.fd, dyl_spool.dev, dyl_spool.ino,
			 dyl_spool.memfd ? NULL : dyl_spool.path, O_RDWR) == 0)
		return 0;
	dyl_warn_once("write", "cannot write the trace %s: the program closed the spool's "
		      "descriptor and %s (%s); the program goes on untraced", dyl_out.path,
		      dyl_spool.memfd ? "it was in memory only" : "it cannot be opened again",
		      strerror(errno));
	DYL_DISABLE();
	dyl_spool.fd = -1;	/* (the number is the program's now) */
	return -1;
}

/* Reserves space up to END (doubling from 1 MiB: a short run reserves little). */
static void reserve(uint64_t end)
{
	while (end > dyl_spool.alloc && dyl_spool.alloc != UINT64_MAX) {
		uint64_t step = dyl_spool.alloc < (1 << 20) ? (1 << 20) : dyl_spool.alloc;
		if (step > SPOOL_STEP)
			step = SPOOL_STEP;
		if (fallocate(dyl_spool.fd, FALLOC_FL_KEEP_SIZE, (off_t)dyl_spool.alloc,
			      (off_t)step) == 0)
			dyl_spool.alloc += step;
		else
			dyl_spool.alloc = UINT64_MAX;	/* not supported (or full): never again */
	}
}

/* Appends a chunk of KIND: its header, then the pieces IOV[1..N-1] (IOV[0] is for the
 * header), padded to 8 bytes.  0, or -1 with the warning given. */
static int append(uint32_t kind, struct iovec *iov, int n)
{
	static const char zeros[8];
	struct dyl_chunk ch = { kind, 0 };
	size_t len = 0;

	for (int i = 1; i < n; i++)
		len += iov[i].iov_len;
	iov[0] = (struct iovec){ &ch, sizeof(ch) };
	iov[n] = (struct iovec){ (void *)zeros, (8 - len % 8) % 8 };
	ch.len = (uint32_t)(len + iov[n].iov_len);
	if (spool_ok() != 0)
		return -1;
	/* (blocks only: the few small chunks before the first write-out, at the first call,
	 * do without a fallocate) */
	if (kind == DYL_CH_BLOCK)
		reserve(dyl_spool.size + sizeof(ch) + ch.len);
	if (write_at(iov, n + 1, dyl_spool.size) != 0) {
		failed();
		return -1;
	}
	dyl_spool.size += sizeof(ch) + ch.len;
	return 0;
}

/* --- thread events (runtime/threads/, runtime/procs/): each goes into the spool as it
 * happens, in a chunk of its own, so that a killed run keeps it (pipe reads and writes by
 * 64); those before the spool exists (the
 * trace is claimed at the first recorded call) wait here.  dyl_out.io held. --- */

static struct pending_events {
	struct dyl_event *ev;	/* mmap'd: no malloc on this path */
	uint32_t n, cap;
	int on;			/* DYL_EV_ON (bit 0), DYL_EV_PROCS_ON (bit 1) queued: a forked
				 * child queues them again */
} events;

static void put_events(void)
{
	if (dyl_spool.fd < 0 || events.n == 0)
		return;
	uint32_t head[2] = { events.n, 0 };
	struct iovec iov[4] = { { 0 }, { head, sizeof(head) },
				{ events.ev, events.n * sizeof(*events.ev) } };
	if (append(DYL_CH_EVENTS, iov, 3) == 0)
		events.n = 0;
}

/* Pipe events held in memory before the spool exists, at most (a process that never
 * records a call leaves no trace: its pipe traffic must not grow it without end) */
#define PENDING_PIPE_MAX 65536

void dyl_spool_event(const struct dyl_event *e)
{
	int pipe = e->kind == DYL_EV_PIPE_READ || e->kind == DYL_EV_PIPE_WRITE;

	dyl_io_lock();
	if (DYL_DISABLED() || __atomic_load_n(&dyl_out.finished, __ATOMIC_ACQUIRE) ||
	    (e->kind == DYL_EV_ON && (events.on & 1)) ||
	    (e->kind == DYL_EV_PROCS_ON && (events.on & 2)) ||
	    (pipe && dyl_spool.fd < 0 && events.n >= PENDING_PIPE_MAX))
		goto out;
	if (events.n == events.cap) {
		uint32_t cap = events.cap ? 2 * events.cap : 64;
		void *p = events.ev ? mremap(events.ev, events.cap * sizeof(*e), cap * sizeof(*e),
					     MREMAP_MAYMOVE)
				    : mmap(NULL, cap * sizeof(*e), PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			goto out;	/* (the event is lost) */
		events.ev = p;
		events.cap = cap;
	}
	events.ev[events.n++] = *e;
	events.on |= (e->kind == DYL_EV_ON) | (e->kind == DYL_EV_PROCS_ON) << 1;
	/* pipe reads and writes may come by the million: a chunk for every 64 (a killed run
	 * loses the last few; every write-out takes them first) */
	if (!pipe || events.n >= 64)
		put_events();
out:
	dyl_io_unlock();
}

/* The thread events as '#' lines after the rows (events.c). */
static void event_lines(struct dyl_conv *c)
{
	size_t len;
	char *text = dyl_events_text(c, dyl_spool.fd, dyl_spool.size, &len);

	if (text)
		dyl_trace_put(text, len);
	dyl_events_free(text);
}

int dyl_spool_chunk(uint32_t kind, const void *a, size_t alen, const void *b, size_t blen)
{
	struct iovec iov[4] = { { 0 }, { (void *)a, alen }, { (void *)b, blen } };

	DYL_ASSERT_HELD(&dyl_out.io);
	if (dyl_spool.fd < 0 || DYL_DISABLED())
		return -1;
	return append(kind, iov, 3);
}

/* --- what the converter needs besides records --- */

/* SIZE bytes at the end of the spool (on a page), space taken and mapped shared.
 * NULL when there is no room (or no mmap).  The caller stores a
 * chunk header at its start before it lets go of dyl_out.io. */
static void *map_space(uint32_t size, int populate)
{
	void *w;

	if (spool_ok() != 0)
		return NULL;
	uint64_t at = (dyl_spool.size + PAGE - 1) & ~(uint64_t)(PAGE - 1);
	if (at > dyl_spool.size) {
		/* the gap: a PAD chunk (a header that says how far to skip) */
		struct dyl_chunk pad = { DYL_CH_PAD, (uint32_t)(at - dyl_spool.size - sizeof(pad)) };
		struct iovec iov = { &pad, sizeof(pad) };
		if (write_at(&iov, 1, dyl_spool.size) != 0)
			return NULL;
		dyl_spool.size = at;
	}
	if (fallocate(dyl_spool.fd, 0, (off_t)at, size) != 0)
		return NULL;	/* no room (or no fallocate) */
	w = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | (populate ? MAP_POPULATE : 0),
		 dyl_spool.fd, (off_t)at);
	/* Not populated (windows, names areas): a page comes in at its first store, alone.
	 * Populating a window cost its thread's first call ~110 us here (64 pages read in,
	 * mapped read-only: each page's first store faults all the same), and read-ahead
	 * on the first store's fault as much again (MADV_RANDOM: none). */
	if (!populate && w != MAP_FAILED)
		madvise(w, size, MADV_RANDOM);
	if (w == MAP_FAILED) {
		/* the space stays, skipped by a PAD chunk */
		struct dyl_chunk pad = { DYL_CH_PAD, size - (uint32_t)sizeof(pad) };
		struct iovec iov = { &pad, sizeof(pad) };
		if (write_at(&iov, 1, at) == 0)
			dyl_spool.size = at + size;
		return NULL;
	}
	dyl_spool.size = at + size;
	if (dyl_spool.alloc != UINT64_MAX && dyl_spool.alloc < dyl_spool.size)
		dyl_spool.alloc = dyl_spool.size;
	return w;
}

/* A chunk of KIND mapped shared at the spool's end (std.flow's windows): SIZE bytes, a
 * multiple of a page, its header stored.  NULL when there is no room.  dyl_out.io held. */
void *dyl_spool_map(uint32_t kind, uint32_t size)
{
	struct dyl_chunk *c;

	DYL_ASSERT_HELD(&dyl_out.io);
	if (dyl_spool.fd < 0 || DYL_DISABLED() || size % PAGE || !(c = map_space(size, 1)))
		return NULL;
	__atomic_store_n(&c->len, size - (uint32_t)sizeof(*c), __ATOMIC_RELAXED);
	__atomic_store_n(&c->kind, kind, __ATOMIC_RELEASE);
	return c;
}

/* Names [dyl_spool.names, COUNT) into the names area, as many as fit in one chunk;
 * how many went in. */
static uint32_t names_to_area(uint32_t count)
{
	uint32_t first = dyl_spool.names, n = 0, o = names.used + 16;

	for (uint32_t id = first; id < count; id++) {
		size_t len = strnlen(dyl_func_name(id), 1024) + 1;
		/* (room for the PAD header after the chunk) */
		if (o + len + 7 + 8 > NAMES_AREA)
			break;
		memcpy(names.map + o, dyl_func_name(id), len - 1);
		names.map[o + len - 1] = '\0';
		o += (uint32_t)len;
		n++;
	}
	if (n == 0)
		return 0;
	uint32_t end = (o + 7) & ~7u;
	memset(names.map + o, 0, end - o);
	/* the PAD after it, then the chunk's head, then its header (one store: a reader
	 * sees the old PAD or the whole chunk) */
	if (end < NAMES_AREA) {
		struct dyl_chunk pad = { DYL_CH_PAD, NAMES_AREA - end - (uint32_t)sizeof(pad) };
		memcpy(names.map + end, &pad, sizeof(pad));
	}
	uint32_t head[2] = { first, n };
	memcpy(names.map + names.used + 8, head, sizeof(head));
	struct dyl_chunk ch = { DYL_CH_NAMES, end - names.used - (uint32_t)sizeof(ch) };
	uint64_t word;
	memcpy(&word, &ch, sizeof(word));
	__atomic_store_n((uint64_t *)(void *)(names.map + names.used), word, __ATOMIC_RELEASE);
	names.used = end;
	return n;
}

/* A new names area at the end of the spool.  0, or -1: none (append instead). */
static int names_area_new(void)
{
	if (names.map) {
		munmap(names.map, NAMES_AREA);
		names.map = NULL;
	}
	if (names.failed)
		return -1;
	char *m = map_space(NAMES_AREA, 0);
	if (!m) {
		names.failed = 1;
		return -1;
	}
	struct dyl_chunk pad = { DYL_CH_PAD, NAMES_AREA - (uint32_t)sizeof(pad) };
	uint64_t word;
	memcpy(&word, &pad, sizeof(word));
	__atomic_store_n((uint64_t *)(void *)m, word, __ATOMIC_RELEASE);
	names.map = m;
	names.used = 0;
	return 0;
}

/* A names area made ahead (dyl_prepare: the first call's name then costs no mapping). */
void dyl_spool_names_ahead(void)
{
	DYL_ASSERT_HELD(&dyl_out.io);
	if (dyl_spool.fd >= 0 && !names.map && !DYL_DISABLED())
		names_area_new();
}

/* The names area goes (the spool is dropped, or is the parent's). */
static void names_area_drop(void)
{
	if (names.map)
		munmap(names.map, NAMES_AREA);
	names.map = NULL;
	names.used = 0;
	names.failed = 0;
}

/* Function names not in the spool yet. */
static void put_names(void)
{
	static char buf[64 * 1024];
	uint32_t count = dyl_func_count();

	while (dyl_spool.fd >= 0 && dyl_spool.names < count) {
		if (names.map || names_area_new() == 0) {
			uint32_t n = names_to_area(count);
			if (n) {
				dyl_spool.names += n;
				continue;
			}
			if (names_area_new() == 0)
				continue;	/* (the old one was full) */
		}
		uint32_t head[2] = { dyl_spool.names, 0 };
		size_t o = 0;
		for (uint32_t id = head[0]; id < count; id++) {
			const char *name = dyl_func_name(id);
			size_t n = strnlen(name, 1024);
			if (o + n + 1 > sizeof(buf))
				break;
			memcpy(buf + o, name, n);
			buf[o + n] = '\0';
			o += n + 1;
			head[1]++;
		}
		struct iovec iov[4] = { { 0 }, { head, sizeof(head) }, { buf, o } };
		if (append(DYL_CH_NAMES, iov, 3) != 0)
			return;
		dyl_spool.names += head[1];
	}
}

/* The clock's knots, when there are new ones (or none yet: then with a provisional
 * pair, for a process that dies before the second knot). */
static void put_clock(int first)
{
	uint32_t n;
	const struct dyl_knot *k = dyl_clock_knots(&n);

	if (dyl_spool.fd < 0 || (!first && n == dyl_spool.knots && n < 1024))
		return;
	struct dyl_spool_clock c = { (uint32_t)dyl_tsc_on, n, dyl_proc.t0, 0, 0 };
	if (dyl_tsc_on && n < 2) {
		struct dyl_knot p = dyl_clock_provisional();
		c.prov_tsc = p.tsc;
		c.prov_ns = p.ns;
	}
	struct iovec iov[4] = { { 0 }, { &c, sizeof(c) }, { (void *)k, n * sizeof(*k) } };
	if (append(DYL_CH_CLOCK, iov, 3) == 0)
		dyl_spool.knots = n;
}

void dyl_spool_meta_text(const char *text, size_t len, uint32_t ncolumns)
{
	uint32_t head[2] = { ncolumns, (uint32_t)len };
	struct iovec iov[4] = { { 0 }, { head, sizeof(head) }, { (void *)text, len } };

	if (dyl_spool.fd >= 0)
		append(DYL_CH_META, iov, 3);
}

void dyl_spool_meta(void)
{
	static char buf[8192];

	if (dyl_spool.fd < 0)
		return;
	pthread_mutex_lock(&dyl_meta.lock);
	size_t n = dyl_trace_header_text(buf, sizeof(buf));
	uint32_t ncolumns = dyl_meta.ncolumns;
	pthread_mutex_unlock(&dyl_meta.lock);
	dyl_spool_meta_text(buf, n, ncolumns);
}

void dyl_spool_names_now(void)
{
	if (__atomic_load_n(&dyl_out.fd, __ATOMIC_ACQUIRE) < 0)
		return;
	dyl_io_lock();
	put_names();
	dyl_io_unlock();
}

/* --- the file --- */

void dyl_spool_open(void)
{
	struct stat st;
	struct dyl_spool_head h = { DYL_SPOOL_MAGIC, DYL_SPOOL_VERSION, 0 };

	if (dyl_spool.fd >= 0 || dyl_out.fd < 0)
		return;
	dyl_spool.fd = -1;
	dyl_spool.memfd = 0;
	if (fstat(dyl_out.fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    dyl_spool_name(dyl_spool.path, sizeof(dyl_spool.path), dyl_out.path) == 0) {
		/* (truncated only once known to be ours: a spool left by a killed run of this
		 * trace, which this process just replaced) */
		int fd = dyl_open_safe(dyl_spool.path, O_RDWR | O_CREAT);
		if (fd >= 0 && ftruncate(fd, 0) != 0) {
			close(fd);
			fd = -1;
		}
		const char *why = fd < 0 ? dyl_refused(dyl_spool.path, errno) : NULL;
		if (why)
			dyl_warn_once("spool", "refusing the spool %s: it is %s; the rows wait in memory",
				      dyl_spool.path, why);
		dyl_spool.fd = dyl_fd_high(fd);
	}
	if (dyl_spool.fd < 0) {
		/* the rows wait in memory (the spool's pages), written at the end */
		dyl_spool.fd = dyl_fd_high(memfd_create("dylspool", MFD_CLOEXEC));
		dyl_spool.memfd = 1;
	}
	if (dyl_spool.fd < 0 || fstat(dyl_spool.fd, &st) != 0) {
		failed();
		return;
	}
	dyl_spool.dev = st.st_dev;
	dyl_spool.ino = st.st_ino;
	dyl_spool.size = dyl_spool.alloc = dyl_spool.flow_bytes = 0;
	dyl_spool.names = dyl_spool.knots = 0;
	dyl_spool.nwindows = dyl_spool.nfree_windows = 0;
	names_area_drop();	/* (an earlier spool's, after an exec that failed) */
	struct iovec iov = { &h, sizeof(h) };
	if (write_at(&iov, 1, 0) != 0) {
		failed();
		return;
	}
	dyl_spool.size = sizeof(h);
	dyl_spool_meta();
	put_names();
	put_clock(1);
	if (events.on && events.n == 0) {
		/* a new spool (a forked child's, or after a failed exec) of a process whose
		 * wrapper records thread events: it says so too */
		if (events.on & 1)
			events.ev[events.n++] = (struct dyl_event){ .kind = DYL_EV_ON };
		if (events.on & 2)
			events.ev[events.n++] = (struct dyl_event){ .kind = DYL_EV_PROCS_ON };
	}
	put_events();
}

/* A window for thread TID: one a finished thread left, or a new one at the end of
 * the spool (on a page: it is mapped).  NULL when there is no spool or no room (the
 * thread keeps its own buffer). */
struct dyl_window *dyl_spool_window(pid_t tid)
{
	struct dyl_window *w;

	DYL_ASSERT_HELD(&dyl_out.io);
	if (dyl_spool.fd < 0 || DYL_DISABLED())
		return NULL;
	if (dyl_spool.nfree_windows) {
		w = dyl_spool.free_windows[--dyl_spool.nfree_windows];
		w->tid = tid;
		return w;
	}
	w = map_space(DYL_WINDOW_SIZE, 0);
	if (!w)
		return NULL;
	w->tid = tid;
	w->id = dyl_spool.nwindows++;
	w->gen = 0;
	w->len = 0;
	w->size = (uint32_t)DYL_WINDOW_DATA;
	__atomic_store_n(&w->ch.len, DYL_WINDOW_SIZE - (uint32_t)sizeof(w->ch), __ATOMIC_RELAXED);
	__atomic_store_n(&w->ch.kind, DYL_CH_WINDOW, __ATOMIC_RELEASE);
	return w;
}

int dyl_spool_window_is_shared(const struct dyl_thread *t)
{
	return t->win != DYL_OWN_WINDOW(t);
}

/* T's thread ended, its window empty: the next thread takes it. */
void dyl_spool_window_done(struct dyl_window *w)
{
	DYL_ASSERT_HELD(&dyl_out.io);
	DYL_ASSERT(w->id != DYL_NO_WINDOW && w->len == 0);	/* the spool's, written out */
	if (dyl_spool.nfree_windows < sizeof(dyl_spool.free_windows) / sizeof(dyl_spool.free_windows[0]))
		dyl_spool.free_windows[dyl_spool.nfree_windows++] = w;
	else
		munmap(w, DYL_WINDOW_SIZE);	/* its space is lost to the spool; still read */
}

/* The block of T's records in [FROM, TO) of its window, made before the output is
 * locked: its head into B, the open calls it lists into OPENS.  OPEN: the levels of T's
 * open calls (the owner writes out from inside nested calls); those not listed in an
 * earlier block are listed in this one, at their place in start order. */
void dyl_spool_block(struct dyl_block *out, struct dyl_open *opens, struct dyl_thread *t,
		     uint32_t from, uint32_t to, uint32_t open)
{
	struct dyl_block b = { { DYL_CH_BLOCK, 0 }, t->tid, DYL_NO_WINDOW, 0, from, to, 0, UINT64_MAX };
	struct dyl_window *w = t->win;

	DYL_ASSERT_HELD(&t->flush_lock);
	DYL_ASSERT(from <= to && to <= DYL_WINDOW_DATA);
	if (open > DYL_MAX_FRAMES)
		open = DYL_MAX_FRAMES;
	for (uint32_t l = 0; l < open; l++) {
		if (t->reserved[l])
			continue;
		/* alive: an ancestor of the call being left, its dyl_call on the stack */
		const struct dyl_call *c = (const struct dyl_call *)t->frames[l];
		opens[b.nopen++] = (struct dyl_open){ c->t_start, (uint16_t)l, { 0, 0, 0 } };
		t->reserved[l] = 1;
		if (c->t_start < b.min_start)
			b.min_start = c->t_start;
	}
	uint32_t off = from;
	for (; off < to;) {
		const struct dyl_rec *r = (const struct dyl_rec *)(w->data + off);
		if (r->t_start < b.min_start)
			b.min_start = r->t_start;
		off += dyl_rec_size(r);
	}
	DYL_ASSERT(off == to);	/* whole records only */
	*out = b;
}

/* Appends block B of T (dyl_spool_block), the output locked (output.c). */
void dyl_spool_block_put(const struct dyl_block *bp, struct dyl_open *opens,
			 struct dyl_thread *t)
{
	struct dyl_block b = *bp;
	struct dyl_window *w = t->win;
	uint32_t from = b.from, to = b.to;

	/* After the footer (threads still running while exit writes it) there is no spool
	 * any more: calls that end then are not in the trace. */
	if (dyl_spool.fd >= 0 && !__atomic_load_n(&dyl_out.finished, __ATOMIC_ACQUIRE)) {
		if (dyl_spool_window_is_shared(t)) {
			b.window = w->id;
			b.gen = w->gen;
		}
		dyl_clock_mark();
		put_clock(0);
		put_names();
		struct iovec iov[5] = { { 0 },
					{ (char *)&b + sizeof(b.ch), sizeof(b) - sizeof(b.ch) },
					{ opens, b.nopen * sizeof(opens[0]) },
					{ w->data + from, to - from } };
		if (append(DYL_CH_BLOCK, iov, 4) == 0)
			__atomic_fetch_add(&dyl_spool.blocks, 1, __ATOMIC_RELAXED);
	}
}

/* When the rows become CSV (DYL_CONVERT, doc/environment.md): auto (the default) at exit
 * for a spool of at most DYL_CONVERT_MAX bytes, later for a larger one; at exit always;
 * later (dyl-trace convert; every tool reads the spool in place meanwhile); or at exit
 * with the spool kept.  A big run's conversion would cost the program as much as its
 * calls did (~26 ns a row); a small one's is quick, and its user gets the CSV at once.
 * The size is the spool's whole length: the records (16 bytes a plain call), and the
 * mapped windows (256 KiB a thread) and names areas (64 KiB each), so the limit is
 * about calls, not exactly.  std.flow's FLOW chunks (dyl_spool.flow_bytes, counted by
 * runtime/flow/buffers.c) do not count: a 600-row trace with a large flow gets its CSV.
 * An exec converts at once: its image's spool cannot outlive
 * it (a failed exec opens a new spool under the same name); so does a spool in memory. */
static enum { CONVERT_EXIT, CONVERT_LATER, CONVERT_KEEP } convert_when(void)
{
	const char *v = dyl_env(DYL_ENV_CONVERT);

	if (dyl_spool.memfd)
		return CONVERT_EXIT;
	if (!v || !strcmp(v, "auto"))
		return dyl_spool.size - dyl_spool.flow_bytes > dyl_env_size(DYL_ENV_CONVERT_MAX)
			       ? CONVERT_LATER : CONVERT_EXIT;
	return !strcmp(v, "later") ? CONVERT_LATER : !strcmp(v, "keep") ? CONVERT_KEEP : CONVERT_EXIT;
}

static int exec_ends;

void dyl_spool_exec(void)
{
	exec_ends = 1;
}

/* The footer FOOT into the spool: the process finished, every row is in a block. */
static int put_footer(const char *foot, size_t len)
{
	uint32_t head[2] = { (uint32_t)len, 0 };
	struct iovec iov[4] = { { 0 }, { head, sizeof(head) }, { (void *)foot, len } };

	return append(DYL_CH_FOOTER, iov, 3);
}

/* The spool stays, complete, for the tools: our mappings and descriptor go, and the space
 * reserved past its end (reserve) is given back. */
static void keep(void)
{
	for (uint32_t i = 0; i < dyl_spool.nfree_windows; i++)
		munmap(dyl_spool.free_windows[i], DYL_WINDOW_SIZE);
	dyl_spool.nfree_windows = 0;
	names_area_drop();
	if (dyl_spool.alloc != UINT64_MAX && dyl_spool.alloc > dyl_spool.size) {
		uint64_t from = (dyl_spool.size + PAGE - 1) & ~(uint64_t)(PAGE - 1);
		if (dyl_spool.alloc > from)
			fallocate(dyl_spool.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  (off_t)from, (off_t)(dyl_spool.alloc - from));
	}
	dyl_fd_close(&dyl_spool.fd, dyl_spool.dev, dyl_spool.ino);
	dyl_spool.size = dyl_spool.alloc = 0;
	events.n = 0;
}

/* Every row spooled so far into the trace, then the spool goes (or stays: see
 * convert_when).  The converter reads the spool only (its names, knots and blocks): the
 * same code dyl-trace runs after a crash and for DYL_CONVERT=later, checked by every run. */
static int put_rows(void *arg, const char *data, size_t len)
{
	(void)arg;
	dyl_trace_put(data, len);
	return DYL_DISABLED();	/* (a write failed: the warning is out) */
}

int dyl_spool_finish(const char *foot, size_t flen)
{
	/* (large blocks: a write of 256 KiB costs the system call once per ~6000 rows) */
	static char out[DYL_CONVERT_BLOCK];
	const char *why;

	if (dyl_spool.fd < 0)
		return 0;
	dyl_clock_mark();
	put_clock(0);
	put_names();
	put_events();
	if (dyl_hooks.flow_flush)	/* std.flow's events, before the spool is read */
		dyl_hooks.flow_flush();
	if (dyl_spool.fd < 0 || spool_ok() != 0)
		return 0;
	int when = exec_ends ? CONVERT_EXIT : convert_when();
	/* later: only a trace that has no rows yet (an image that went on after a failed
	 * exec has its first rows in the CSV already) */
	if (when == CONVERT_LATER && dyl_spool.seq == 0) {
		if (put_footer(foot, flen) != 0)
			return 0;	/* (disabled, with the warning) */
		if (dyl_hooks.flow_converted)	/* std.flow: TRACE.flow, as at a conversion */
			dyl_hooks.flow_converted(dyl_spool.fd, dyl_spool.size, 0);
		keep();
		return 1;
	}
	struct dyl_conv *c = dyl_conv_open(dyl_spool.fd, dyl_spool.size, 0, &why);
	if (c) {
		uint64_t seq0 = dyl_spool.seq;
		dyl_conv_set_seq(c, dyl_spool.seq);
		if (!DYL_DISABLED())
			dyl_csv_convert(c, out, sizeof(out), put_rows, NULL);
		event_lines(c);
		dyl_spool.seq = dyl_conv_seq(c);
		const char *lost;
		uint64_t at = dyl_conv_damage(c, &lost);
		if (at)	/* written over while the program ran (by it, or another process) */
			dyl_warn_once("spool-damaged", "the spool %s is damaged at byte %llu: %s",
				      dyl_spool.path, (unsigned long long)at, lost);
		dyl_conv_close(c);
		if (dyl_hooks.flow_converted)	/* std.flow: TRACE.flow, now that seq is known */
			dyl_hooks.flow_converted(dyl_spool.fd, dyl_spool.size, seq0);
		if (when == CONVERT_KEEP && !DYL_DISABLED() && put_footer(foot, flen) == 0) {
			keep();
			return 0;
		}
	} else {
		dyl_warn_once("spool", "cannot convert the spool %s: %s", dyl_spool.path, why);
	}
	/* a conversion cut short by a full disk: the spool keeps every row (the tools read
	 * it, the trace having no footer) */
	if (DYL_DISABLED())
		dyl_spool_keep_failed();
	else
		dyl_spool_drop();
	return 0;
}

/* Recording stopped because a write failed (failed(), or the trace's own write): what
 * the spool holds stays for the tools, which read it as a killed run's (its windows too;
 * its head says when the disk was full).  Dropping it, as was done, lost every row of a
 * run that filled the disk (3.5 MB of rows on a 4 MiB tmpfs). */
int dyl_spool_keep_failed(void)
{
	struct stat st;

	DYL_ASSERT_HELD(&dyl_out.io);
	if (dyl_spool.fd < 0 || dyl_spool.memfd ||
	    !dyl_fd_is(dyl_spool.fd, dyl_spool.dev, dyl_spool.ino) ||
	    lstat(dyl_spool.path, &st) != 0 || st.st_dev != dyl_spool.dev ||
	    st.st_ino != dyl_spool.ino) {
		dyl_spool_drop();
		return 0;
	}
	keep();
	return 1;
}

/* The spool goes (converted, or the trace cannot be written). */
void dyl_spool_drop(void)
{
	if (dyl_spool.fd < 0)
		return;
	for (uint32_t i = 0; i < dyl_spool.nfree_windows; i++)
		munmap(dyl_spool.free_windows[i], DYL_WINDOW_SIZE);
	dyl_spool.nfree_windows = 0;
	names_area_drop();
	struct stat st;
	/* the name is removed only while it is still our file's */
	if (!dyl_spool.memfd && lstat(dyl_spool.path, &st) == 0 &&
	    st.st_dev == dyl_spool.dev && st.st_ino == dyl_spool.ino)
		unlink(dyl_spool.path);
	dyl_fd_close(&dyl_spool.fd, dyl_spool.dev, dyl_spool.ino);
	dyl_spool.size = dyl_spool.alloc = 0;
	events.n = 0;	/* the parent's thread events are the parent's */
}

/* A forked child writes its own trace, and so its own spool: the parent's stays the
 * parent's (not converted, not removed by the child).  The windows mapped from it are
 * the parent's too (runtime.c unmaps them). */
void dyl_spool_after_fork(void)
{
	for (uint32_t i = 0; i < dyl_spool.nfree_windows; i++)
		munmap(dyl_spool.free_windows[i], DYL_WINDOW_SIZE);
	dyl_spool.nfree_windows = 0;
	names_area_drop();
	dyl_fd_close(&dyl_spool.fd, dyl_spool.dev, dyl_spool.ino);
	dyl_spool.size = dyl_spool.alloc = 0;
	events.n = 0;	/* the parent's events still waiting for its spool are its own */
}
