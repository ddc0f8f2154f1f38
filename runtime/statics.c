/* statics.c - static data: every loaded object's non-executable PT_LOAD segments (its
 * data and bss, its read-only data), found with dl_iterate_phdr.
 *
 * The list is rescanned when a lookup misses and the loader's counters of added and
 * removed objects (dlpi_adds, dlpi_subs) moved since the last scan: a dlopen'ed
 * module's data is found without interposing dlopen.  The scan runs without any of our
 * locks held (dl_iterate_phdr takes the loader's lock, and a thread holding that lock
 * may be in malloc, waiting for our table); the new list is built in fresh memory and
 * swapped in under seg_lock.
 */
#define _GNU_SOURCE
#include <link.h>
#include <string.h>
#include "regions.h"

struct scan {
	struct dyl_seg *segs;
	uint32_t n, cap;
	unsigned long long adds, subs;
};

static int counters(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan *s = data;

	s->adds = info->dlpi_adds;
	s->subs = info->dlpi_subs;
	return 1;	/* the counters are the same in every callback: one is enough */
}

static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan *s = data;

	s->adds = info->dlpi_adds;
	s->subs = info->dlpi_subs;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		/* code is no data; a callback's pointer into it counts nothing */
		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_X) || !ph->p_memsz)
			continue;
		if (s->n == s->cap)
			return 1;	/* a bigger list is tried again */
		s->segs[s->n++] = (struct dyl_seg){ info->dlpi_addr + ph->p_vaddr,
						    info->dlpi_addr + ph->p_vaddr + ph->p_memsz };
	}
	return 0;
}

/* insertion sort: the loader's order is nearly sorted already, and qsort may allocate */
static void sort(struct dyl_seg *v, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		struct dyl_seg x = v[i];
		uint32_t j = i;
		for (; j > 0 && v[j - 1].start > x.start; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static void rescan(void)
{
	struct scan s = { 0 };
	uint32_t cap = dyl_reg.seg_cap ? dyl_reg.seg_cap : 256;

	for (;;) {
		s.segs = dyl_raw_map(cap * sizeof(*s.segs));
		if (!s.segs)
			return;
		s.n = 0;
		s.cap = cap;
		dl_iterate_phdr(collect, &s);
		if (s.n < cap)
			break;
		dyl_raw_unmap(s.segs, cap * sizeof(*s.segs));
		cap *= 2;
	}
	sort(s.segs, s.n);
	dyl_spin_lock(&dyl_reg.seg_lock);
	struct dyl_seg *old = dyl_reg.segs;
	uint32_t oldcap = dyl_reg.seg_cap;
	dyl_reg.segs = s.segs;
	dyl_reg.nsegs = s.n;
	dyl_reg.seg_cap = cap;
	dyl_reg.seg_adds = s.adds;
	dyl_reg.seg_subs = s.subs;
	dyl_spin_unlock(&dyl_reg.seg_lock);
	if (old)
		dyl_raw_unmap(old, oldcap * sizeof(*old));
}

/* also gives the loader's counters at the last scan (0, 0 before the first) */
static int search(uintptr_t p, struct dyl_region *r, unsigned long long *adds,
		  unsigned long long *subs)
{
	int found = 0;

	dyl_spin_lock(&dyl_reg.seg_lock);
	*adds = dyl_reg.seg_adds;
	*subs = dyl_reg.seg_subs;
	uint32_t lo = 0, hi = dyl_reg.nsegs;
	while (lo < hi) {	/* the last segment starting at or below p */
		uint32_t mid = lo + (hi - lo) / 2;
		if (dyl_reg.segs[mid].start <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && p < dyl_reg.segs[lo - 1].end) {
		*r = (struct dyl_region){ dyl_reg.segs[lo - 1].start, dyl_reg.segs[lo - 1].end,
					  DYL_REGION_STATIC, 0 };
		found = 1;
	}
	dyl_spin_unlock(&dyl_reg.seg_lock);
	return found;
}

int dyl_static_find(uintptr_t p, struct dyl_region *r)
{
	unsigned long long adds, subs;

	if (search(p, r, &adds, &subs))
		return 1;
	struct scan now = { 0 };
	dl_iterate_phdr(counters, &now);
	if (now.adds == adds && now.subs == subs)
		return 0;
	rescan();
	return search(p, r, &adds, &subs);
}
