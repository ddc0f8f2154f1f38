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
 * Threads: one spin lock, held only over the table (no call out, no allocation inside:
 * the table's memory comes from the mmap system call directly), so holding it is short
 * and fork can take it.  Signals: a handler that frees while its thread is inside the
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

void *dyl_raw_map(size_t n)
{
	/* the raw system call: the wrapper interposes mmap, and this memory must not become
	 * a region (nor recurse into the table) */
	long r = syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return r == -1 ? NULL : (void *)r;
}

void dyl_raw_unmap(void *p, size_t n)
{
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
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

static unsigned level_of(uint64_t size)
{
	unsigned l = size <= 1 ? 0 : 64 - (unsigned)__builtin_clzll(size - 1);
	return l < MIN_LEVEL ? MIN_LEVEL : l;
}

static inline uint64_t home(uint64_t key)
{
	return (key * 0x9E3779B97F4A7C15ull >> 29) & dyl_reg.mask;
}

/* table lock held */
static void put(uint64_t key, uintptr_t start, uint64_t size, uint64_t id_kind)
{
	uint64_t i = home(key);

	while (dyl_reg.slots[i].key)
		i = (i + 1) & dyl_reg.mask;
	dyl_reg.slots[i] = (struct dyl_slot){ key, start, size, id_kind };
	dyl_reg.used++;
}

/* backward-shift deletion: keeps every entry reachable from its home without tombstones */
static void erase_at(uint64_t i)
{
	struct dyl_slot *s = dyl_reg.slots;
	uint64_t m = dyl_reg.mask;

	for (;;) {
		uint64_t j = i;
		for (;;) {
			j = (j + 1) & m;
			if (!s[j].key) {
				s[i].key = 0;
				dyl_reg.used--;
				return;
			}
			uint64_t h = home(s[j].key);
			int stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
			if (!stays) {
				s[i] = s[j];
				i = j;
				break;
			}
		}
	}
}

static uint64_t find_slot(uint64_t key, uintptr_t start)
{
	for (uint64_t i = home(key);; i = (i + 1) & dyl_reg.mask) {
		if (!dyl_reg.slots[i].key)
			return UINT64_MAX;
		if (dyl_reg.slots[i].key == key && dyl_reg.slots[i].start == start)
			return i;
	}
}

static int grow(void)
{
	uint64_t n = (dyl_reg.mask + 1) * 2;
	uint64_t oldn = dyl_reg.mask + 1;
	int e = errno;
	struct dyl_slot *old = dyl_reg.slots, *s = dyl_raw_map(n * sizeof(*s));

	errno = e;
	if (!s)
		return -1;
	dyl_reg.slots = s;
	dyl_reg.mask = n - 1;
	dyl_reg.used = 0;
	for (uint64_t i = 0; i < oldn; i++)
		if (old[i].key)
			put(old[i].key, old[i].start, old[i].size, old[i].id_kind);
	dyl_raw_unmap(old, oldn * sizeof(*old));
	return 0;
}

/* table lock held; removes the block starting at START; its size, or -1 */
static int64_t del_locked(uintptr_t start)
{
	uint64_t i = find_slot(START_KEY(start), start);

	if (i == UINT64_MAX)
		return -1;
	uint64_t size = dyl_reg.slots[i].size;
	erase_at(i);
	unsigned l = level_of(size);
	i = find_slot(LEVEL_KEY(start, l), start);
	if (i != UINT64_MAX)
		erase_at(i);
	if (--dyl_reg.per_level[l] == 0)
		dyl_reg.levels &= ~(1ull << l);
	dyl_reg.regions--;
	return (int64_t)size;
}

static void add_locked(uintptr_t start, uint64_t size, unsigned kind)
{
	/* a block the table still holds at this address was freed unseen (by a signal
	 * handler, say): the new one replaces it */
	del_locked(start);
	if ((dyl_reg.used + 2) * 2 > dyl_reg.mask + 1 && grow() < 0)
		return;
	unsigned l = level_of(size);
	uint64_t idk = ++dyl_reg.next_id << 8 | kind;
	put(START_KEY(start), start, size, idk);
	put(LEVEL_KEY(start, l), start, size, idk);
	dyl_reg.per_level[l]++;
	dyl_reg.levels |= 1ull << l;
	dyl_reg.regions++;
}

static int init_locked(void)
{
	if (dyl_reg.state == 0) {
		dyl_reg.slots = dyl_raw_map(FIRST_SLOTS * sizeof(struct dyl_slot));
		dyl_reg.mask = FIRST_SLOTS - 1;
		dyl_reg.state = dyl_reg.slots ? 1 : 2;
	}
	return dyl_reg.state == 1;
}

/* 1: the table is locked for this thread; 0: it cannot be used now (re-entered from a
 * signal handler, or no memory) */
static int enter(void)
{
	if (in_table)
		return 0;
	in_table = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	int e = errno;
	dyl_spin_lock(&dyl_reg.lock);
	if (!init_locked()) {
		dyl_spin_unlock(&dyl_reg.lock);
		in_table = 0;
		errno = e;
		return 0;
	}
	while (npending) {
		unsigned k = npending - 1;
		uintptr_t p = pending[k];
		npending = k;
		del_locked(p);
	}
	errno = e;
	return 1;
}

static void leave(void)
{
	dyl_spin_unlock(&dyl_reg.lock);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	in_table = 0;
}

void dyl_region_add(const void *p, size_t n, unsigned kind)
{
	if (!p || !n || !enter())
		return;
	add_locked((uintptr_t)p, n, kind);
	leave();
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
	int64_t size = del_locked((uintptr_t)p);
	leave();
	return size;
}

/* table lock held: the block holding P, the smallest if blocks overlap (a heap block
 * inside an allocator's own mapping) */
static int find_locked(uintptr_t p, struct dyl_region *r)
{
	uint64_t levels = dyl_reg.levels;

	while (levels) {
		unsigned l = (unsigned)__builtin_ctzll(levels);
		levels &= levels - 1;
		uint64_t g = p >> l;
		for (int back = 0; back < 2 && (back == 0 || g > 0); back++) {
			uint64_t key = ((g - (uint64_t)back) << 6) | l;
			for (uint64_t i = home(key); dyl_reg.slots[i].key; i = (i + 1) & dyl_reg.mask) {
				const struct dyl_slot *s = &dyl_reg.slots[i];
				if (s->key == key && s->start <= p && p - s->start < s->size) {
					*r = (struct dyl_region){ s->start, s->start + s->size,
								  (uint32_t)(s->id_kind & 0xff), s->id_kind >> 8 };
					return 1;
				}
			}
		}
	}
	return 0;
}

int dyl_table_find(uintptr_t p, struct dyl_region *r)
{
	if (!enter())
		return -1;
	int found = find_locked(p, r);
	leave();
	return found;
}

void dyl_region_unmap(const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p, e = a + n;
	struct dyl_region r;

	if (!n || !enter())
		return;
	/* the common cases: the whole mapping, its head, its tail, a hole in it */
	while (find_locked(a, &r) || find_locked(e - 1, &r)) {
		if (r.kind != DYL_REGION_MMAP)
			break;
		del_locked(r.start);
		if (r.start < a)
			add_locked(r.start, a - r.start, DYL_REGION_MMAP);
		if (r.end > e)
			add_locked(e, r.end - e, DYL_REGION_MMAP);
	}
	leave();
}

void dyl_regions_stats(struct dyl_regions_stats *s)
{
	s->regions = __atomic_load_n(&dyl_reg.regions, __ATOMIC_RELAXED);
	s->pointers = __atomic_load_n(&dyl_reg.pointers, __ATOMIC_RELAXED);
	s->unknown = __atomic_load_n(&dyl_reg.unknown, __ATOMIC_RELAXED);
	s->unwinds = __atomic_load_n(&dyl_reg.unwinds, __ATOMIC_RELAXED);
}

/* fork: the child must not inherit a lock another thread held */
static void before_fork(void)
{
	in_table++;
	dyl_spin_lock(&dyl_reg.lock);
	dyl_spin_lock(&dyl_reg.seg_lock);
}

static void after_fork(void)
{
	dyl_spin_unlock(&dyl_reg.seg_lock);
	dyl_spin_unlock(&dyl_reg.lock);
	in_table--;
}

__attribute__((constructor)) static void regions_constructor(void)
{
	pthread_atfork(before_fork, after_fork, after_fork);
}
