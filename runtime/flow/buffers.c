/* buffers.c - std.flow's per-thread event buffers, in the spool.  Each thread appends
 * raw events (dyl_flow.h: CALL, ACC, ALLOC, FREE, SITE, HOST, HOSTRD) to a window of its
 * own: a FLOW chunk of the spool mapped shared, as the records' windows are
 * (doc/specs/spool.md), so that an event is in the file once stored and a killed run
 * keeps every one.  A full window is copied out as a FLOW chunk naming the window and
 * its generation, then emptied (a window written over again and again stays mapped and
 * dirty: a fresh one each time cost a page fault per 4 KiB, 3 us each here); a reader
 * takes a window's live events after its copies, unless a copy of that generation
 * exists (the process was killed between the copy and the emptying).
 *
 * The owner appends without a lock (reserve and commit, buffers.h): it stores the
 * words, then the count (release).  A buffer's spin lock keeps its owner's copy-out and
 * the one at exit apart.  Before the spool exists (events before the first recorded
 * call: the program's set-up), events go to a private buffer that doubles (up to
 * BUF_MAX; past it events are dropped, and TRACE.flow says some are missing), copied out
 * when the spool comes.  What is recorded, and when, is the callers' (hooks.c).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "buffers.h"

#define WIN_SIZE (256u << 10)	/* a window: its chunk, header included */
#define WIN_HEAD (sizeof(struct dyl_chunk) + sizeof(struct dyl_flow_chunk))
#define BUF_FIRST (64u << 10)	/* bytes of a private buffer, at first */
#define BUF_MAX (1u << 30)

struct dyl_flow_state dyl_flow;
TLS struct fbuf *dyl_flow_mine;
TLS int dyl_flow_in;
TLS int dyl_flow_diff_look;

static uint64_t *map_words(size_t words)
{
	void *p = mmap(NULL, words * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* buffer lock and dyl_out.io held: the events into the spool as one chunk, and the
 * buffer emptied (kept when they cannot be written: a full disk).  0, or -1. */
static int copy_out(struct fbuf *b)
{
	size_t len = __atomic_load_n(&b->len, __ATOMIC_ACQUIRE);
	if (!len)
		return 0;
	struct dyl_flow_chunk h = { b->tid, UINT32_MAX, 0, (uint32_t)len };
	if (b->win) {
		h.window = b->win_id;
		h.gen = win_head(b)->gen;
	}
	if (dyl_spool_chunk(DYL_CH_FLOW, &h, sizeof(h), b->data, len * 8) != 0)
		return -1;
	/* (not rows: DYL_CONVERT_MAX leaves them out) */
	dyl_spool.flow_bytes += sizeof(struct dyl_chunk) + sizeof(h) + len * 8;
	if (b->win) {	/* (a reader finding the copy of this generation skips the window) */
		__atomic_store_n(&win_head(b)->words, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&win_head(b)->gen, h.gen + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&b->len, 0, __ATOMIC_RELEASE);
	return 0;
}

/* the owner's buffer is full: copied out (the private one: then a window), else the
 * private buffer doubles */
int dyl_flow_make_room(struct fbuf *b, unsigned words)
{
	if ((!dyl_busy || dyl_flow_diff_look) && dyl_spool.fd >= 0) {
		dyl_io_lock();
		dyl_spin_lock(&b->lock);
		if (copy_out(b) == 0 && !b->win) {
			char *w = dyl_spool_map(DYL_CH_FLOW, WIN_SIZE);
			if (w) {
				dyl_spool.flow_bytes += WIN_SIZE;
				b->win = w;
				b->win_id = dyl_flow.windows++;
				*win_head(b) = (struct dyl_flow_chunk){ b->tid, b->win_id | DYL_FLOW_LIVE, 0, 0 };
				b->data = (uint64_t *)(w + WIN_HEAD);
				b->cap = (WIN_SIZE - WIN_HEAD) / 8;
			}
			b->nowin = !w;
		}
		dyl_spin_unlock(&b->lock);
		dyl_io_unlock();
		if (b->len + words <= b->cap)
			return 0;
	}
	if (b->win)	/* a full window that cannot be copied out now: dropped */
		return -1;
	dyl_spin_lock(&b->lock);
	size_t need = b->len + words;
	if (!b->priv && (b->priv = map_words(BUF_FIRST / 8)))
		b->priv_cap = BUF_FIRST / 8;
	while (b->priv && need > b->priv_cap && b->priv_cap * 16 <= BUF_MAX) {
		void *p = mremap(b->priv, b->priv_cap * 8, b->priv_cap * 16, MREMAP_MAYMOVE);
		if (p == MAP_FAILED)
			break;
		b->priv = p;
		b->priv_cap *= 2;
	}
	b->data = b->priv;
	b->cap = b->priv_cap;
	dyl_spin_unlock(&b->lock);
	return b->priv && need <= b->cap ? 0 : -1;
}

static void thread_gone(void *arg)
{
	struct fbuf *b = arg;

	dyl_flow_in++;
	if (dyl_spool.fd >= 0) {
		dyl_io_lock();
		dyl_spin_lock(&b->lock);
		copy_out(b);
		dyl_spin_unlock(&b->lock);
		dyl_io_unlock();
	}
	/* (what could not be written stays: the flush at exit tries again) */
	if (!__atomic_load_n(&b->len, __ATOMIC_RELAXED))
		__atomic_store_n(&b->dead, 1, __ATOMIC_RELEASE);
	dyl_flow_mine = NULL;
	dyl_flow_in--;
}

struct fbuf *dyl_flow_own_buffer(void)
{
	struct fbuf *b;
	pid_t tid = (pid_t)syscall(SYS_gettid);

	for (b = __atomic_load_n(&dyl_flow.bufs, __ATOMIC_ACQUIRE); b; b = b->next) {
		int dead = 1;
		if (__atomic_load_n(&b->dead, __ATOMIC_RELAXED) &&
		    __atomic_compare_exchange_n(&b->dead, &dead, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
	}
	if (!b) {
		if (!(b = (struct fbuf *)map_words(sizeof(*b) / 8 + 1)))
			return NULL;
		dyl_spin_lock(&dyl_flow.lock);
		b->next = dyl_flow.bufs;
		__atomic_store_n(&dyl_flow.bufs, b, __ATOMIC_RELEASE);
		dyl_spin_unlock(&dyl_flow.lock);
	}
	dyl_spin_lock(&b->lock);
	b->tid = tid;
	if (b->win)	/* (empty: its thread's events were copied out) */
		__atomic_store_n(&win_head(b)->tid, tid, __ATOMIC_RELEASE);
	else
		b->data = b->priv, b->cap = b->priv ? b->priv_cap : 0;
	b->nprev[0] = b->nprev[1] = 0;
	__atomic_store_n(&b->len, 0, __ATOMIC_RELEASE);
	dyl_spin_unlock(&b->lock);
	pthread_setspecific(dyl_flow.key, b);
	return dyl_flow_mine = b;
}

int dyl_flow_put(const uint64_t *ev, unsigned words)
{
	uint64_t *p = reserve(words);

	if (!p)
		return -1;
	memcpy(p, ev, words * 8);
	commit(words);
	return 0;
}

/* (a window's events are in the spool already, but its copy says they were read) */
void dyl_flow_copy_all(void)
{
	for (struct fbuf *b = __atomic_load_n(&dyl_flow.bufs, __ATOMIC_ACQUIRE); b; b = b->next) {
		dyl_spin_lock(&b->lock);
		copy_out(b);
		dyl_spin_unlock(&b->lock);
	}
}

uint64_t dyl_flow_lost(void)
{
	return __atomic_load_n(&dyl_flow.lost, __ATOMIC_RELAXED);
}

/* a forked child writes its own trace: the parent's events are not its own, and its
 * windows are the parent's spool */
void dyl_flow_buffers_forked(void)
{
	for (struct fbuf *b = dyl_flow.bufs; b; b = b->next) {
		b->lock = 0;
		if (b->win)
			munmap(b->win, WIN_SIZE);
		b->win = NULL;
		b->data = b->priv;
		b->cap = b->priv ? b->priv_cap : 0;
		b->len = 0;
		b->nprev[0] = b->nprev[1] = 0;
		b->dead = b != dyl_flow_mine;
	}
	if (dyl_flow_mine)
		dyl_flow_mine->tid = (pid_t)syscall(SYS_gettid);
}

void dyl_flow_buffers_setup(void)
{
	pthread_key_create(&dyl_flow.key, thread_gone);
}
