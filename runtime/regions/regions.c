/* regions.c - the table of heap blocks and mappings, filled by the allocator
 * interposers (dyl_alloc.h) and read by the methods that charge pointer arguments.
 *
 * Hot path: one malloc/free pair is an insert and a delete.  Both are O(1): an
 * open-addressing hash table with linear probing, two entries per block (see struct
 * dyl_slot): by start, and by (level, start >> level).  A lookup of a pointer inside a
 * block probes two keys per level in use (a block of level L starts less than 2^L below
 * any pointer into it, so its start lies in the pointer's 2^L granule or the one before),
 * so it costs O(number of size classes), at most 44 levels, whatever the block count.
 *
 * Threads: the table is 16 shards, each under its own spin lock; an entry lives in the
 * shard of its key, so two threads allocating at once mostly take different locks (one
 * lock over the whole table cost +120 ns a pair with two threads allocating nonstop:
 * its cache line went back and forth).  A lock is held only over one shard (no call
 * out, no allocation inside: the memory comes from the mmap system call directly), so
 * holding it is short and fork can take them all.  Signals: a handler that frees while its thread is inside the
 * table must not wait for itself; such frees are queued per thread and applied at the
 * thread's next table operation (a full queue leaves a stale entry, which the next block
 * at that address replaces).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "regions.h"

struct dyl_regions dyl_reg;

#define START_KEY(s) ((uint64_t)(s) | (1ull << 63))
#define LEVEL_KEY(s, l) ((((uint64_t)(s) >> (l)) << 6) | (l))
#define MIN_LEVEL 4
#define FIRST_SLOTS (1u << 14)
#define PENDING 16

/* per thread: inside the table (a signal handler must not wait for the lock), and the
 * frees such a handler queued */
static TLS int in_table;
static TLS volatile uintptr_t pending[PENDING];
static TLS volatile unsigned npending;

/* The kernel orders an unmapping before any later mapping of the same addresses; this
 * counter says so to the compiler's memory model and to ThreadSanitizer, which does not see
 * raw system calls: without it, one thread's writes into a list it then freed and another
 * thread's writes into a new list at the same address looked like a race. */
static unsigned long raw_epoch;

void *dyl_raw_map(size_t n)
{
	/* the raw system call: the wrapper interposes mmap, and this memory must not become
	 * a region (nor recurse into the table) */
	long r = syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == -1)
		return NULL;
	__atomic_fetch_add(&raw_epoch, 1, __ATOMIC_ACQUIRE);
	return (void *)r;
}

void dyl_raw_unmap(void *p, size_t n)
{
	__atomic_fetch_add(&raw_epoch, 1, __ATOMIC_RELEASE);
	syscall(SYS_munmap, p, n);
}

void dyl_spin_lock(int *l)
{
	unsigned spins = 0;

	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(l, __ATOMIC_RELAXED))
			if (++spins > 64)
				sched_yield();	/* the holder may be descheduled on a busy machine */
	}
}

void dyl_spin_unlock(int *l)
{
	DYL_ASSERT(__atomic_load_n(l, __ATOMIC_RELAXED) == 1);	/* held: released once */
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

static unsigned level_of(uint64_t size)
{
	unsigned l = size <= 1 ? 0 : 64 - (unsigned)__builtin_clzll(size - 1);
	return l < MIN_LEVEL ? MIN_LEVEL : l;
}

static inline uint64_t mix(uint64_t key)
{
	return key * 0x9E3779B97F4A7C15ull;
}

/* The shard of KEY: by the 64 MiB granule of the block starts the key stands for.  Each
 * thread's blocks come from its own malloc arena (glibc gives threads arenas of their
 * own, 64 MiB aligned), so a thread mostly meets its own shard's lock and lines. */
static inline struct dyl_shard *shard_of(uint64_t key)
{
	uint64_t granule;

	if (key >> 63)	/* START_KEY */
		granule = (key & ~(1ull << 63)) >> 26;
	else		/* LEVEL_KEY: (start >> l) << 6 | l */
		granule = ((key >> 6) << (key & 63)) >> 26;
	return &dyl_reg.shards[mix(granule) >> 60 & (DYL_SHARDS - 1)];
}

static inline uint64_t home(const struct dyl_shard *sh, uint64_t key)
{
	return (mix(key) >> 29) & sh->mask;
}

/* shard lock held */
static void put(struct dyl_shard *sh, uint64_t key, uintptr_t start, uint64_t size, uint64_t id_kind)
{
	uint64_t i = home(sh, key);

	DYL_ASSERT(sh->lock == 1 && key != 0);	/* under the shard's lock; 0 means empty */
	DYL_ASSERT((sh->used + 1) * 2 <= sh->mask + 1);	/* room() ran: half full at most */
	DYL_ASSERT(shard_of(key) == sh);	/* an entry lives in its key's shard */
	while (sh->slots[i].key)
		i = (i + 1) & sh->mask;
	sh->slots[i] = (struct dyl_slot){ key, start, size, id_kind };
	sh->used++;
}

/* backward-shift deletion: keeps every entry reachable from its home without tombstones */
static void erase_at(struct dyl_shard *sh, uint64_t i)
{
	struct dyl_slot *s = sh->slots;
	uint64_t m = sh->mask;

	DYL_ASSERT(sh->lock == 1 && s[i].key != 0 && sh->used > 0);
	for (;;) {
		uint64_t j = i;
		for (;;) {
			j = (j + 1) & m;
			if (!s[j].key) {
				s[i].key = 0;
				sh->used--;
				return;
			}
			uint64_t h = home(sh, s[j].key);
			int stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
			if (!stays) {
				s[i] = s[j];
				i = j;
				break;
			}
		}
	}
}

static uint64_t find_slot(const struct dyl_shard *sh, uint64_t key, uintptr_t start)
{
	for (uint64_t i = home(sh, key);; i = (i + 1) & sh->mask) {
		if (!sh->slots[i].key)
			return UINT64_MAX;
		if (sh->slots[i].key == key && sh->slots[i].start == start)
			return i;
	}
}

/* shard lock held: room for one more entry (half full at most) */
static int room(struct dyl_shard *sh)
{
	if ((sh->used + 1) * 2 <= sh->mask + 1)
		return 0;
	uint64_t n = (sh->mask + 1) * 2, oldn = sh->mask + 1;
	int e = errno;
	struct dyl_slot *old = sh->slots, *s = dyl_raw_map(n * sizeof(*s));

	errno = e;
	if (!s)
		return -1;
	sh->slots = s;
	sh->mask = n - 1;
	sh->used = 0;
	for (uint64_t i = 0; i < oldn; i++)
		if (old[i].key)
			put(sh, old[i].key, old[i].start, old[i].size, old[i].id_kind);
	dyl_raw_unmap(old, oldn * sizeof(*old));
	return 0;
}

/* shard lock held: removes KEY's entry for START; its size, or -1; *IDK: its id_kind */
static int64_t take_locked(struct dyl_shard *sh, uint64_t key, uintptr_t start, uint64_t *idk)
{
	uint64_t i = find_slot(sh, key, start);

	if (i == UINT64_MAX)
		return -1;
	int64_t size = (int64_t)sh->slots[i].size;
	*idk = sh->slots[i].id_kind;
	erase_at(sh, i);
	sh->regions -= key >> 63;
	return size;
}

/* Removes KEY's entry for START from its shard; its size, or -1. */
static int64_t take(uint64_t key, uintptr_t start)
{
	struct dyl_shard *sh = shard_of(key);
	uint64_t idk;

	dyl_spin_lock(&sh->lock);
	int64_t size = take_locked(sh, key, start, &idk);
	dyl_spin_unlock(&sh->lock);
	return size;
}

/* shard lock held: puts KEY's entry for START; *OLD: the size of an entry it replaced
 * (a block freed unseen, by a signal handler say), else -1.  0, or -1 without memory. */
static int give_locked(struct dyl_shard *sh, uint64_t key, uintptr_t start, uint64_t size,
		       uint64_t id_kind, int64_t *old)
{
	uint64_t i = find_slot(sh, key, start);

	*old = -1;
	if (i != UINT64_MAX) {
		*old = (int64_t)sh->slots[i].size;
		sh->slots[i] = (struct dyl_slot){ key, start, size, id_kind };
		return 0;
	}
	if (room(sh) != 0)
		return -1;
	put(sh, key, start, size, id_kind);
	sh->regions += key >> 63;
	return 0;
}

/* Removes the block starting at START; its size, or -1; *IDK: its start entry's id_kind
 * (with DYL_SLOT_KEPT).  Its two entries share a shard
 * but for blocks of 64 MiB and more; otherwise they are taken one after the other: a
 * lookup meanwhile may still find the block by a pointer inside it, which is right until
 * free() returns (it removes the block first). */
static int64_t del(uintptr_t start, uint64_t *idk)
{
	struct dyl_shard *sh = shard_of(START_KEY(start));
	uint64_t lidk;

	*idk = 0;
	dyl_spin_lock(&sh->lock);
	int64_t size = take_locked(sh, START_KEY(start), start, idk);
	if (size >= 0) {
		uint64_t lk = LEVEL_KEY(start, level_of((uint64_t)size));
		if (shard_of(lk) == sh) {
			take_locked(sh, lk, start, &lidk);
		} else {
			dyl_spin_unlock(&sh->lock);
			take(lk, start);
			return size;
		}
	}
	dyl_spin_unlock(&sh->lock);
	return size;
}

/* A process-unique id without an atomic operation per block: each thread takes them
 * 4096 at a time. */
static uint64_t new_id(void)
{
	static TLS uint64_t next, end;

	if (next == end) {
		next = __atomic_fetch_add(&dyl_reg.next_id, 4096, __ATOMIC_RELAXED) + 1;
		end = next + 4096;
	}
	return next++;
}

/* the block's id, or 0 when it could not be put (no memory) */
static uint64_t add(uintptr_t start, uint64_t size, unsigned kind)
{
	unsigned l = level_of(size);
	uint64_t idk = new_id() << 8 | kind, sk = START_KEY(start), lk = LEVEL_KEY(start, l);
	struct dyl_shard *sh = shard_of(sk), *sh2 = shard_of(lk);
	int64_t old, old2;

	/* the level's bit first: a lookup that finds the entry must probe its level.  Bits
	 * are never cleared: clearing races with another thread's add at the same level,
	 * and a level with no block left costs a lookup two empty probes */
	if (!(__atomic_load_n(&dyl_reg.levels, __ATOMIC_RELAXED) & (1ull << l)))
		__atomic_fetch_or(&dyl_reg.levels, 1ull << l, __ATOMIC_RELAXED);
	dyl_spin_lock(&sh->lock);
	if (give_locked(sh, sk, start, size, idk, &old) != 0) {
		dyl_spin_unlock(&sh->lock);
		return 0;
	}
	/* an entry replaced: the unseen block's level entry goes too */
	uint64_t oldk = old >= 0 ? LEVEL_KEY(start, level_of((uint64_t)old)) : 0;
	uint64_t oidk;
	if (oldk && oldk != lk && shard_of(oldk) == sh)
		take_locked(sh, oldk, start, &oidk), oldk = 0;
	int fail = 0;
	if (sh2 == sh)
		fail = give_locked(sh, lk, start, size, idk, &old2) != 0;
	dyl_spin_unlock(&sh->lock);
	if (oldk && oldk != lk)
		take(oldk, start);
	if (sh2 != sh) {
		dyl_spin_lock(&sh2->lock);
		fail = give_locked(sh2, lk, start, size, idk, &old2) != 0;
		dyl_spin_unlock(&sh2->lock);
	}
	if (fail) {
		take(sk, start);	/* no memory: not tracked at all */
		return 0;
	}
	return idk >> 8;
}

static int init(void)
{
	if (__atomic_load_n(&dyl_reg.state, __ATOMIC_ACQUIRE) == 0) {
		dyl_spin_lock(&dyl_reg.lock);
		if (dyl_reg.state == 0) {
			int ok = 1;
			for (int i = 0; i < DYL_SHARDS && ok; i++) {
				struct dyl_shard *sh = &dyl_reg.shards[i];
				sh->slots = dyl_raw_map(FIRST_SLOTS / DYL_SHARDS * sizeof(struct dyl_slot));
				sh->mask = FIRST_SLOTS / DYL_SHARDS - 1;
				ok = sh->slots != NULL;
			}
			__atomic_store_n(&dyl_reg.state, ok ? 1 : 2, __ATOMIC_RELEASE);
		}
		dyl_spin_unlock(&dyl_reg.lock);
	}
	return __atomic_load_n(&dyl_reg.state, __ATOMIC_ACQUIRE) == 1;
}

/* 1: this thread may use the table; 0: not now (re-entered from a signal handler that
 * interrupted it inside the table, or no memory) */
static int enter(void)
{
	if (in_table)
		return 0;
	in_table = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	int e = errno;
	if (!init()) {
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		in_table = 0;
		errno = e;
		return 0;
	}
	while (npending) {
		unsigned k = npending - 1;
		uintptr_t p = pending[k];
		uint64_t idk;
		npending = k;
		del(p, &idk);	/* (a snapshot of it is not kept: std.diff's sweep frees it) */
	}
	errno = e;
	return 1;
}

static void leave(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	in_table = 0;
}

void dyl_region_add(const void *p, size_t n, unsigned kind)
{
	unsigned uninit = kind & DYL_REGION_UNINIT, flags = kind;

	kind &= ~(DYL_REGION_UNINIT | DYL_REGION_REALLOC);
	if (!p || !n || !enter())
		return;
	uint64_t id = add((uintptr_t)p, n, kind);
	leave();
	void (*born)(uintptr_t, uint64_t, uint64_t);
	if (uninit && id && (born = __atomic_load_n(&dyl_reg.hooks.born, __ATOMIC_RELAXED)))
		born((uintptr_t)p, n, id);
	void (*added)(uintptr_t, uint64_t, uint64_t, unsigned);
	if (id && (added = __atomic_load_n(&dyl_reg.hooks.added, __ATOMIC_RELAXED)))
		added((uintptr_t)p, n, id, flags & ~DYL_REGION_UNINIT);
}

int64_t dyl_region_del(const void *p)
{
	if (!p)
		return -1;
	if (!enter()) {
		if (in_table && npending < PENDING)	/* a signal handler inside the table */
			pending[npending++] = (uintptr_t)p;
		return -1;
	}
	uint64_t idk;
	int64_t size = del((uintptr_t)p, &idk);
	leave();
	if (dyl_unlikely(idk & DYL_SLOT_KEPT)) {
		void (*died)(uintptr_t, uint64_t) = __atomic_load_n(&dyl_reg.hooks.died, __ATOMIC_RELAXED);
		DYL_ASSERT(died != NULL);	/* whoever marks a block installs it first */
		if (died)
			died((uintptr_t)p, idk >> 8);
	}
	void (*removed)(uintptr_t, uint64_t);
	if (size >= 0 && (removed = __atomic_load_n(&dyl_reg.hooks.removed, __ATOMIC_RELAXED)))
		removed((uintptr_t)p, idk >> 8);
	void (*freed)(uintptr_t, uint64_t);
	if (size >= DYL_FREED_BIG && (freed = __atomic_load_n(&dyl_reg.hooks.freed, __ATOMIC_RELAXED)))
		freed((uintptr_t)p, (uint64_t)size);
	return size;
}

/* The block holding P, the smallest if blocks overlap (a heap block inside an
 * allocator's own mapping): two probes per level in use, each under its shard's lock. */
static int find(uintptr_t p, struct dyl_region *r)
{
	uint64_t levels = __atomic_load_n(&dyl_reg.levels, __ATOMIC_RELAXED);
	struct dyl_shard *held = NULL;
	int found = 0;

	/* the probes of all levels up to 64 MiB fall in P's granule's shard (the one before,
	 * at most, for a pointer near a granule's start): the lock is kept from one probe
	 * to the next while the shard stays the same (a lock per probe cost 2 x 10 lock
	 * round trips for a pointer in a program with ten size classes), and only one is
	 * ever held */
	while (levels && !found) {
		unsigned l = (unsigned)__builtin_ctzll(levels);
		levels &= levels - 1;
		uint64_t g = p >> l;
		for (int back = 0; back < 2 && (back == 0 || g > 0) && !found; back++) {
			uint64_t key = ((g - (uint64_t)back) << 6) | l;
			struct dyl_shard *sh = shard_of(key);
			if (sh != held) {
				if (held)
					dyl_spin_unlock(&held->lock);
				dyl_spin_lock(&sh->lock);
				held = sh;
			}
			for (uint64_t i = home(sh, key); sh->slots[i].key; i = (i + 1) & sh->mask) {
				const struct dyl_slot *s = &sh->slots[i];
				if (s->key == key && s->start <= p && p - s->start < s->size) {
					*r = (struct dyl_region){ s->start, s->start + s->size,
								  (uint32_t)(s->id_kind & 0xff), s->id_kind >> 8, 0 };
					found = 1;
					break;
				}
			}
		}
	}
	if (held)
		dyl_spin_unlock(&held->lock);
	return found;
}

int dyl_table_find(uintptr_t p, struct dyl_region *r)
{
	if (!enter())
		return -1;
	int found = find(p, r);
	leave();
	return found;
}

void dyl_table_mark_kept(uintptr_t start, uint64_t id)
{
	if (!enter())
		return;
	struct dyl_shard *sh = shard_of(START_KEY(start));
	dyl_spin_lock(&sh->lock);
	uint64_t i = find_slot(sh, START_KEY(start), start);
	/* (the id: the block may have been freed and another made there meanwhile) */
	if (i != UINT64_MAX && sh->slots[i].id_kind >> 8 == id)
		sh->slots[i].id_kind |= DYL_SLOT_KEPT;
	dyl_spin_unlock(&sh->lock);
	leave();
}

void dyl_region_unmap(const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p, e = a + n;
	struct dyl_region r;

	if (!n || !enter())
		return;
	/* the common cases: the whole mapping, its head, its tail, a hole in it */
	while (find(a, &r) || find(e - 1, &r)) {
		uint64_t idk;
		if (r.kind != DYL_REGION_MMAP)
			break;
		del(r.start, &idk);
		if (r.start < a)
			add(r.start, a - r.start, DYL_REGION_MMAP);
		if (r.end > e)
			add(e, r.end - e, DYL_REGION_MMAP);
	}
	leave();
}

void dyl_regions_stats(struct dyl_regions_stats *s)
{
	s->regions = 0;
	for (int i = 0; i < DYL_SHARDS; i++)
		s->regions += __atomic_load_n(&dyl_reg.shards[i].regions, __ATOMIC_RELAXED);
	s->pointers = __atomic_load_n(&dyl_reg.pointers, __ATOMIC_RELAXED);
	s->unknown = __atomic_load_n(&dyl_reg.unknown, __ATOMIC_RELAXED);
	s->unwinds = __atomic_load_n(&dyl_reg.unwinds, __ATOMIC_RELAXED);
}

/* fork: the child must not inherit a lock another thread held */
static void before_fork(void)
{
	in_table++;
	dyl_spin_lock(&dyl_reg.lock);
	for (int i = 0; i < DYL_SHARDS; i++)
		dyl_spin_lock(&dyl_reg.shards[i].lock);
	dyl_spin_lock(&dyl_reg.seg_lock);
}

static void after_fork(void)
{
	dyl_spin_unlock(&dyl_reg.seg_lock);
	for (int i = DYL_SHARDS; i-- > 0;)
		dyl_spin_unlock(&dyl_reg.shards[i].lock);
	dyl_spin_unlock(&dyl_reg.lock);
	in_table--;
}

/* at start-up, in the order start.c gives */
void dyl_regions_start(void)
{
	pthread_atfork(before_fork, after_fork, after_fork);
}
