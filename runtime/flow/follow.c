/* follow.c - std.flow's follow= option (issue 23, item 3: data structures built of
 * pointers).  For each outermost call, the words of the buffers its pointers reach (the
 * charge's extents, const and other: an in-out buffer's pointers are what the call gets)
 * are read as possible pointers; each that points into a live heap block (std.regions'
 * table) marks that block, and the marked blocks are read the same way, breadth first:
 * a conservative mark, as a garbage collector makes.  Each block reached is recorded as
 * read whole by the call: an ACC event with DYL_REF_FOLLOW, once per call.  A linked
 * list handed to a call counts every node, what a deep copy to an accelerator moves.
 *
 * Limits, per call: at most CAP blocks reached and CAP * SCAN_PER_BLOCK bytes read as
 * words (the call's own buffers included).  At the cap the walk stops: the blocks reached
 * so far are recorded, the others not, and the run warns once on stderr.
 *
 * Reading is safe where the program's own reads are: the call's buffers are its
 * caller's.  A block reached through a pointer may be freed meanwhile by another thread;
 * a small one stays mapped (the allocator keeps it), a big one may not, so a block of
 * BIG bytes or more is read through process_vm_readv, which fails instead of faulting.
 * Writes through followed pointers are not seen: std.diff looks at the call's own
 * buffers only.  Blocks the call's pointers reach directly keep their extents' events
 * (hooks.c) and are not recorded again.  Mappings and statics are not followed.
 *
 * Most words are no heap address: a word outside the user address space, inside the
 * block found last, or in a 2 MiB granule no heap block ever touched (a map of the
 * address space, one bit a granule, filled by the table's hook for new blocks) costs a
 * few loads; the others a table lookup (about 20 ns found, over 100 ns not found).
 *
 * State: per thread, a set of the block ids seen in this call (stamped with the call's
 * number, so it is never cleared) and the queue of blocks to read, in memory of the
 * runtime's own (dyl_raw_map), grown as needed, given back when the thread ends.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "flow.h"
#include "../regions/regions.h"

#define SCAN_PER_BLOCK 4096u	/* bytes read as words per block of the cap */
#define BIG (128u << 10)	/* a block this big may be unmapped when freed (glibc's
				 * mmap threshold starts there) */
#define CHUNK (64u << 10)	/* a big block is copied this much at a time */
#define PTR_LO 4096u		/* words below it, or from PTR_HI up, are no user address */
#define PTR_HI (1ull << 47)
#define GRAIN 21		/* the heap map's granules: 2 MiB of address space */
#define BATCH 16		/* events written at once */
#define SET_FIRST 1024u		/* slots of a thread's set, at first */

struct seen {			/* a slot of the set of blocks seen */
	uint64_t id;		/* the block's region id */
	uint64_t call;		/* the call it was seen in (0: never) */
};
struct block {			/* a block reached, to be read */
	uintptr_t start, end;
};

/* one thread's state (its own mapping) */
struct fstate {
	uint64_t call;		/* calls walked (the set's stamp) */
	struct seen *set;
	uint64_t set_cap;	/* slots (a power of two) */
	uint64_t nseen;		/* this call's */
	struct block *queue;
	uint64_t queue_cap, nq;
	uint64_t budget;	/* words this call may still read */
	uintptr_t last_lo;	/* the last block found, [last_lo, last_lo + last_len): seen */
	uint64_t last_len;
	int capped;
	unsigned nev;		/* events in ev */
	uint64_t ev[BATCH * 4];
	uintptr_t chunk[CHUNK / sizeof(uintptr_t)];	/* a big block's copy */
};

/* the option's process-wide state */
static struct follow {
	pthread_key_t key;
	int key_made;
	int warned;
	/* bit G: some heap block lay in granule G of the address space (never cleared: a
	 * word outside every such granule is no heap pointer, found without a lookup) */
	uint64_t *heap_map;
	void (*next_added)(uintptr_t, uint64_t, uint64_t, unsigned);	/* hooks.c's hook */
} follow;

uint32_t dyl_flow_follow_cap;	/* blocks per call; 0: off (flow.h) */
static TLS struct fstate *st;

static void release(void *p)
{
	struct fstate *s = p;

	if (s->set)
		dyl_raw_unmap(s->set, s->set_cap * sizeof(*s->set));
	if (s->queue)
		dyl_raw_unmap(s->queue, s->queue_cap * sizeof(*s->queue));
	dyl_raw_unmap(s, sizeof(*s));
	st = NULL;
}

static struct fstate *state(void)
{
	if (dyl_likely(st != NULL))
		return st;
	struct fstate *s = dyl_raw_map(sizeof(*s));
	if (!s)
		return NULL;	/* (zeros, as mapped) */
	pthread_setspecific(follow.key, s);
	return st = s;
}

/* the set's slot for ID: a free one (call stamp not this call's) or ID's */
static inline struct seen *slot(struct fstate *s, uint64_t id)
{
	uint64_t i = (id * 0x9E3779B97F4A7C15ull) >> 20 & (s->set_cap - 1);

	while (s->set[i].call == s->call && s->set[i].id != id)
		i = (i + 1) & (s->set_cap - 1);
	return &s->set[i];
}

/* the set at least twice this call's blocks: a new one, this call's entries moved */
static int grow_set(struct fstate *s)
{
	uint64_t cap = s->set_cap ? s->set_cap * 2 : SET_FIRST;
	struct seen *old = s->set, *set = dyl_raw_map(cap * sizeof(*set));
	uint64_t old_cap = s->set_cap;

	if (!set)
		return -1;
	s->set = set;
	s->set_cap = cap;
	for (uint64_t i = 0; i < old_cap; i++)
		if (old[i].call == s->call)
			*slot(s, old[i].id) = old[i];
	if (old)
		dyl_raw_unmap(old, old_cap * sizeof(*old));
	return 0;
}

/* 1: ID first seen in this call (now marked); 0: seen already; -1: no memory */
static int mark(struct fstate *s, uint64_t id)
{
	if (dyl_unlikely((s->nseen + 1) * 2 > s->set_cap) && grow_set(s) != 0)
		return -1;
	struct seen *e = slot(s, id);
	if (e->call == s->call)
		return 0;
	*e = (struct seen){ id, s->call };
	s->nseen++;
	return 1;
}

static int push(struct fstate *s, uintptr_t start, uintptr_t end)
{
	if (dyl_unlikely(s->nq == s->queue_cap)) {
		uint64_t cap = s->queue_cap ? s->queue_cap * 2 : SET_FIRST / 2;
		struct block *q = dyl_raw_map(cap * sizeof(*q));
		if (!q)
			return -1;
		if (s->queue) {
			memcpy(q, s->queue, s->nq * sizeof(*q));
			dyl_raw_unmap(s->queue, s->queue_cap * sizeof(*q));
		}
		s->queue = q;
		s->queue_cap = cap;
	}
	s->queue[s->nq++] = (struct block){ start, end };
	return 0;
}

static void flush(struct fstate *s)
{
	if (s->nev)
		dyl_flow_put(s->ev, s->nev * 4);
	s->nev = 0;
}

/* the block holding V, if a live heap block not seen yet in this call: marked, queued
 * and recorded.  -1: stop (the cap, or no memory). */
static int reach(struct fstate *s, uintptr_t v)
{
	struct dyl_region r;

	if (dyl_table_find(v, &r) <= 0 || r.kind != DYL_REGION_HEAP)
		return 0;
	s->last_lo = r.start;
	s->last_len = r.end - r.start;
	int fresh = mark(s, r.id);
	if (fresh <= 0)
		return fresh;
	if (s->nq >= dyl_flow_follow_cap) {
		s->capped = 1;
		return -1;
	}
	if (push(s, r.start, r.end) != 0)
		return -1;
	uint64_t *e = s->ev + 4 * s->nev++;
	e[0] = DYL_RE_WORD(DYL_RE_ACC, 4, DYL_REF_FOLLOW, DYL_OBJ_HEAP);
	e[1] = r.id;
	e[2] = 0;
	e[3] = r.end - r.start;
	if (s->nev == BATCH)
		flush(s);
	return 0;
}

static void map_block(uintptr_t start, uint64_t n)
{
	uint64_t last = (start + n - 1) >> GRAIN;

	for (uint64_t g = start >> GRAIN; g <= last && g < (PTR_HI >> GRAIN); g++) {
		uint64_t *w = &follow.heap_map[g >> 6], bit = 1ull << (g & 63);
		if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & bit))
			__atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
	}
}

/* the region table's hook for new blocks, before hooks.c's (a few ns a malloc) */
static void added(uintptr_t start, uint64_t n, uint64_t id, unsigned kind)
{
	if ((kind & 0xff) == DYL_REGION_HEAP && n)
		map_block(start, n);
	if (follow.next_added)
		follow.next_added(start, n, id, kind);
}

/* the blocks the table held before the hook: into the map */
static void map_table(void)
{
	if (__atomic_load_n(&dyl_reg.state, __ATOMIC_ACQUIRE) != 1)
		return;
	for (int i = 0; i < DYL_SHARDS; i++) {
		struct dyl_shard *sh = &dyl_reg.shards[i];
		dyl_spin_lock(&sh->lock);
		for (uint64_t j = 0; sh->slots && j <= sh->mask; j++) {
			const struct dyl_slot *e = &sh->slots[j];
			if (e->key >> 63 && (e->id_kind & 0x7f) == DYL_REGION_HEAP && e->size)
				map_block(e->start, e->size);
		}
		dyl_spin_unlock(&sh->lock);
	}
}

static inline int in_heap_map(uintptr_t v)
{
	return follow.heap_map[v >> (GRAIN + 6)] >> (v >> GRAIN & 63) & 1;
}

/* N words at W read as possible pointers.  -1: stop. */
static int scan(struct fstate *s, const uintptr_t *w, uint64_t n)
{
	if (n > s->budget) {
		n = s->budget;
		s->capped = 1;
	}
	s->budget -= n;
	for (uint64_t i = 0; i < n; i++) {
		uintptr_t v = w[i];
		/* most words are no address (small integers, doubles) or point into the block
		 * found last (a node's fields, an array's elements) */
		if (v - PTR_LO >= PTR_HI - PTR_LO || v - s->last_lo < s->last_len || !in_heap_map(v))
			continue;
		if (reach(s, v) != 0)
			return -1;
	}
	return s->capped ? -1 : 0;
}

/* [LO, HI) read in place, its aligned words */
static int scan_range(struct fstate *s, uintptr_t lo, uintptr_t hi)
{
	lo = (lo + 7) & ~(uintptr_t)7;
	return hi > lo ? scan(s, (const uintptr_t *)lo, (hi - lo) / 8) : 0;
}

/* a big block, copied out a chunk at a time (a block freed and unmapped meanwhile ends
 * the copy: nothing is read from it) */
static int scan_big(struct fstate *s, const struct block *b)
{
	/* (system calls made raw: a wrapper of libc must not see the runtime's own) */
	pid_t self = (pid_t)syscall(SYS_getpid);

	for (uintptr_t a = b->start; a + 8 <= b->end; a += CHUNK) {
		size_t n = b->end - a < CHUNK ? (b->end - a) & ~(size_t)7 : CHUNK;
		struct iovec to = { s->chunk, n }, from = { (void *)a, n };
		if (syscall(SYS_process_vm_readv, self, &to, 1UL, &from, 1UL, 0UL) != (long)n)
			return 0;
		if (scan(s, s->chunk, n / 8) != 0)
			return -1;
	}
	return 0;
}

void dyl_flow_follow(const struct dyl_groups *c)
{
	struct fstate *s = state();

	if (!s)
		return;
	s->call++;
	s->nseen = s->nq = 0;
	s->nev = 0;
	s->capped = 0;
	s->last_len = 0;	/* (the last call's block may be freed now) */
	s->budget = (uint64_t)dyl_flow_follow_cap * (SCAN_PER_BLOCK / 8);
	/* the call's own heap blocks are its extents' (not recorded again) */
	for (unsigned i = 0; i < c->ngroups; i++) {
		const struct dyl_group *g = &c->g[c->used[i]];
		if (g->r.kind == DYL_REGION_HEAP && mark(s, g->r.id) < 0)
			return;
	}
	int stop = 0;
	for (unsigned i = 0; i < c->ngroups && !stop; i++) {
		const struct dyl_group *g = &c->g[c->used[i]];
		if (g->r.kind == DYL_REGION_MMAP)	/* (may be unreadable: a guard) */
			continue;
		if (g->min_in != UINTPTR_MAX)
			stop = scan_range(s, g->min_in, g->end_in) != 0;
		if (!stop && g->min_out != UINTPTR_MAX)
			stop = scan_range(s, g->min_out, g->end_out) != 0;
	}
	/* breadth first: at the cap, the blocks nearest the call's buffers are kept */
	for (uint64_t q = 0; q < s->nq && !stop; q++) {
		struct block b = s->queue[q];
		stop = (b.end - b.start >= BIG ? scan_big(s, &b) : scan_range(s, b.start, b.end)) != 0;
	}
	flush(s);
	if (s->capped) {
		if (!__atomic_exchange_n(&follow.warned, 1, __ATOMIC_RELAXED)) {
			dyl_warn_once("flow_follow", "std.flow follow=%u: a call reached the cap (%u heap "
				      "blocks, or %u KiB read); blocks past it are not counted",
				      dyl_flow_follow_cap, dyl_flow_follow_cap,
				      dyl_flow_follow_cap * (SCAN_PER_BLOCK / 1024));
		}
	}
}

void dyl_flow_follow_setup(unsigned cap)
{
	char v[24];

	dyl_flow_setup();
	if (!cap)
		return;
	if (!__atomic_exchange_n(&follow.key_made, 1, __ATOMIC_ACQ_REL)) {
		pthread_key_create(&follow.key, release);
		if (!(follow.heap_map = dyl_raw_map((PTR_HI >> GRAIN) / 8))) {
			dyl_warn_once("flow_follow", "std.flow follow=: no memory for its map; off");
			return;
		}
		/* the hook first, then the blocks already there: none is missed */
		follow.next_added = __atomic_load_n(&dyl_reg.hooks.added, __ATOMIC_ACQUIRE);
		__atomic_store_n(&dyl_reg.hooks.added, added, __ATOMIC_RELEASE);
		map_table();
	}
	if (!follow.heap_map)
		return;
	/* several wrappers: the largest cap */
	uint32_t was = __atomic_load_n(&dyl_flow_follow_cap, __ATOMIC_RELAXED);
	while (cap > was && !__atomic_compare_exchange_n(&dyl_flow_follow_cap, &was, cap, 0,
							 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		;
	if (cap > was) {
		/* (the charge's hook walks from now on: hooks.c calls it) */
		__atomic_store_n(&dyl_flow_follow_hook, dyl_flow_follow, __ATOMIC_RELEASE);
		snprintf(v, sizeof(v), "%u", cap);
		dyl_note(DYL_KEY_FLOW_FOLLOW, v);
		/* (doc/flow.md says so too; the trace says it where its reader looks) */
		if (!was)
			dyl_note(DYL_KEY_FLOW_FOLLOW_WRITES,
				 "not seen: the blocks a call reaches through "
				 "stored pointers count as read, never as written");
	}
}
