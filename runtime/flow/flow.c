/* flow.c - std.flow's events: each thread appends raw events (dyl_flow.h: CALL, ACC,
 * ALLOC, FREE, SITE) to a buffer of its own, written out to the spool as a FLOW chunk
 * when full, when the thread ends and before the spool is converted.  A killed run
 * keeps the chunks written so far (a thread's last buffer is lost with it).
 *
 * Where events come from: the region table's hooks (regions.h): every heap block or
 * mapping added (ALLOC, with its site: sites.c) and removed (FREE); every charge of an
 * outermost call (CALL, then one ACC per region and direction: the extents std.regions
 * computed, no second lookup); and dyl_flow_call, from each wrapped call's prefix, for
 * the outermost calls no charge marked (no pointer argument).  The converter joins a
 * thread's Nth CALL with its Nth depth-0 row.
 *
 * The owner appends without a lock: it stores the words, then len (release).  The lock
 * of a buffer (a spin lock) is taken only to write out, grow or empty it, by the owner
 * or by the converter's flush at exit.  Before the spool exists (events before the
 * first recorded call: the program's set-up), a full buffer doubles instead (up to
 * BUF_MAX; past it events are dropped, and TRACE.flow says some are missing).
 * Nothing is recorded while the runtime itself runs (dyl_busy): its own allocations
 * are no data of the program's, and a write-out takes dyl_rt.io, which it may hold.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "flow.h"
#include "../regions/regions.h"

#define BUF_FIRST (64u << 10)	/* bytes of a thread's buffer */
#define BUF_MAX (1u << 30)	/* while no spool exists */

/* a region of the current outermost call (std.diff's changes are told by address) */
struct fgroup {
	struct dyl_region r;
	uintptr_t min_out, end_out;	/* its output buffer (min_out UINTPTR_MAX: none) */
	uintptr_t ip, cfa;	/* a stack region's frame */
};
#define FGROUPS 64

struct fbuf {
	struct fbuf *next;	/* in flow.bufs, never removed (reused once dead) */
	int lock;
	int dead;		/* its thread ended: the next new thread takes it */
	pid_t tid;
	uint32_t calls_out;	/* CALL events written out so far */
	uint64_t *data;
	size_t cap;		/* words */
	size_t len;		/* words stored (release) */
	size_t out;		/* words written out */
	unsigned ngroups;	/* the current call's regions (std.diff) */
	struct fgroup groups[FGROUPS];
};

/* std.flow's process-wide state */
static struct flow {
	int on;
	int lock;		/* the list */
	struct fbuf *bufs;
	pthread_key_t key;
	uint64_t lost;		/* events dropped */
} flow;

static TLS struct fbuf *mine;
static TLS int in_flow;		/* re-entered (a signal handler, or malloc from within) */
static TLS uintptr_t marked;	/* the call (its dyl_call) whose CALL a charge put */

static uint64_t *map_words(size_t words)
{
	void *p = mmap(NULL, words * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* lock held, and dyl_rt.io: [out, len) into the spool as one chunk */
static void write_out(struct fbuf *b)
{
	size_t len = __atomic_load_n(&b->len, __ATOMIC_ACQUIRE);
	if (len == b->out)
		return;
	uint32_t calls = 0;
	for (size_t i = b->out; i < len; i += DYL_RE_WORDS(b->data[i]) ? DYL_RE_WORDS(b->data[i]) : 1)
		calls += DYL_RE_TYPE(b->data[i]) == DYL_RE_CALL;
	struct dyl_flow_chunk h = { b->tid, b->calls_out };
	if (dyl_spool_chunk(DYL_CH_FLOW, &h, sizeof(h), b->data + b->out, (len - b->out) * 8) != 0)
		return;	/* no spool (yet), or a full disk: kept */
	b->calls_out += calls;
	b->out = len;
}

/* the owner's buffer is full: written out and emptied, else doubled */
static int make_room(struct fbuf *b, unsigned words)
{
	if (!dyl_busy && dyl_rt.spool_fd >= 0) {
		pthread_mutex_lock(&dyl_rt.io);
		dyl_spin_lock(&b->lock);
		write_out(b);
		if (b->out == b->len) {
			__atomic_store_n(&b->len, 0, __ATOMIC_RELEASE);
			b->out = 0;
		}
		dyl_spin_unlock(&b->lock);
		pthread_mutex_unlock(&dyl_rt.io);
		if (b->len + words <= b->cap)
			return 0;
	}
	if (b->cap * 16 > BUF_MAX)
		return -1;
	void *p = mremap(b->data, b->cap * 8, b->cap * 16, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return -1;
	dyl_spin_lock(&b->lock);
	b->data = p;
	b->cap *= 2;
	dyl_spin_unlock(&b->lock);
	return 0;
}

static void thread_gone(void *arg)
{
	struct fbuf *b = arg;

	in_flow++;
	if (dyl_rt.spool_fd >= 0) {
		pthread_mutex_lock(&dyl_rt.io);
		dyl_spin_lock(&b->lock);
		write_out(b);
		dyl_spin_unlock(&b->lock);
		pthread_mutex_unlock(&dyl_rt.io);
	}
	/* (what could not be written stays: the flush at exit tries again) */
	if (b->out == __atomic_load_n(&b->len, __ATOMIC_RELAXED))
		__atomic_store_n(&b->dead, 1, __ATOMIC_RELEASE);
	mine = NULL;
	in_flow--;
}

static struct fbuf *own_buffer(void)
{
	struct fbuf *b;
	pid_t tid = (pid_t)syscall(SYS_gettid);

	for (b = __atomic_load_n(&flow.bufs, __ATOMIC_ACQUIRE); b; b = b->next) {
		int dead = 1;
		if (__atomic_load_n(&b->dead, __ATOMIC_RELAXED) &&
		    __atomic_compare_exchange_n(&b->dead, &dead, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
	}
	if (!b) {
		b = (struct fbuf *)map_words(sizeof(*b) / 8 + 1);
		if (!b || !(b->data = map_words(BUF_FIRST / 8)))
			return NULL;
		b->cap = BUF_FIRST / 8;
		dyl_spin_lock(&flow.lock);
		b->next = flow.bufs;
		__atomic_store_n(&flow.bufs, b, __ATOMIC_RELEASE);
		dyl_spin_unlock(&flow.lock);
	}
	dyl_spin_lock(&b->lock);
	b->tid = tid;
	b->calls_out = 0;
	__atomic_store_n(&b->len, 0, __ATOMIC_RELEASE);
	b->out = 0;
	dyl_spin_unlock(&b->lock);
	pthread_setspecific(flow.key, b);
	return mine = b;
}

int dyl_flow_put(const uint64_t *ev, unsigned words)
{
	struct fbuf *b = mine;

	if (dyl_unlikely(!b) && !(b = own_buffer()))
		goto lost;
	size_t len = b->len;
	if (dyl_unlikely(len + words > b->cap)) {
		if (make_room(b, words) != 0)
			goto lost;
		len = b->len;
	}
	memcpy(b->data + len, ev, words * 8);
	__atomic_store_n(&b->len, len + words, __ATOMIC_RELEASE);
	return 0;
lost:
	__atomic_fetch_add(&flow.lost, 1, __ATOMIC_RELAXED);
	return -1;
}

/* 1: record now (std.flow on, not re-entered, not the runtime's own work) */
static inline int recording(void)
{
	return flow.on && !in_flow && !dyl_busy;
}

static void put_call(void)
{
	uint64_t ev[2] = { DYL_RE_WORD(DYL_RE_CALL, 2, 0, 0), dyl_now() };
	dyl_flow_put(ev, 2);
}

static unsigned obj_kind(uint32_t region_kind)
{
	switch (region_kind) {
	case DYL_REGION_HEAP: return DYL_OBJ_HEAP;
	case DYL_REGION_MMAP: return DYL_OBJ_MAPPING;
	case DYL_REGION_STATIC: return DYL_OBJ_STATIC;
	default: return DYL_OBJ_STACK;
	}
}

/* the frame holding stack region R: its function (a return address) and CFA name a
 * variable at exit */
static void frame_of(const struct dyl_groups *c, const struct dyl_region *r, uintptr_t *ip, uintptr_t *cfa)
{
	const struct dyl_frames *fr = &c->fr;

	*ip = *cfa = 0;
	for (int i = 0; fr->checked && i + 1 < fr->n; i++)
		if (fr->sp[i] <= r->start && r->start < fr->sp[i + 1]) {
			*ip = fr->ip[i];
			*cfa = fr->sp[i + 1];
			return;
		}
}

/* an event on [LO, HI) of G's region: ACC (TYPE DYL_RE_ACC) or HOST */
static void put_range(uint32_t type, const struct fgroup *g, uintptr_t lo, uintptr_t hi, unsigned flags)
{
	unsigned kind = obj_kind(g->r.kind), words = kind == DYL_OBJ_STACK ? 8 : 6;
	uint64_t ev[8] = { DYL_RE_WORD(type, words, flags, kind), g->r.id, g->r.start, g->r.end,
			   lo - g->r.start, hi - g->r.start, g->ip, g->cfa };
	dyl_flow_put(ev, words);
}

/* the region table's hook: an outermost call's extents, grouped by region.  With
 * std.diff, writes are the bytes that changed (changed(), below), not the extents. */
static void charged(const struct dyl_groups *c)
{
	struct dyl_thread *t = dyl_self;
	struct fbuf *b;

	if (!recording() || !t || t->depth != 1)
		return;
	in_flow++;
	put_call();
	int diff = __atomic_load_n(&dyl_reg.diff_on, __ATOMIC_RELAXED);
	if ((b = mine))
		b->ngroups = 0;
	for (unsigned i = 0; i < c->ngroups; i++) {
		const struct dyl_group *g = &c->g[c->used[i]];
		struct fgroup f = { g->r, g->min_out, g->end_out, 0, 0 };
		if (f.r.kind == DYL_REGION_STACK)
			frame_of(c, &g->r, &f.ip, &f.cfa);
		if (g->min_in != UINTPTR_MAX)
			put_range(DYL_RE_ACC, &f, g->min_in, g->end_in, 0);
		if (g->min_out != UINTPTR_MAX && !diff)
			put_range(DYL_RE_ACC, &f, g->min_out, g->end_out, DYL_REF_W);
		if (diff && (b = mine) && b->ngroups < FGROUPS)
			b->groups[b->ngroups++] = f;
	}
	marked = t->frames[0];
	in_flow--;
}

/* std.diff's hook: [A, B) of one of the current call's regions changed, before the
 * call (the program wrote it: HOST; in an output buffer, the call reads it too) or
 * during it (the call wrote it) */
static void changed(uintptr_t a, uintptr_t b, int after)
{
	struct fbuf *f = mine;
	struct dyl_thread *t = dyl_self;

	if (!flow.on || in_flow || !f || !t || t->depth != 1)
		return;
	in_flow++;
	for (unsigned i = 0; i < f->ngroups; i++) {
		const struct fgroup *g = &f->groups[i];
		if (a < g->r.start || a >= g->r.end)
			continue;
		if (b > g->r.end)
			b = g->r.end;
		if (after) {
			put_range(DYL_RE_ACC, g, a, b, DYL_REF_W | DYL_REF_DIFF);
		} else {
			put_range(DYL_RE_HOST, g, a, b, 0);
			uintptr_t lo = a > g->min_out ? a : g->min_out, hi = b < g->end_out ? b : g->end_out;
			if (g->min_out != UINTPTR_MAX && lo < hi)
				put_range(DYL_RE_ACC, g, lo, hi, DYL_REF_DIFF);
		}
		break;
	}
	in_flow--;
}

void dyl_flow_call(const struct dyl_call *c)
{
	if (c->depth != 0)
		return;
	if (marked == (uintptr_t)c) {	/* the charge put its CALL */
		marked = 0;
		return;
	}
	if (!recording())
		return;
	in_flow++;
	put_call();
	in_flow--;
}

static void added(uintptr_t start, uint64_t n, uint64_t id, unsigned kind)
{
	if (!recording())
		return;
	in_flow++;
	unsigned flags = kind & DYL_REGION_REALLOC ? DYL_REF_REALLOC : 0;
	kind &= 0xff;
	uint64_t site = kind == DYL_REGION_HEAP || kind == DYL_REGION_MMAP ? dyl_flow_site() : UINT64_MAX;
	uint64_t ev[6] = { DYL_RE_WORD(DYL_RE_ALLOC, 6, flags, obj_kind(kind)), dyl_now(), id, start, n, site };
	dyl_flow_put(ev, 6);
	in_flow--;
}

static void removed(uintptr_t start, uint64_t id)
{
	if (!recording())
		return;
	in_flow++;
	uint64_t ev[3] = { DYL_RE_WORD(DYL_RE_FREE, 3, 0, 0), dyl_now(), id };
	dyl_flow_put(ev, 3);
	in_flow--;
}

/* dyl_hooks.flow_flush: every buffer into the spool (dyl_rt.io held) */
static void flush_all(void)
{
	for (struct fbuf *b = __atomic_load_n(&flow.bufs, __ATOMIC_ACQUIRE); b; b = b->next) {
		dyl_spin_lock(&b->lock);
		write_out(b);
		dyl_spin_unlock(&b->lock);
	}
}

uint64_t dyl_flow_lost(void)
{
	return __atomic_load_n(&flow.lost, __ATOMIC_RELAXED);
}

/* a forked child writes its own trace: the parent's events are not its own */
static void child_after_fork(void)
{
	for (struct fbuf *b = flow.bufs; b; b = b->next) {
		b->lock = 0;
		b->len = b->out = 0;
		b->calls_out = 0;
		b->dead = b != mine;
	}
	if (mine)
		mine->tid = (pid_t)syscall(SYS_gettid);
	marked = 0;
}

void dyl_flow_setup(void)
{
	if (__atomic_exchange_n(&flow.on, 1, __ATOMIC_ACQ_REL))
		return;	/* (another wrapper's constructor did) */
	pthread_key_create(&flow.key, thread_gone);
	pthread_atfork(NULL, NULL, child_after_fork);
	dyl_flow_sites_setup();
	dyl_note("flow", "on");
	__atomic_store_n(&dyl_hooks.flow_flush, flush_all, __ATOMIC_RELAXED);
	__atomic_store_n(&dyl_hooks.flow_converted, dyl_flow_write, __ATOMIC_RELAXED);
	__atomic_store_n(&dyl_reg.hooks.charged, charged, __ATOMIC_RELAXED);
	__atomic_store_n(&dyl_reg.hooks.changed, changed, __ATOMIC_RELAXED);
	__atomic_store_n(&dyl_reg.hooks.removed, removed, __ATOMIC_RELAXED);
	__atomic_store_n(&dyl_reg.hooks.added, added, __ATOMIC_RELAXED);
}
