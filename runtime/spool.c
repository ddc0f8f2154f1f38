/* spool.c - write-outs: a full thread buffer goes to disk as it is, in binary.
 *
 * Formatting 10^7 CSV rows costs more than recording the calls, so a write-out does
 * not format: it takes the block's call numbers (one atomic add), works out the numbers
 * of the calls still open, and appends one block (header, open calls, the records as
 * the per-call path left them) to a spool file beside the trace.  When the image ends
 * (exit, exec, _exit) the spool is converted into the trace's CSV rows, and removed.
 *
 * The spool is named after the trace, hidden: "DIR/.NAME.dylspool" for DIR/NAME.  A
 * trace that is not a regular file (/dev/null, /dev/full, a pipe), or a directory where
 * no spool can be made, gets its rows converted at each write-out instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "internal.h"

#define BLOCK_MAGIC 0x6b6c4279u	/* "yBlk" */
#define SPOOL_STEP (64 << 20)

struct block {
	uint32_t magic;
	uint32_t len;		/* bytes of records */
	int32_t tid;
	uint32_t nopen;		/* struct dyl_open entries between header and records */
	uint64_t base;		/* first call number of the block */
};

/* Opens the spool for the claimed trace; dyl_rt.io held. */
static void open_spool(void)
{
	struct stat st;
	const char *slash;

	if (dyl_rt.no_spool || dyl_rt.fd < 0)
		return;
	if (fstat(dyl_rt.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		dyl_rt.no_spool = 1;
		return;
	}
	slash = strrchr(dyl_rt.path, '/');
	int dir = slash ? (int)(slash - dyl_rt.path) + 1 : 0;
	snprintf(dyl_rt.spool_path, sizeof(dyl_rt.spool_path), "%.*s.%s.dylspool", dir,
		 dyl_rt.path, dyl_rt.path + dir);
	dyl_rt.spool_fd = open(dyl_rt.spool_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (dyl_rt.spool_fd < 0)
		dyl_rt.no_spool = 1;
	dyl_rt.spool_size = dyl_rt.spool_alloc = 0;
}

static int write_full(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		dyl_rt.spool_size += (uint64_t)w;
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

/* Writes out T's records in [FROM, TO) of its buffer.  OPEN: the levels of T's open
 * calls (the owner writes out from inside nested calls); those without a number yet
 * get one in this block, kept in T->reserved until they end. */
void dyl_spool_out(struct dyl_thread *t, uint32_t from, uint32_t to, uint32_t open)
{
	struct dyl_open opens[DYL_MAX_FRAMES];
	uint32_t nopen = 0, fresh = 0;
	int saved = errno;

	if (open > DYL_MAX_FRAMES)
		open = DYL_MAX_FRAMES;
	for (uint32_t l = 0; l < open; l++) {
		if (t->reserved[l])
			continue;
		/* alive: an ancestor of the call being left, its dyl_call on the stack */
		const struct dyl_call *c = (const struct dyl_call *)t->frames[l];
		opens[nopen++] = (struct dyl_open){ c->t_start, (uint16_t)l, { 0, 0, 0 } };
	}
	for (uint32_t off = from; off < to;) {
		const struct dyl_rec *r = (const struct dyl_rec *)(t->buf + off);
		uint64_t seq;
		fresh += !dyl_rec_seq(r, &seq);
		off += dyl_rec_size(r);
	}
	uint64_t base = __atomic_fetch_add(&dyl_rt.seq, fresh + nopen, __ATOMIC_RELAXED);
	/* an open call's number: its place in start order among the block's rows */
	for (uint32_t i = 0; i < nopen; i++) {
		uint64_t place = 0;
		for (uint32_t j = 0; j < nopen; j++)
			place += dyl_rec_before(opens[j].start, opens[j].level, opens[i].start,
						opens[i].level);
		for (uint32_t off = from; off < to;) {
			const struct dyl_rec *r = (const struct dyl_rec *)(t->buf + off);
			/* at equal keys a record sorts first (conversion lists records
			 * before open calls, and sorts stably) */
			uint64_t seq;
			if (!dyl_rec_seq(r, &seq))
				place += !dyl_rec_before(opens[i].start, opens[i].level,
							 r->t_start, dyl_rec_depth(r));
			off += dyl_rec_size(r);
		}
		t->reserved[opens[i].level] = base + place + 1;
	}
	if (!dyl_trace_lock()) {
		errno = saved;
		return;
	}
	/* After the footer (threads still running while exit writes it) rows go straight
	 * into the trace: no spool would be converted any more. */
	if (dyl_rt.spool_fd < 0 && !__atomic_load_n(&dyl_rt.finished, __ATOMIC_ACQUIRE))
		open_spool();
	/* Space reserved ahead in large steps: the file system then does its per-block
	 * bookkeeping once per step (up to 64 MiB), not on every write (a few ns a call). */
	if (dyl_rt.spool_fd >= 0 && dyl_rt.spool_size + DYL_THREAD_BUF + 65536 > dyl_rt.spool_alloc &&
	    dyl_rt.spool_alloc != UINT64_MAX) {
		/* doubling from 1 MiB: a short run reserves little */
		uint64_t step = dyl_rt.spool_alloc < (1 << 20) ? (1 << 20) : dyl_rt.spool_alloc;
		if (step > SPOOL_STEP)
			step = SPOOL_STEP;
		if (fallocate(dyl_rt.spool_fd, FALLOC_FL_KEEP_SIZE, (off_t)dyl_rt.spool_alloc,
			      (off_t)step) == 0)
			dyl_rt.spool_alloc += step;
		else
			dyl_rt.spool_alloc = UINT64_MAX;	/* not supported: never again */
	}
	if (dyl_rt.spool_fd >= 0) {
		struct block b = { BLOCK_MAGIC, to - from, t->tid, nopen, base };
		struct iovec iov[3] = { { &b, sizeof(b) },
					{ opens, nopen * sizeof(opens[0]) },
					{ t->buf + from, to - from } };
		if (write_full(dyl_rt.spool_fd, iov, 3) != 0) {
			dyl_warn_once("write", "cannot write the trace %s (%s: %s); the program goes on untraced",
				      dyl_rt.path, dyl_rt.spool_path, strerror(errno ? errno : ENOSPC));
			DYL_DISABLE();
		}
	} else {
		dyl_clock_mark();
		dyl_rec_convert(t->tid, t->buf + from, to - from, opens, nopen, base);
	}
	dyl_trace_unlock();
	errno = saved;
}

/* Every block spooled so far becomes CSV rows in the trace; the spool goes.  Called
 * with dyl_rt.io held when the image ends.  Blocks are read one at a time, so that
 * memory stays that of one buffer whatever the run's length. */
void dyl_spool_convert(void)
{
	static char buf[sizeof(struct block) + DYL_MAX_FRAMES * sizeof(struct dyl_open) +
			DYL_THREAD_BUF];
	uint64_t off = 0;

	if (dyl_rt.spool_fd < 0)
		return;
	dyl_clock_mark();
	while (off + sizeof(struct block) <= dyl_rt.spool_size && !DYL_DISABLED()) {
		struct block b;
		if (pread(dyl_rt.spool_fd, &b, sizeof(b), (off_t)off) != (ssize_t)sizeof(b) ||
		    b.magic != BLOCK_MAGIC || b.nopen > DYL_MAX_FRAMES || b.len > DYL_THREAD_BUF)
			break;
		size_t n = b.nopen * sizeof(struct dyl_open) + b.len;
		if (pread(dyl_rt.spool_fd, buf, n, (off_t)(off + sizeof(b))) != (ssize_t)n)
			break;
		dyl_rec_convert(b.tid, buf + b.nopen * sizeof(struct dyl_open), b.len,
				(const struct dyl_open *)buf, b.nopen, b.base);
		off += sizeof(b) + n;
	}
	dyl_spool_drop();
}

/* The trace cannot be written: the spool goes too.  dyl_rt.io held. */
void dyl_spool_drop(void)
{
	if (dyl_rt.spool_fd < 0)
		return;
	close(dyl_rt.spool_fd);
	unlink(dyl_rt.spool_path);
	dyl_rt.spool_fd = -1;
	dyl_rt.spool_size = dyl_rt.spool_alloc = 0;
}

/* A forked child writes its own trace, and so its own spool: the parent's stays the
 * parent's (not converted, not removed by the child). */
void dyl_spool_after_fork(void)
{
	if (dyl_rt.spool_fd >= 0)
		close(dyl_rt.spool_fd);
	dyl_rt.spool_fd = -1;
	dyl_rt.spool_size = dyl_rt.spool_alloc = 0;
}
