/* diff.c - the full method (paper, section IV.C.2): bytes in and out of a call are the
 * bytes of its buffers that changed, judged against a copy (snapshot) of each region.
 *
 * Before the call, the buffers' bytes that changed since the last look are its input
 * (the program put them there for it); after the call, the bytes its non-const buffers
 * changed during it are its output.  A buffer is what the fast method charges: from the
 * lowest pointer into a region to the region's end (a heap block, a mapping, a static
 * object or segment, a stack frame), or to the end of the pointers' bounds (their
 * length arguments): the rest of the region is neither compared nor taken into the
 * snapshot, so the next piece of a buffer a program hands out piece by piece is judged
 * against what was there before and counts its own bytes.  Changes are judged in
 * aligned blocks of BLOCK bytes clipped to the buffer: a refilled array of doubles
 * counts whole even where a byte (an exponent) happens to repeat.
 *
 * A region (or a part of one) seen for the first time counts the blocks that are neither
 * zero (memory fresh from the kernel is zero) nor what std.diff last saw at those
 * addresses (malloc reuses memory: what a freed block left there is no input of a later
 * one): so the data the program wrote counts, and an output buffer it never touched is
 * not charged as input.
 * What was last seen is kept by address when a heap block with a snapshot is freed (the
 * graveyard: the newest GRAVES such snapshots, GRAVE_BYTES at most); free pays for it
 * only for those blocks (regions.c: DYL_SLOT_KEPT, hooks.died).  Where pages are watched, also only
 * the pages written since an earlier look or a free protected them count (blocks of
 * 128 KiB and more are protected when freed, one ioctl each).  Memory another block
 * used that std.diff never saw (malloc's own headers and free lists, blocks no call
 * was given) still counts as input, but in blocks under BIRTH_MIN: a bigger block is
 * copied when malloc makes it (born(), the table's hooks.born; not a fresh mapping, which is zero), and
 * the copy is its snapshot: only what the program writes after counts.  The stack: see
 * dead_stack() (what a call's frames leave below its caller is taken as seen).
 *
 * Cost.  Heap pages are watched (watch.c): only the pages written since the last look
 * are compared, plus the partial pages at a buffer's two ends (a page shared with
 * another block is never protected, so that a look at one block never hides a write
 * to another).  The output buffers are unprotected during the call, so that the call
 * itself takes no page fault of ours (its time stays right), and compared whole after
 * it.  Statics, stacks and mappings are compared whole (mappings read through
 * process_vm_readv: an unreadable page is an error, not a crash).  Comparison runs in
 * 4 KiB chunks (memcmp; equal chunks cost one read of each side) and 64-byte lines
 * (SSE2, a bit per byte).
 *
 * Memory: one snapshot byte per byte of each region looked at (heap blocks whole, a
 * thread's stack as far as it was looked at); once its heap block is freed, it goes to
 * the graveyard, which keeps at most GRAVES of them and GRAVE_BYTES (the oldest go).
 * Calls made inside another wrapped call (depth >= 1) are not estimated: their buffers
 * are the outer call's, and one snapshot cannot serve two nested "befores".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif
#include "diff.h"
#include "../regions/unwind.h"

#define PAGE 4096ul
#define CHUNK 4096ul
#define KEY_STATIC (1ull << 63)
#define KEY_STACK (1ull << 62)
#define SMALL_MAX 2048		/* snapshots up to this size come from slabs */
#define PENDING_MAX 4096	/* output buffers of calls in flight, per thread */
#define GRAVES 256		/* snapshots of freed heap blocks kept, the newest ones */
#define GRAVE_BYTES (64ul << 20)	/* and the snapshot bytes they may hold */
#define SPARES 16		/* freed snapshot mappings kept */
#define SPARE_BYTES (16ul << 20)	/* and their bytes at most */
#define DEAD_DEPTH (16ul << 10)	/* dead stack taken as seen after a call */
#define BIRTH_MIN 4096			/* new blocks copied: from this size */
#define BIRTH_MAX (64ul << 20)		/* up to this size */
#define UNSEEN_MAX (256ul << 20)	/* copies of blocks no call looked at yet, at most */

struct snap {
	uint64_t key;		/* region id, or a tagged start for statics and stacks; 0: free */
	uintptr_t start, end;	/* the region (a stack: the thread's whole stack) */
	unsigned char *mem;	/* the byte at address a is mem[a - start + (start & 63)] */
	size_t cap;
	/* watched heap only.  hot: the program rewrote most of its pages between two
	 * looks, so it is compared whole and left unprotected between calls (a page fault
	 * per page would cost more than the comparison it saves), and scanned again every
	 * HOT_PROBE-th look.  out_hot: the last call that wrote it changed most of it, so it
	 * is unprotected during calls (no fault in the timed call) and compared whole
	 * after them; a cold output stays protected and only its written pages are compared */
	uint32_t hot, looks, out_hot;
	uint32_t born;		/* a copy of a new heap block no call has looked at yet */
	/* the part of the region looked at so far (seen_lo == seen_hi: none).  A call with
	 * a bounded buffer looks at a piece of the region; a later piece is new to std.diff
	 * as a new region is (a first look, see look_range) */
	uintptr_t seen_lo, seen_hi;
};
#define HOT_PROBE 16
/* below this many whole pages a buffer is compared whole: the three ioctls of a watched
 * look and call (about 6 us) cost more than comparing 128 KiB */
#define WATCH_MIN_PAGES 32

/* an output buffer of a call in flight; key 0: the call's first entry, whose 'lo'
 * holds the output charged without a snapshot (regions past DYL_GROUPS) */
struct pending {
	uint64_t key;
	uintptr_t start, end;	/* the snapshot's region */
	uintptr_t lo, hi;	/* the buffer */
	uint32_t kind;
};

/* what was last seen in a freed heap block: a snapshot out of the table */
struct grave {
	uintptr_t start, end;
	unsigned char *mem;	/* as struct snap's; NULL: dropped */
	size_t cap;
};

struct diff {
	int lock;		/* the table and the snapshots; the call's comparisons run under it */
	struct snap *tab;
	uint64_t mask, used;
	uint64_t bytes, next_sweep;	/* snapshot bytes held; sweep dead ones past this */
	uint64_t unseen;		/* of which copies of new blocks not looked at yet */
	uint64_t births_skipped;	/* the lock was busy */
	/* the graveyard: a ring of GRAVES, oldest first; freed blocks' snapshots may
	 * overlap (a block made and freed where a bigger one was): the newer one wins */
	struct grave *graves;
	uint32_t gfirst, ngraves;
	uint64_t grave_bytes;
	void *free_small[6];	/* slab free lists: 64, 128, ..., 2048 bytes */
	struct spare {
		unsigned char *mem;
		size_t cap;
	} spares[SPARES];	/* freed snapshot mappings kept for reuse */
	unsigned nspares;
	uint64_t spare_bytes;
	unsigned char *slab, *slab_end;
	int noted;
	struct dyl_diff_stats st;
};
static struct diff d;

static TLS struct pending *pend;
static TLS int stack_looked;	/* a call of this thread's had a buffer on its stack */
static TLS uint32_t npend;
/* this thread holds d.lock: a free from its signal handler must not wait for it */
static TLS int holding;

static void lock(void)
{
	holding = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	dyl_spin_lock(&d.lock);
}

/* 0: taken; -1: another thread holds it (not waited for) */
static int trylock(void)
{
	holding = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_exchange_n(&d.lock, 1, __ATOMIC_ACQUIRE))
		return 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	holding = 0;
	return -1;
}

static void unlock(void)
{
	dyl_spin_unlock(&d.lock);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	holding = 0;
}

/* --- snapshot memory ------------------------------------------------------------- */

static unsigned small_class(size_t n)
{
	unsigned c = 0;
	while ((64u << c) < n)
		c++;
	return c;
}

/* N bytes of snapshot memory, zero unless !ZERO (a birth's copy overwrites it all) */
static unsigned char *snap_alloc(size_t n, size_t *cap, int zero)
{
	if (n <= SMALL_MAX) {
		unsigned c = small_class(n);
		size_t sz = 64u << c;
		void *p = d.free_small[c];
		if (p) {
			d.free_small[c] = *(void **)p;
			if (zero)
				memset(p, 0, sz);
		} else {
			if (d.slab + sz > d.slab_end) {
				d.slab = dyl_raw_map(1 << 20);
				if (!d.slab)
					return NULL;
				d.slab_end = d.slab + (1 << 20);
			}
			p = d.slab;	/* fresh from the kernel: zero */
			d.slab += sz;
		}
		*cap = sz;
		return p;
	}
	*cap = (n + PAGE - 1) & ~(PAGE - 1);
	/* a spare mapping of that size (blocks made and freed over and over: two system
	 * calls a birth otherwise) */
	for (unsigned i = 0; i < d.nspares; i++)
		if (d.spares[i].cap == *cap) {
			unsigned char *p = d.spares[i].mem;
			d.spare_bytes -= *cap;
			d.spares[i] = d.spares[--d.nspares];
			if (zero)
				memset(p, 0, *cap);
			return p;
		}
	return dyl_raw_map(*cap);
}

static void snap_free(unsigned char *p, size_t cap)
{
	if (cap <= SMALL_MAX) {
		unsigned c = small_class(cap);
		*(void **)p = d.free_small[c];
		d.free_small[c] = p;
	} else if (d.nspares < SPARES && d.spare_bytes + cap <= SPARE_BYTES) {
		d.spares[d.nspares++] = (struct spare){ p, cap };
		d.spare_bytes += cap;
	} else {
		dyl_raw_unmap(p, cap);
	}
}

/* [A, B) joins the part of S looked at (the span of both) */
static void seen_add(struct snap *s, uintptr_t a, uintptr_t b)
{
	if (s->seen_lo >= s->seen_hi) {
		s->seen_lo = a;
		s->seen_hi = b;
		return;
	}
	if (a < s->seen_lo)
		s->seen_lo = a;
	if (b > s->seen_hi)
		s->seen_hi = b;
}

/* where snapshot S keeps the byte at A */
static inline unsigned char *mirror(const struct snap *s, uintptr_t a)
{
	return s->mem + (s->start & 63) + (a - s->start);
}

/* --- the table of snapshots (d.lock held) --------------------------------------- */

/* S's memory goes back (S is out of the table, or is made anew) */
static void snap_drop(const struct snap *s)
{
	snap_free(s->mem, s->cap);
	d.bytes -= s->cap;
	if (s->born)
		d.unseen -= s->cap;
}

static inline uint64_t slot_of(uint64_t key, uint64_t mask)
{
	return (key * 0x9E3779B97F4A7C15ull >> 20) & mask;
}

static int alive(const struct snap *s)
{
	struct dyl_region r;

	if (s->key & (KEY_STATIC | KEY_STACK))
		return 1;
	return dyl_table_find(s->start, &r) > 0 && r.id == s->key && r.start == s->start;
}

/* a new table of CAP slots with the live snapshots of the old one (dead ones: their
 * heap block or mapping is gone) */
static int rebuild(uint64_t cap)
{
	struct snap *old = d.tab, *t = dyl_raw_map(cap * sizeof(*t));
	uint64_t omask = d.mask;

	if (!t)
		return -1;
	d.tab = t;
	d.mask = cap - 1;
	d.used = 0;
	if (old) {
		for (uint64_t i = 0; i <= omask; i++) {
			struct snap *s = &old[i];
			if (!s->key)
				continue;
			if (!alive(s)) {
				snap_drop(s);
				continue;
			}
			uint64_t j = slot_of(s->key, d.mask);
			while (t[j].key)
				j = (j + 1) & d.mask;
			t[j] = *s;
			d.used++;
		}
		dyl_raw_unmap(old, (omask + 1) * sizeof(*old));
	}
	d.next_sweep = 2 * d.bytes + (64u << 20);
	d.st.sweeps++;
	return 0;
}

/* backward-shift deletion: every other entry stays reachable from its home slot */
static void erase(struct snap *s)
{
	uint64_t i = (uint64_t)(s - d.tab), j = i;

	for (;;) {
		j = (j + 1) & d.mask;
		if (!d.tab[j].key)
			break;
		uint64_t h = slot_of(d.tab[j].key, d.mask);
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;	/* its home lies in (i, j]: it stays */
		d.tab[i] = d.tab[j];
		i = j;
	}
	d.tab[i].key = 0;
	d.used--;
}

static struct snap *lookup(uint64_t key)
{
	if (!d.tab)
		return NULL;
	for (uint64_t i = slot_of(key, d.mask);; i = (i + 1) & d.mask) {
		if (d.tab[i].key == key)
			return &d.tab[i];
		if (!d.tab[i].key)
			return NULL;
	}
}

/* the snapshot of the region [START, END) known by KEY; *FRESH: made now (all zero) */
static struct snap *snap_get(uint64_t key, uintptr_t start, uintptr_t end, int zero, int *fresh)
{
	struct snap *s = lookup(key);

	*fresh = 0;
	if (s && s->start == start && s->end == end)
		return s;
	if (s) {	/* a static object or stack of another size at that place */
		snap_drop(s);
	} else {
		if (!d.tab || d.used + 1 > (d.mask + 1) / 2 || d.bytes > d.next_sweep) {
			uint64_t cap = d.tab ? d.mask + 1 : 1024;
			while (d.used + 1 > cap / 4)
				cap *= 2;
			if (rebuild(cap) != 0)
				return NULL;
		}
		uint64_t i = slot_of(key, d.mask);
		while (d.tab[i].key)
			i = (i + 1) & d.mask;
		s = &d.tab[i];
		d.used++;
	}
	size_t cap;
	unsigned char *mem = snap_alloc((start & 63) + (end - start) + 63, &cap, zero);
	if (!mem) {
		s->key = 0;	/* an empty slot in a probe chain breaks it: rebuild next time */
		d.used--;
		rebuild(d.mask + 1);
		return NULL;
	}
	*s = (struct snap){ key, start, end, mem, cap, 0, 0, 0, 0, 0, 0 };
	d.bytes += cap;
	if (d.bytes > d.st.snapshot_bytes_max)
		d.st.snapshot_bytes_max = d.bytes;
	*fresh = 1;
	return s;
}

/* --- the graveyard (d.lock held) ------------------------------------------------- */

static void grave_drop(struct grave *g)
{
	if (g->mem) {
		snap_free(g->mem, g->cap);
		d.grave_bytes -= g->cap;
		g->mem = NULL;
	}
}

/* S (out of the table) is a freed block's: kept as what was last seen there.  Older
 * graves it covers whole are dropped (so a block freed and made again at one place
 * many times is one grave); the oldest go first when the ring or the bytes are full. */
static void bury(const struct snap *s)
{
	d.bytes -= s->cap;
	if (s->cap > GRAVE_BYTES || (!d.graves && !(d.graves = dyl_raw_map(GRAVES * sizeof(*d.graves))))) {
		snap_free(s->mem, s->cap);
		return;
	}
	for (uint32_t n = 0; n < d.ngraves; n++) {
		struct grave *g = &d.graves[(d.gfirst + n) % GRAVES];
		if (g->start >= s->start && g->end <= s->end)
			grave_drop(g);
	}
	while (d.ngraves == GRAVES || d.grave_bytes + s->cap > GRAVE_BYTES) {
		grave_drop(&d.graves[d.gfirst]);
		d.gfirst = (d.gfirst + 1) % GRAVES;
		d.ngraves--;
	}
	d.graves[(d.gfirst + d.ngraves++) % GRAVES] = (struct grave){ s->start, s->end, s->mem, s->cap };
	d.grave_bytes += s->cap;
}

/* a new heap region's snapshot S (all zero) gets what was last seen at its addresses,
 * oldest first so that the newest wins */
static void seed(struct snap *s)
{
	for (uint32_t n = 0; n < d.ngraves; n++) {
		const struct grave *g = &d.graves[(d.gfirst + n) % GRAVES];
		uintptr_t a = g->start > s->start ? g->start : s->start, b = g->end < s->end ? g->end : s->end;
		if (g->mem && a < b)
			memcpy(s->mem + (s->start & 63) + (a - s->start), g->mem + (g->start & 63) + (a - g->start),
			       b - a);
	}
}

/* the table's hooks.died: a block with a snapshot was freed */
static void died(uintptr_t start, uint64_t id)
{
	if (holding)
		return;	/* a signal handler's free inside std.diff: the sweep frees it */
	int saved = errno;
	dyl_busy++;	/* a wrapped call from a signal handler meanwhile is not estimated
			 * (it would wait for the lock this thread holds) */
	lock();
	struct snap *s = lookup(id);
	if (s && s->start == start) {
		struct snap dead = *s;
		erase(s);
		if (dead.born)	/* no call saw it: what it held is nobody's data */
			snap_drop(&dead);
		else
			bury(&dead);
	}
	unlock();
	dyl_busy--;
	errno = saved;
}

/* Marks the heap block at START (id ID) as having a snapshot, so that its free calls
 * died(): installed first, so that no marked block is freed unheard. */
static void keep(uintptr_t start, uint64_t id)
{
	__atomic_store_n(&dyl_reg.hooks.died, died, __ATOMIC_RELAXED);
	dyl_table_mark_kept(start, id);
}

/* glibc serves big blocks from mappings of their own, fresh from the kernel (zero): its
 * chunk header's size word, just below the block, says so (bit 1).  Read only when it
 * lies in the block's page (mapped); another allocator's word there may say so by
 * chance, which only costs that block its copy. */
static int fresh_mapping(uintptr_t p)
{
	return (p & (PAGE - 1)) >= sizeof(size_t) && (((const size_t *)p)[-1] & 2);
}

/* the table's hooks.born: a new heap block whose content is indeterminate
 * (DYL_REGION_UNINIT): what it holds now is no input of a later call (a copy is kept) */
static void born(uintptr_t start, uint64_t n, uint64_t id)
{
	if (holding || dyl_busy || n < BIRTH_MIN || n > BIRTH_MAX || fresh_mapping(start))
		return;
	int saved = errno;
	dyl_busy++;	/* (before the lock: a signal handler's wrapped call must not wait for it) */
	/* not waiting for another thread's comparisons: that block goes without a copy */
	if (trylock() != 0) {
		__atomic_fetch_add(&d.births_skipped, 1, __ATOMIC_RELAXED);
		dyl_busy--;
		return;
	}
	if (d.unseen + n > UNSEEN_MAX) {
		__atomic_fetch_add(&d.births_skipped, 1, __ATOMIC_RELAXED);
	} else {
		int fresh;
		struct snap *s = snap_get(id, start, start + n, 0, &fresh);
		if (s && fresh) {
			memcpy(mirror(s, start), (const void *)start, n);
			seen_add(s, start, start + n);
			s->born = 1;
			d.unseen += s->cap;
			d.st.births++;
			d.st.birth_bytes += n;
			keep(start, id);	/* its free drops it */
		}
	}
	unlock();
	dyl_busy--;
	errno = saved;
}

/* --- comparison ------------------------------------------------------------------ */

/* bit i set: byte i of the 64-byte line differs */
static inline uint64_t line_diff(const unsigned char *a, const unsigned char *b)
{
#if defined(__x86_64__)
	uint64_t m = 0;
	for (int i = 0; i < 4; i++) {
		__m128i x = _mm_loadu_si128((const __m128i *)(a + 16 * i));
		__m128i y = _mm_loadu_si128((const __m128i *)(b + 16 * i));
		m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) << (16 * i);
	}
	return ~m;
#else
	uint64_t m = 0;
	for (int i = 0; i < 64; i++)
		m |= (uint64_t)(a[i] != b[i]) << i;
	return m;
#endif
}

/* bit i set: byte i of the 64-byte line is not zero */
static inline uint64_t line_nonzero(const unsigned char *a)
{
#if defined(__x86_64__)
	uint64_t m = 0;
	for (int i = 0; i < 4; i++) {
		__m128i x = _mm_loadu_si128((const __m128i *)(a + 16 * i));
		m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128())) << (16 * i);
	}
	return ~m;
#else
	uint64_t m = 0;
	for (int i = 0; i < 64; i++)
		m |= (uint64_t)(a[i] != 0) << i;
	return m;
#endif
}

struct cmp {
	unsigned block;
	uintptr_t last_block;	/* blocks over 64 bytes: the last one counted (+1) */
	uint64_t bytes;		/* changed, in whole blocks clipped to the buffer */
	int first;		/* a first look: a byte that is zero now is no change either */
	int f64;		/* a typed look (DYL_DIFF_TYPED): see odd_words */
	/* std.flow's hook (regions.h: hooks.changed): the changed pieces, joined */
	void (*sink)(uintptr_t a, uintptr_t b, int after);
	int after;
	uintptr_t run_a, run_b;	/* the piece not reported yet (run_a == run_b: none) */
};

/* [A, B) changed: joins the piece before it, or reports that one and starts anew */
static void piece(struct cmp *c, uintptr_t a, uintptr_t b)
{
	if (a == c->run_b && c->run_a != c->run_b) {
		c->run_b = b;
		return;
	}
	if (c->run_a != c->run_b)
		c->sink(c->run_a, c->run_b, c->after);
	c->run_a = a;
	c->run_b = b;
}

static void pieces_end(struct cmp *c)
{
	if (c->sink && c->run_a != c->run_b)
		c->sink(c->run_a, c->run_b, c->after);
	c->run_a = c->run_b = 0;
}

/* the runs of set bits of M, the bytes of the line at LA */
static void pieces_of(struct cmp *c, uintptr_t la, uint64_t m)
{
	while (m) {
		unsigned i = (unsigned)__builtin_ctzll(m);
		uint64_t rest = ~(m >> i);
		unsigned n = rest ? (unsigned)__builtin_ctzll(rest) : 64 - i;
		piece(c, la + i, la + i + n);
		if (i + n >= 64)
			break;
		m &= ~(((n == 64 ? 0 : (1ull << n)) - 1) << i);
	}
}

/* the stack protector's canary, which every frame with an array leaves next to it (0:
 * not known here) */
static inline uint64_t stack_guard(void)
{
#if defined(__x86_64__) && defined(__linux__)
	uint64_t g;
	__asm__("mov %%fs:0x28, %0" : "=r"(g));	/* the ABI's place: gcc's -fstack-protector reads it */
	return g;
#else
	return 0;
#endif
}

/* The bytes of words FIRST to LAST - 1 of the line at X (8 bytes each, aligned) that
 * hold no number a computation leaves in a double: a subnormal (exponent 0, mantissa
 * not: every integer below 2^52, every user-space address), a NaN with a payload (all
 * negative integers; the default NaN, 0x7ff8... or 0xfff8..., stays a number), or the
 * stack protector's canary.  Only asked of a stack variable declared double: there,
 * such a word is what an earlier frame left in memory the program did not fill.  A
 * program computing subnormals, or keeping NaN payloads (R's NA), would see them
 * undercounted.  The exponent and the canary are tested for the 8 words at once; the
 * mantissa only of the words whose exponent is all zeros or all ones. */
static inline int odd_word(uint64_t v)
{
	uint64_t a = v & ~(1ull << 63);
	return (a && a < (1ull << 52)) || (a > 0x7ff0000000000000ull && a != 0x7ff8000000000000ull);
}

static uint64_t odd_words(const unsigned char *x, unsigned first, unsigned last)
{
	uint64_t guard = stack_guard(), m = 0, v;
	unsigned cand = 0, odd = 0, in = ((1u << last) - 1) & ~((1u << first) - 1);
#if defined(__x86_64__)
	const __m128i em = _mm_set_epi16(0x7ff0, 0, 0, 0, 0x7ff0, 0, 0, 0), g = _mm_set1_epi64x((long long)guard);
	for (int j = 0; j < 4; j++) {
		__m128i w = _mm_loadu_si128((const __m128i *)(x + 16 * j)), e = _mm_and_si128(w, em);
		__m128i q = _mm_cmpeq_epi32(w, g);	/* both halves equal: the word */
		q = _mm_and_si128(q, _mm_shuffle_epi32(q, _MM_SHUFFLE(2, 3, 0, 1)));
		unsigned b = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi16(e, em),
								      _mm_cmpeq_epi16(e, _mm_setzero_si128())));
		unsigned c = (unsigned)_mm_movemask_epi8(q);
		cand |= (((b >> 7) & 1) | ((b >> 14) & 2)) << (2 * j);	/* the words' top bytes */
		odd |= (((c >> 7) & 1) | ((c >> 14) & 2)) << (2 * j);
	}
	if (!guard)
		odd = 0;
#else
	for (unsigned i = 0; i < 8; i++) {
		memcpy(&v, x + 8 * i, 8);
		unsigned e = (unsigned)(v >> 52) & 0x7ff;
		cand |= (unsigned)(e == 0 || e == 0x7ff) << i;
		odd |= (unsigned)(guard && v == guard) << i;
	}
#endif
	for (cand &= in; cand; cand &= cand - 1) {
		unsigned i = (unsigned)__builtin_ctz(cand);
		memcpy(&v, x + 8 * i, 8);
		odd |= (unsigned)odd_word(v) << i;
	}
	for (odd &= in; odd; odd &= odd - 1)
		m |= 0xffull << (8 * __builtin_ctz(odd));
	return m;
}

/* counts line L's (address LA) changed blocks: D the changed bytes, V the bytes of the
 * buffer (both masks over the line) */
static inline void count_line(struct cmp *c, uintptr_t la, uint64_t dm, uint64_t vm,
			      uintptr_t a, uintptr_t b)
{
	unsigned bs = c->block;

	if (!dm)
		return;
	if (bs >= 64) {
		uintptr_t blk = la & ~(uintptr_t)(bs - 1);
		if (blk + 1 == c->last_block)
			return;
		c->last_block = blk + 1;
		uintptr_t s = blk > a ? blk : a, e = blk + bs < b ? blk + bs : b;
		c->bytes += e - s;
		if (c->sink)
			piece(c, s, e);
		return;
	}
	if (dm == vm) {
		c->bytes += (uint64_t)__builtin_popcountll(vm);
		if (c->sink)
			pieces_of(c, la, vm);
		return;
	}
	/* a bit per block that has a changed byte, spread back over its bytes */
	uint64_t any = dm, ones = (1ull << bs) - 1, base = ~0ull / ones;
	for (unsigned s = 1; s < bs; s <<= 1)
		any |= any >> s;
	uint64_t m = ((any & base) * ones) & vm;
	c->bytes += (uint64_t)__builtin_popcountll(m);
	if (c->sink)
		pieces_of(c, la, m);
}

/* compares [A, B) (the bytes at CUR) with the snapshot bytes at SNAP, counts the
 * changed blocks and updates the snapshot; bytes outside [A, B) are neither read nor
 * written */
static void compare(struct cmp *c, const unsigned char *cur, unsigned char *snap, uintptr_t a, uintptr_t b)
{
	uintptr_t la = a & ~(uintptr_t)63;

	while (la < b) {
		uintptr_t s = la > a ? la : a, e = la + 64 < b ? la + 64 : b;
		const unsigned char *x = cur + (s - a);
		unsigned char *y = snap + (s - a);
		if (s == la && e == la + 64) {
			/* whole lines: equal chunks are skipped with memcmp */
			uintptr_t run = (b - la) & ~(uintptr_t)63;
			if (run > CHUNK)
				run = CHUNK - (la & (CHUNK - 1));
			if (run >= 256 && memcmp(x, y, run) == 0) {
				la += run;
				continue;
			}
			uint64_t dm = line_diff(x, y), cm = c->first ? dm & line_nonzero(x) : dm;
			if (c->f64 && cm)
				cm &= ~odd_words(x, 0, 8);
			count_line(c, la, cm, ~0ull, a, b);
			if (dm)
				memcpy(y, x, 64);
		} else {
			uint64_t dm = 0, vm = 0;
			for (uintptr_t i = s; i < e; i++) {
				unsigned bit = (unsigned)(i - la);
				vm |= 1ull << bit;
				if (x[i - s] != y[i - s]) {
					if (!c->first || x[i - s])
						dm |= (1ull << bit);
					y[i - s] = x[i - s];
				}
			}
			if (c->f64 && dm) {	/* the words wholly in [S, E), read from a copy */
				unsigned char line[64] = { 0 };
				memcpy(line + (s - la), x, e - s);
				dm &= ~odd_words(line, (unsigned)(s - la + 7) / 8, (unsigned)(e - la) / 8);
			}
			count_line(c, la, dm, vm, a, b);
		}
		la += 64;
	}
}

/* [A, B) of a mapping, through process_vm_readv (unreadable pages end it) */
static void compare_mapping(struct cmp *c, const struct snap *s, uintptr_t a, uintptr_t b)
{
	static TLS unsigned char *bounce;

	if (!bounce && !(bounce = dyl_raw_map(CHUNK)))
		return;
	while (a < b) {
		size_t n = b - a < CHUNK ? b - a : CHUNK - (a & (CHUNK - 1));
		struct iovec local = { bounce, n }, remote = { (void *)a, n };
		if (syscall(SYS_process_vm_readv, getpid(), &local, 1ul, &remote, 1ul, 0ul) != (long)n)
			return;
		compare(c, bounce, mirror(s, a), a, a + n);
		a += n;
	}
}

struct look {
	struct cmp *c;
	struct snap *s;
	uintptr_t a, b;
	uint64_t written;	/* bytes of the pages listed */
	int fresh;		/* a first look: see look() */
	uintptr_t next;		/* a first look: the end of the last page run listed */
};

static void written_run(uintptr_t ra, uintptr_t rb, void *arg)
{
	struct look *l = arg;
	uintptr_t a = ra > l->a ? ra : l->a, b = rb < l->b ? rb : l->b;

	if (a < b) {
		l->written += b - a;
		if (l->fresh && a > l->next)	/* pages not written: taken as they are */
			memcpy(mirror(l->s, l->next), (const void *)l->next, a - l->next);
		compare(l->c, (const unsigned char *)a, mirror(l->s, a), a, b);
		d.st.watched_bytes_compared += b - a;
		l->next = b;
	}
}

/* the whole pages of [A, B): the ones std.diff may write-protect (none: *PA = *PB = B);
 * 0 when there are too few to be worth watching */
static inline int inner_pages(uintptr_t a, uintptr_t b, uintptr_t *pa, uintptr_t *pb)
{
	*pa = (a + PAGE - 1) & ~(PAGE - 1);
	*pb = b & ~(PAGE - 1);
	if (*pa >= *pb)
		*pa = *pb = b;
	return *pb - *pa >= WATCH_MIN_PAGES * PAGE;
}

static inline int watched(uint32_t kind, uintptr_t a, uintptr_t b, uintptr_t *pa, uintptr_t *pb)
{
	return kind == DYL_REGION_HEAP && inner_pages(a, b, pa, pb) && dyl_watch_on();
}

/* all of [A, B) */
static void compare_all(struct cmp *c, struct snap *s, uintptr_t a, uintptr_t b)
{
	compare(c, (const unsigned char *)a, mirror(s, a), a, b);
	d.st.bytes_compared += b - a;
}

/* [A, B) with its whole pages [PA, PB) watched: the pages written since they were last
 * protected (protected again first, compared after: a write in between is seen at the
 * next look), and the partial pages at the two ends.  A first look (FRESH) counts what
 * the program wrote, compared with zeros (fresh memory), but only on pages written
 * since they were last protected: a block malloc made of memory an earlier look or a
 * free protected still holds, where the program did not write, what was there before
 * (another block's data, which is no input of this call); pages never protected are
 * listed as written.  Returns dyl_watch_written's answer; *WRITTEN: bytes listed. */
static int compare_watched(struct cmp *c, struct snap *s, uintptr_t a, uintptr_t b,
			   uintptr_t pa, uintptr_t pb, int fresh, uint64_t *written)
{
	struct look l = { c, s, pa, pb, 0, fresh, pa };
	int got = dyl_watch_written(pa, pb, written_run, &l);

	*written = l.written;
	if (got < 0) {	/* (pages of runs listed before a failure are counted already) */
		compare_all(c, s, a, b);
		return got;
	}
	if (fresh && l.next < pb)
		memcpy(mirror(s, l.next), (const void *)l.next, pb - l.next);
	compare_all(c, s, a, pa);
	compare_all(c, s, pb, b);
	return got;
}

/* the changed bytes of [A, B) in region snapshot S since the last look */
static uint64_t look(struct snap *s, uint32_t kind, uintptr_t a, uintptr_t b, unsigned block, int fresh)
{
	struct cmp c = { block & ~DYL_DIFF_TYPED, 0, 0, fresh, !!(block & DYL_DIFF_TYPED),
			 __atomic_load_n(&dyl_reg.hooks.changed, __ATOMIC_RELAXED), 0, 0, 0 };
	uintptr_t pa, pb;
	uint64_t written;

	if (kind == DYL_REGION_MMAP) {
		compare_mapping(&c, s, a, b);
	} else if (watched(kind, a, b, &pa, &pb) && !(s->hot && ++s->looks % HOT_PROBE)) {
		/* (pages new to watching read as all written: no sign of a hot region) */
		if (compare_watched(&c, s, a, b, pa, pb, fresh, &written) == 0 && !fresh)
			s->hot = written * 2 > pb - pa;
	} else {
		compare_all(&c, s, a, b);
	}
	pieces_end(&c);
	return c.bytes;
}

/* look() at [A, B) of S: what lies outside the part looked at before is a first look
 * (a piece of a region never looked at is new, as a new region is: what the program
 * wrote there since the memory was fresh or last seen counts, not what is left there);
 * the part looked at before gets an ordinary look.  The part looked at becomes the
 * span of both (a gap between two pieces looked at in a jump forward: ordinary looks
 * later, as before pieces existed). */
static uint64_t look_range(struct snap *s, uint32_t kind, uintptr_t a, uintptr_t b, unsigned block)
{
	uintptr_t lo = s->seen_lo, hi = s->seen_hi;
	uint64_t n = 0;

	d.st.looks++;
	d.st.bytes_tracked += b - a;
	if (lo >= hi) {
		n = look(s, kind, a, b, block, 1);
	} else {
		uintptr_t ma = a > lo ? a : lo, mb = b < hi ? b : hi;
		if (a < lo)
			n += look(s, kind, a, b < lo ? b : lo, block, 1);
		if (ma < mb)
			n += look(s, kind, ma, mb, block, 0);
		if (b > hi)
			n += look(s, kind, a > hi ? a : hi, b, block, 1);
	}
	seen_add(s, a, b);
	return n;
}

/* --- the calls ------------------------------------------------------------------- */

static uint64_t key_of(const struct dyl_region *r, uintptr_t *start, uintptr_t *end,
		       const struct dyl_groups *c)
{
	*start = r->start;
	*end = r->end;
	switch (r->kind) {
	case DYL_REGION_STATIC:
		return KEY_STATIC | r->start;
	case DYL_REGION_STACK:
		/* the frame's snapshot is a part of its thread's stack's */
		if (c->have_stack && r->start >= c->stack_lo && r->end <= c->stack_hi) {
			*start = c->stack_lo;
			*end = c->stack_hi;
		}
		return KEY_STACK | *start;
	default:
		return r->id;
	}
}

/* room for a call's first pending entry */
static int pend_ready(void)
{
	if (!pend && !(pend = dyl_raw_map(PENDING_MAX * sizeof(*pend))))
		return 0;
	return npend < PENDING_MAX;
}

static int push(const struct pending *p)
{
	if (npend >= PENDING_MAX)
		return -1;
	pend[npend++] = *p;
	return 0;
}

/* the table's hooks.freed, while pages are watched: a heap block of DYL_FREED_BIG bytes
 * or more was freed: its whole pages are protected, so that what it leaves there is no
 * input of a later block made of that memory */
static void freed(uintptr_t start, uint64_t size)
{
	uintptr_t pa, pb;
	int saved = errno;

	if (inner_pages(start, start + size, &pa, &pb))
		dyl_watch_protect_registering(pa, pb);
	errno = saved;
}

/* fork: the child keeps the snapshots (its memory is a copy) but not the protection;
 * a lock another thread held is nobody's in the child */
static void after_fork_child(void)
{
	d.lock = 0;
	holding = 0;
	npend = 0;
	dyl_watch_after_fork();
}

void dyl_diff_setup(void)
{
	if (__atomic_exchange_n(&d.noted, 1, __ATOMIC_RELAXED))
		return;
	dyl_unwind_on();	/* a call's dead stack below the caller */
	char note[256];
	const char *how = dyl_watch_how();
	if (dyl_watch_on()) {
		snprintf(note, sizeof(note), "watched pages (%s)", how);
		__atomic_store_n(&dyl_reg.hooks.freed, freed, __ATOMIC_RELAXED);
	}
	else
		snprintf(note, sizeof(note), "whole buffers compared (%s)", how);
	dyl_note(DYL_KEY_DIFF, note);
	pthread_atfork(NULL, NULL, after_fork_child);
	__atomic_store_n(&dyl_reg.diff_on, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&dyl_reg.hooks.born, born, __ATOMIC_RELAXED);
}

uint32_t dyl_diff_before(const struct dyl_rarg *args, unsigned n, int64_t scalar_bytes,
			 unsigned block, int64_t *in)
{
	uint32_t mark = UINT32_MAX;
	int saved = errno;

	dyl_busy++;	/* its calls into a wrapped libc are not the program's */
	struct dyl_groups *c = dyl_groups_collect(args, n);
	if (!c)
		goto out;
	if (c->incomplete || !pend_ready()) {
		dyl_groups_release(c);
		goto out;
	}
	mark = npend;
	struct pending head = { 0, 0, 0, (uintptr_t)c->out, 0, 0 };
	push(&head);
	int64_t total = scalar_bytes + c->in;
	lock();
	d.st.calls++;
	for (unsigned i = 0; i < c->ngroups; i++) {
		const struct dyl_group *g = &c->g[c->used[i]];
		uintptr_t start, end, lo = g->min_in < g->min_out ? g->min_in : g->min_out;
		uintptr_t hi = g->end_in > g->end_out ? g->end_in : g->end_out;
		uint64_t key = key_of(&g->r, &start, &end, c);
		if (key & KEY_STACK && start == c->stack_lo)
			stack_looked = 1;
		int fresh;
		struct snap *s = snap_get(key, start, end, 1, &fresh);
		if (!s) {	/* no memory for a snapshot: the fast method's charge */
			total += (int64_t)(hi - lo);
			continue;
		}
		if (fresh && g->r.kind == DYL_REGION_HEAP) {
			seed(s);
			keep(start, key);	/* its free buries it */
		} else if (s->born) {
			s->born = 0;
			d.unseen -= s->cap;
		}
		/* only the call's buffers: the rest of the region is judged when a call uses it */
		unsigned how = block & ~DYL_DIFF_TYPED;
		if ((block & DYL_DIFF_TYPED) && (g->r.flags & DYL_REGION_F64))
			how |= DYL_DIFF_TYPED;	/* look() reads it */
		total += (int64_t)look_range(s, g->r.kind, lo, hi, how);
		if (g->min_out == UINTPTR_MAX)
			continue;
		struct pending p = { key, start, end, g->min_out, g->end_out, g->r.kind };
		if (push(&p) != 0) {
			pend[mark].lo += g->end_out - g->min_out;
			continue;
		}
		uintptr_t pa, pb;
		if (s->out_hot && watched(g->r.kind, g->min_out, g->end_out, &pa, &pb))
			dyl_watch_protect(pa, pb, 0);
	}
	unlock();
	dyl_groups_release(c);
	*in = total;
out:
	dyl_busy--;
	errno = saved;
	return mark;
}

/* After a call, the stack below its caller's frame is dead: what the call made there (its
 * frames, and this runtime's) is no data of a frame the program makes there later, and
 * counts as seen.  Done at the end of the call's record (dyl_leave), when nothing of the
 * wrapper is left to write there: from the caller's stack pointer down DEAD_DEPTH bytes.
 * What the program's own code writes between two calls (a printf's frames) still counts
 * in a later frame's arrays it does not fill.  Costs a 16 KiB copy a call (+115 ns on a
 * call with a stack pointer, callbench), only in threads that passed a stack pointer to
 * a call before. */
static TLS uintptr_t dead_top;	/* the caller's stack pointer */

/* the core's hooks.after_leave (dyl_leave), in a thread that set dyl_leave_pending */
static void dead_stack(void)
{
	uintptr_t lo, hi, b = dead_top;

	dyl_leave_pending = 0;
	if (!dyl_stack_bounds(&lo, &hi) || b <= lo || b > hi)
		return;
	int saved = errno;
	uintptr_t a = b - lo > DEAD_DEPTH ? b - DEAD_DEPTH : lo;
	dyl_busy++;
	lock();
	/* only in a thread whose stack a call has looked at: the others pay nothing */
	struct snap *s = lookup(KEY_STACK | lo);
	if (s && s->start == lo) {
		/* (this function's frame and memcpy's are in [a, b): what they hold now is
		 * what they leave) */
		memcpy(mirror(s, a), (const void *)a, b - a);
		seen_add(s, a, b);
	}
	unlock();
	dyl_busy--;
	errno = saved;
}

void dyl_diff_dead(const void *frame)
{
#if defined(__x86_64__) || defined(__aarch64__)
	if (frame && !holding && stack_looked) {
		dead_top = (uintptr_t)frame + 2 * sizeof(void *);
		/* (installed once and for all: a store of the same pointer each time) */
		__atomic_store_n(&dyl_hooks.after_leave, dead_stack, __ATOMIC_RELAXED);
		dyl_leave_pending = 1;
	}
#else
	(void)frame;	/* (where the caller's SP lies from the frame address is not known) */
#endif
}

void dyl_diff_after(uint32_t mark, unsigned block, int64_t *out, const void *frame)
{
	int saved = errno;

	if (mark >= npend)
		return;	/* a longjmp skipped this call's end, or nothing is pending */
	dyl_busy++;
	int64_t total = (int64_t)pend[mark].lo;
	lock();
	for (uint32_t i = mark + 1; i < npend; i++) {
		const struct pending *p = &pend[i];
		struct snap *s = lookup(p->key);
		if (!s || s->start != p->start || s->end != p->end || !alive(s))
			continue;	/* freed during the call */
		struct cmp c = { block, 0, 0, 0, 0, __atomic_load_n(&dyl_reg.hooks.changed, __ATOMIC_RELAXED),
				 1, 0, 0 };
		uintptr_t pa, pb;
		d.st.bytes_tracked += p->hi - p->lo;
		if (p->kind == DYL_REGION_MMAP) {
			compare_mapping(&c, s, p->lo, p->hi);
			d.st.bytes_compared += p->hi - p->lo;
		} else if (watched(p->kind, p->lo, p->hi, &pa, &pb) && !s->out_hot) {
			/* protected during the call: its written pages, and the partial ones */
			uint64_t written;
			if (compare_watched(&c, s, p->lo, p->hi, pa, pb, 0, &written) == 0)
				s->out_hot = written * 2 > pb - pa;
		} else {
			int w = watched(p->kind, p->lo, p->hi, &pa, &pb);
			if (w && !s->hot)
				dyl_watch_protect(pa, pb, 1);	/* before the comparison */
			compare_all(&c, s, p->lo, p->hi);
			if (w)	/* still mostly rewritten by each call? */
				s->out_hot = c.bytes * 2 > p->hi - p->lo;
		}
		pieces_end(&c);
		total += (int64_t)c.bytes;
	}
	unlock();
	npend = mark;
	if (mark == 0)	/* the outermost estimated call */
		dyl_diff_dead(frame);
	*out = total;
	dyl_busy--;
	errno = saved;
}

void dyl_diff_stats(struct dyl_diff_stats *s)
{
	lock();
	*s = d.st;
	s->snapshot_bytes = d.bytes + d.grave_bytes;
	s->births_skipped = __atomic_load_n(&d.births_skipped, __ATOMIC_RELAXED);
	s->watching = dyl_watch_on();
	unlock();
}
