/* flow.c - std.flow's events: each thread appends raw events (dyl_flow.h: CALL, ACC,
 * ALLOC, FREE, SITE, HOST) to a window of its own: a FLOW chunk of the spool mapped
 * shared, as the records' windows are (doc/specs/spool.md), so that an event is in the
 * file once stored and a killed run keeps every one.  A full window is copied out as a
 * FLOW chunk naming the window and its generation, then emptied (a window written over
 * again and again stays mapped and dirty: a fresh one each time cost a page fault per
 * 4 KiB, 3 us each here); a reader takes a window's live events after its copies,
 * unless a copy of that generation exists (the process was killed between the copy and
 * the emptying).
 *
 * Where events come from: the region table's hooks (regions.h): every heap block or
 * mapping added (ALLOC, with its site: sites.c) and removed (FREE); every charge of an
 * outermost call (one ACC per region and direction: the extents std.regions computed,
 * no second lookup; the first marks a new call); std.diff's looks (changed()); and
 * dyl_flow_call, from each wrapped call's prefix, for the outermost calls no charge
 * marked (no pointer argument).  The converter joins a thread's Nth call with its Nth
 * depth-0 row.
 *
 * The owner appends without a lock: it stores the words, then the count (release).  A
 * buffer's spin lock keeps its owner's copy-out and the one at exit apart.  Before the
 * spool exists (events before the first recorded call: the program's set-up), events go
 * to a private buffer that doubles (up to BUF_MAX; past it events are dropped, and
 * TRACE.flow says some are missing), copied out when the spool comes.  Nothing is
 * recorded while the runtime itself runs (dyl_busy): its own allocations are no data of
 * the program's, and a copy-out takes dyl_rt.io, which it may hold.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "flow.h"
#include "hostread.h"
#include "../regions/regions.h"
#include "../regions/unwind.h"

#define WIN_SIZE (256u << 10)	/* a window: its chunk, header included */
#define WIN_HEAD (sizeof(struct dyl_chunk) + sizeof(struct dyl_flow_chunk))
#define BUF_FIRST (64u << 10)	/* bytes of a private buffer, at first */
#define BUF_MAX (1u << 30)

/* a region of the current outermost call (std.diff's changes are told by address) */
struct fgroup {
	struct dyl_region r;
	uintptr_t min_out, end_out;	/* its output buffer (min_out UINTPTR_MAX: none) */
	uintptr_t ip, cfa;	/* a stack region's frame */
};
/* every region the call's table holds (dyl_groups_collect takes at most 3/4 of
 * DYL_GROUPS: the regions past those are counted in flow.capped) */
#define FGROUPS DYL_GROUPS
#define PREV_MAX 64	/* words of a call's events compared with the next call's */

struct fbuf {
	struct fbuf *next;	/* in flow.bufs, never removed (reused once dead) */
	int lock;
	int dead;		/* its thread ended: the next new thread takes it */
	pid_t tid;
	char *win;		/* the window (its chunk), or NULL */
	int nowin;		/* the spool gave no window (tried again only when full) */
	uint32_t win_id;
	uint64_t *data;		/* where events go: the window's, or priv */
	size_t cap;		/* words */
	size_t len;		/* words stored (release) */
	uint64_t *priv;		/* the private buffer (NULL until needed) */
	size_t priv_cap;
	/* the last two calls' events (words; 0: none, or too many): prev[pcur] the last
	 * one's, prev[pcur ^ 1] the one's before */
	unsigned nprev[2], pcur;
	uint64_t prev[2][PREV_MAX];
	unsigned ngroups;	/* the current call's regions (std.diff) */
	unsigned lastg;		/* the one std.diff's last piece was in (they come in order) */
	struct fgroup groups[FGROUPS];
};

/* std.flow's process-wide state */
static struct flow {
	int on;
	int lock;		/* the list */
	struct fbuf *bufs;
	pthread_key_t key;
	uint32_t windows;	/* ids given */
	uint64_t lost;		/* events dropped */
	uint64_t capped;	/* calls with more regions than the region table holds: the
				 * rest have no events (a '#' line in the trace says how many) */
} flow;

static TLS struct fbuf *mine;
static TLS int in_flow;		/* re-entered (a signal handler, or malloc from within) */
static TLS int diff_look;	/* in std.diff's look (it holds dyl_busy, not dyl_rt.io) */
static TLS uintptr_t marked;	/* the call (its dyl_call) whose CALL a charge put */
static TLS uint64_t *hr_data;	/* where the thread's last HOSTRD ended (it may grow) */
static TLS size_t hr_end;

static uint64_t *map_words(size_t words)
{
	void *p = mmap(NULL, words * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static inline struct dyl_flow_chunk *win_head(const struct fbuf *b)
{
	return (struct dyl_flow_chunk *)(b->win + sizeof(struct dyl_chunk));
}

/* buffer lock and dyl_rt.io held: the events into the spool as one chunk, and the
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
	if (b->win) {	/* (a reader finding the copy of this generation skips the window) */
		__atomic_store_n(&win_head(b)->words, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&win_head(b)->gen, h.gen + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&b->len, 0, __ATOMIC_RELEASE);
	return 0;
}

/* the owner's buffer is full: copied out (the private one: then a window), else the
 * private buffer doubles */
static int make_room(struct fbuf *b, unsigned words)
{
	if ((!dyl_busy || diff_look) && dyl_rt.spool_fd >= 0) {
		dyl_io_lock();
		dyl_spin_lock(&b->lock);
		if (copy_out(b) == 0 && !b->win) {
			char *w = dyl_spool_map(DYL_CH_FLOW, WIN_SIZE);
			if (w) {
				b->win = w;
				b->win_id = flow.windows++;
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

	in_flow++;
	if (dyl_rt.spool_fd >= 0) {
		dyl_io_lock();
		dyl_spin_lock(&b->lock);
		copy_out(b);
		dyl_spin_unlock(&b->lock);
		dyl_io_unlock();
	}
	/* (what could not be written stays: the flush at exit tries again) */
	if (!__atomic_load_n(&b->len, __ATOMIC_RELAXED))
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
		if (!(b = (struct fbuf *)map_words(sizeof(*b) / 8 + 1)))
			return NULL;
		dyl_spin_lock(&flow.lock);
		b->next = flow.bufs;
		__atomic_store_n(&flow.bufs, b, __ATOMIC_RELEASE);
		dyl_spin_unlock(&flow.lock);
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
	pthread_setspecific(flow.key, b);
	return mine = b;
}

/* room for WORDS words at the end of the calling thread's buffer (NULL: none, the
 * events dropped); commit(N) then stores that N of them were written */
static inline uint64_t *reserve(unsigned words)
{
	struct fbuf *b = mine;

	if (dyl_unlikely(!b) && !(b = own_buffer()))
		goto lost;
	/* (full; or private while the spool exists now: into it, and a window) */
	if (dyl_unlikely(b->len + words > b->cap || (!b->win && !b->nowin && dyl_rt.spool_fd >= 0 && !dyl_busy)) &&
	    make_room(b, words) != 0)
		goto lost;
	return b->data + b->len;
lost:
	__atomic_fetch_add(&flow.lost, 1, __ATOMIC_RELAXED);
	return NULL;
}

static inline void commit(unsigned words)
{
	struct fbuf *b = mine;
	size_t len = b->len + words;
	__atomic_store_n(&b->len, len, __ATOMIC_RELEASE);
	if (b->win)	/* what a reader of the file sees */
		__atomic_store_n(&win_head(b)->words, (uint32_t)len, __ATOMIC_RELEASE);
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

/* 1: record now (std.flow on, not re-entered, not the runtime's own work) */
static inline int recording(void)
{
	return flow.on && !in_flow && !dyl_busy;
}

static void put_call(void)
{
	uint64_t ev[1] = { DYL_RE_WORD(DYL_RE_CALL, 1, 0, 0) };
	dyl_flow_put(ev, 1);
}

unsigned dyl_flow_obj_kind(uint32_t region_kind)
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
void dyl_flow_frame_of(const struct dyl_groups *c, const struct dyl_region *r, uintptr_t *ip, uintptr_t *cfa)
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

/* an event on [LO, HI) of G's region, ACC (TYPE DYL_RE_ACC) or HOST, at P (room for
 * ACC_MAX words): its words (dyl_flow.h: heap blocks and mappings by id,
 * statics by extent, stack objects by extent and frame) */
#define ACC_MAX 7
static inline unsigned put_range(uint64_t *p, uint32_t type, const struct fgroup *g, uintptr_t lo,
				 uintptr_t hi, unsigned flags)
{
	unsigned kind = dyl_flow_obj_kind(g->r.kind);

	if (kind == DYL_OBJ_HEAP || kind == DYL_OBJ_MAPPING) {
		uint64_t l = lo - g->r.start, h = hi - g->r.start;
		/* half the bytes (the spool's cost); ACC and HOST only: the converter unpacks
		 * those (runtime/format/flow.c unpack), other types keep the long form */
		if ((type == DYL_RE_ACC || type == DYL_RE_HOST) && !((g->r.id | l | h) >> 32)) {
			p[0] = DYL_RE_WORD(type, 2, flags | DYL_REF_PACKED | kind << 8, g->r.id);
			p[1] = l | h << 32;
			return 2;
		}
		p[0] = DYL_RE_WORD(type, 4, flags, kind);
		p[1] = g->r.id;
		p[2] = lo - g->r.start;
		p[3] = hi - g->r.start;
		return 4;
	}
	unsigned words = kind == DYL_OBJ_STACK ? 7 : 5;
	p[0] = DYL_RE_WORD(type, words, flags, kind);
	p[1] = g->r.start;
	p[2] = g->r.end;
	p[3] = lo - g->r.start;
	p[4] = hi - g->r.start;
	p[5] = g->ip;
	p[6] = g->cfa;
	return words;
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
	if (dyl_hostread_active())	/* host_reads=on: its arguments lifted, its outputs kept */
		dyl_hostread_charged(c);
	int diff = __atomic_load_n(&dyl_reg.diff_on, __ATOMIC_RELAXED);
	uint64_t *p = reserve(1 + 2 * ACC_MAX * c->ngroups);
	unsigned n = 0, first = DYL_REF_NEWCALL;
	if (!p)
		goto out;
	if ((b = mine))
		b->ngroups = b->lastg = 0;
	if (c->in || c->out)	/* (regions past the table's: bytes without a region) */
		__atomic_fetch_add(&flow.capped, 1, __ATOMIC_RELAXED);
	unsigned ngroups = dyl_flow_defs_take() ? 0 : c->ngroups;	/* defs.c */
	for (unsigned i = 0; i < ngroups; i++) {
		const struct dyl_group *g = &c->g[c->used[i]];
		struct fgroup f = { g->r, g->min_out, g->end_out, 0, 0 };
		if (f.r.kind == DYL_REGION_STACK)
			dyl_flow_frame_of(c, &g->r, &f.ip, &f.cfa);
		if (g->min_in != UINTPTR_MAX) {
			n += put_range(p + n, DYL_RE_ACC, &f, g->min_in, g->end_in, first);
			first = 0;
		}
		if (g->min_out != UINTPTR_MAX && !diff) {
			n += put_range(p + n, DYL_RE_ACC, &f, g->min_out, g->end_out, DYL_REF_W | first);
			first = 0;
		}
		if (diff && b && b->ngroups < FGROUPS)
			b->groups[b->ngroups++] = f;
	}
	if (first)	/* no access: the call alone */
		p[n++] = DYL_RE_WORD(DYL_RE_CALL, 1, 0, 0);
	/* a loop's calls often pass the same buffers, or two sets in turn: the same events
	 * as the thread's last call, or the one before, are one word */
	b = mine;
	unsigned o = b->pcur ^ 1;
	if (first) {
		b->nprev[0] = b->nprev[1] = 0;
	} else if (b->nprev[b->pcur] == n && !memcmp(b->prev[b->pcur], p, n * 8)) {
		p[0] = DYL_RE_WORD(DYL_RE_CALL, 1, DYL_REF_REPEAT, 0);
		n = 1;
	} else if (b->nprev[o] == n && !memcmp(b->prev[o], p, n * 8)) {
		p[0] = DYL_RE_WORD(DYL_RE_CALL, 1, DYL_REF_REPEAT | DYL_REF_BEFORE, 0);
		n = 1;
		b->pcur = o;
	} else {
		b->pcur = o;
		b->nprev[o] = n <= PREV_MAX ? n : 0;
		if (n <= PREV_MAX)
			memcpy(b->prev[o], p, n * 8);
	}
	commit(n);
	if (dyl_flow_follow_cap)	/* follow=: the heap blocks its buffers' pointers reach (follow.c) */
		dyl_flow_follow(c);
	marked = t->frames[0];
	((struct dyl_call *)t->frames[0])->flags |= DYL_CALL_FLOW_MARKED;
out:
	in_flow--;
}

/* A program's write std.diff found in a heap block none of the call's groups holds: a
 * --defs look at buffers its arguments do not reach (examples/jpeg-resid.defs looks at
 * libjpeg's rows before jpeg_write_scanlines, which take them through JSAMPARRAY).  It
 * is the program's write all the same: a HOST event, before the call's own events.
 * (dyl_table_find under std.diff's lock, as diff.c's alive() does.) */
static void changed_elsewhere(uintptr_t a, uintptr_t b, unsigned flags)
{
	struct fgroup g = { .min_out = UINTPTR_MAX };

	if (dyl_table_find(a, &g.r) <= 0 || g.r.kind != DYL_REGION_HEAP)
		return;
	if (b > g.r.end)
		b = g.r.end;
	uint64_t *p = reserve(ACC_MAX);
	if (p)
		commit(put_range(p, DYL_RE_HOST, &g, a, b, flags));
}

/* 1: the thread's outermost call has not put its mark yet: a look now is a --defs
 * prefix's, and the groups are the last call's */
static int before_mark(const struct dyl_thread *t)
{
	const struct dyl_call *c = (const struct dyl_call *)t->frames[0];
	return c && !(c->flags & DYL_CALL_FLOW_MARKED);
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
	diff_look = 1;	/* (std.diff's look holds dyl_busy: a window may be had here) */
	int hit = 0, ahead = !after && before_mark(t);
	for (unsigned k = 0; !ahead && k < f->ngroups; k++) {
		unsigned i = (f->lastg + k) % f->ngroups;
		const struct fgroup *g = &f->groups[i];
		if (a < g->r.start || a >= g->r.end)
			continue;
		f->lastg = i;
		hit = 1;
		if (b > g->r.end)
			b = g->r.end;
		uint64_t *p = reserve(2 * ACC_MAX);
		unsigned n = 0;
		if (!p)
			break;
		if (after) {
			n += put_range(p, DYL_RE_ACC, g, a, b, DYL_REF_W | DYL_REF_DIFF);
		} else {
			n += put_range(p, DYL_RE_HOST, g, a, b, 0);
			uintptr_t lo = a > g->min_out ? a : g->min_out, hi = b < g->end_out ? b : g->end_out;
			if (g->min_out != UINTPTR_MAX && lo < hi)
				n += put_range(p + n, DYL_RE_ACC, g, lo, hi, DYL_REF_DIFF);
		}
		commit(n);
		break;
	}
	if (!after && !hit)	/* (a prefix's: the next call's, DYL_REF_AHEAD) */
		changed_elsewhere(a, b, ahead ? DYL_REF_AHEAD : 0);
	diff_look = 0;
	in_flow--;
}

/* hostread.c: the program read [LO, HI) of region R (HOW: DYL_HR_*) at the trace
 * clock's T: the converter places it before the first outermost call of any thread that
 * starts after T (a thread that never calls again has its reads where they happened).
 * A read of the pages right after the thread's last event, when that was a read of
 * the same block, widens it (a loop reading an array faults page after page: one
 * event, not one per page, at its first page's time). */
void dyl_flow_host_read(const struct dyl_region *r, uintptr_t ip, uintptr_t cfa, uintptr_t lo,
			uintptr_t hi, unsigned how, uint64_t t)
{
	struct fbuf *b = mine;

	if (!flow.on || in_flow || lo >= hi)
		return;
	in_flow++;
	struct fgroup g = { *r, UINTPTR_MAX, 0, ip, cfa };
	uint64_t w[ACC_MAX + 1];
	unsigned n = put_range(w, DYL_RE_HOSTRD, &g, lo, hi, how);
	w[0] = DYL_RE_WORD(DYL_RE_HOSTRD, n + 1, how, DYL_RE_SMALL(w[0]));	/* (the time after) */
	w[n++] = t;
	size_t len = b ? __atomic_load_n(&b->len, __ATOMIC_RELAXED) : 0;
	/* (heap: type, id, lo, hi, time) */
	if (n == 5 && b && b->data == hr_data && len == hr_end && len >= 5 && b->data[len - 5] == w[0] &&
	    b->data[len - 4] == w[1] && b->data[len - 2] == w[2]) {
		__atomic_store_n(&b->data[len - 2], w[3], __ATOMIC_RELEASE);
	} else if (dyl_flow_put(w, n) == 0 && (b = mine)) {
		hr_data = b->data;
		hr_end = __atomic_load_n(&b->len, __ATOMIC_RELAXED);
	}
	in_flow--;
}

void dyl_flow_call(const struct dyl_call *c)
{
	if (c->depth != 0)
		return;
	dyl_flow_defs_take();	/* defs.c: a call without a charge */
	((struct dyl_call *)c)->flags |= DYL_CALL_FLOW_MARKED;	/* (the wrapper's own local) */
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
	if (kind == DYL_REGION_MMAP)
		dyl_flow_map_added(start, n, id);	/* maps.c: a file's path */
	uint64_t site = kind == DYL_REGION_HEAP || kind == DYL_REGION_MMAP ? dyl_flow_site() : UINT64_MAX;
	uint64_t *p = reserve(4);
	if (p) {
		p[0] = DYL_RE_WORD(DYL_RE_ALLOC, 4, flags | dyl_flow_obj_kind(kind) << 8,
				   site < UINT32_MAX ? site : UINT32_MAX);
		p[1] = id;
		p[2] = start;
		p[3] = n;
		commit(4);
	}
	in_flow--;
}

static void removed(uintptr_t start, uint64_t id)
{
	if (dyl_hostread_active())	/* (the allocator writes in the block: unprotected first) */
		dyl_hostread_freed(start, id);
	if (!recording())
		return;
	in_flow++;
	uint64_t *p = reserve(2);
	if (p) {
		p[0] = DYL_RE_WORD(DYL_RE_FREE, 2, 0, 0);
		p[1] = id;
		commit(2);
	}
	in_flow--;
}

/* dyl_hooks.flow_flush: every buffer's events into the spool (dyl_rt.io held; a
 * window's are there already, but its copy says they were read) */
static void flush_all(void)
{
	if (dyl_hostread_active())	/* (an exec's arguments may be on protected pages) */
		dyl_hostread_lift_all();
	for (struct fbuf *b = __atomic_load_n(&flow.bufs, __ATOMIC_ACQUIRE); b; b = b->next) {
		dyl_spin_lock(&b->lock);
		copy_out(b);
		dyl_spin_unlock(&b->lock);
	}
}

/* The trace's lines of std.flow's caps, after its rows (dyl_rt.io held, the trace open:
 * dyl_flow_write, from the conversion at exit). */
void dyl_flow_notes(void)
{
	char line[160];
	uint64_t n = __atomic_load_n(&flow.capped, __ATOMIC_RELAXED);

	if (!n)
		return;
	int len = snprintf(line, sizeof(line), DYL_KEY_LINE(DYL_KEY_FLOW_CAPPED_CALLS)
			   "%llu (calls with more than "
			   "%u regions: the rest have no flow events)\n", (unsigned long long)n,
			   DYL_GROUPS * 3 / 4);
	dyl_trace_put(line, (size_t)len);
}

uint64_t dyl_flow_lost(void)
{
	return __atomic_load_n(&flow.lost, __ATOMIC_RELAXED);
}

/* a forked child writes its own trace: the parent's events are not its own, and its
 * windows are the parent's spool */
static void child_after_fork(void)
{
	for (struct fbuf *b = flow.bufs; b; b = b->next) {
		b->lock = 0;
		if (b->win)
			munmap(b->win, WIN_SIZE);
		b->win = NULL;
		b->data = b->priv;
		b->cap = b->priv ? b->priv_cap : 0;
		b->len = 0;
		b->nprev[0] = b->nprev[1] = 0;
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
	dyl_unwind_on();	/* sites: the call's return addresses */
	pthread_atfork(NULL, NULL, child_after_fork);
	dyl_flow_sites_setup();
	dyl_note(DYL_KEY_FLOW, "on");
	__atomic_store_n(&dyl_hooks.flow_flush, flush_all, __ATOMIC_RELAXED);
	__atomic_store_n(&dyl_hooks.flow_converted, dyl_flow_write, __ATOMIC_RELAXED);
	__atomic_store_n(&dyl_reg.hooks.charged, charged, __ATOMIC_RELAXED);
	__atomic_store_n(&dyl_reg.hooks.changed, changed, __ATOMIC_RELAXED);
	__atomic_store_n(&dyl_reg.hooks.removed, removed, __ATOMIC_RELAXED);
	__atomic_store_n(&dyl_reg.hooks.added, added, __ATOMIC_RELAXED);
}
