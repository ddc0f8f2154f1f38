/* regions.h - what the region files share (regions.c: the heap and mmap table;
 * statics.c: loaded objects' segments; stackframe.c: stacks and frames; charge.c: the
 * fast method).  Nothing here is exported. */
#ifndef DYL_REGIONS_PRIVATE_H
#define DYL_REGIONS_PRIVATE_H

#include <stdint.h>
#include "dyl_regions.h"
#include "internal.h"

/* One slot of the open-addressing table.  Each heap block or mapping has two entries:
 * one keyed by its start (free and munmap find it), one keyed by (level, start >> level)
 * where 2^level is the block's size rounded up to a power of two (a pointer inside it
 * finds it by probing two keys per level in use).  key 0: empty. */
struct dyl_slot {
	uint64_t key;
	uintptr_t start;
	uint64_t size;
	uint64_t id_kind;	/* id << 8 | kind */
};

struct dyl_seg {		/* a static segment */
	uintptr_t start, end;
	uint32_t obj;		/* its object's index in statics.c's list */
};

/* The region tracker's whole state: one per process, apart from dyl_rt so that it can
 * be used before the runtime is initialised (the first malloc comes before any
 * constructor). */
/* One shard of the table: an open-addressing hash table of its own, under its own lock
 * (on a cache line of its own: two threads allocating at once mostly meet different
 * shards). */
struct dyl_shard {
	int lock;		/* spin lock; never held around a call out */
	struct dyl_slot *slots;
	uint64_t mask;		/* slots - 1 */
	uint64_t used;		/* occupied slots */
	uint64_t regions;	/* blocks and mappings (their START entries) */
} __attribute__((aligned(64)));
#define DYL_SHARDS 16

struct dyl_regions {
	int lock;		/* first use: the shards' memory */
	int state;		/* 0: not yet, 1: ready, 2: off (no memory for the table) */
	struct dyl_shard shards[DYL_SHARDS];	/* an entry lives in the shard of its key */
	uint64_t next_id;	/* ids handed out, 4096 at a time per thread (atomic) */
	uint64_t levels;	/* bit L: some block had level L (atomic; never cleared) */
	/* statics.c */
	int seg_lock;
	struct dyl_seg *segs;
	uint32_t nsegs, seg_cap;
	unsigned long long seg_adds, seg_subs;	/* dl_iterate_phdr's counters at the last scan */
	/* charge.c */
	uint64_t pointers, unknown, unwinds;
	int heap_note;		/* dyl_regions_check_allocator ran */
};

HIDDEN extern struct dyl_regions dyl_reg;

/* regions.c: the heap and mmap region holding P (0: none; -1: the table cannot be
 * used now, from a signal handler that interrupted this thread inside it) */
HIDDEN int dyl_table_find(uintptr_t p, struct dyl_region *r);
/* memory for the region code itself: never through the (interposed) mmap or malloc */
HIDDEN void *dyl_raw_map(size_t n);
HIDDEN void dyl_raw_unmap(void *p, size_t n);
HIDDEN void dyl_spin_lock(int *l);
HIDDEN void dyl_spin_unlock(int *l);

/* statics.c: the static object (or gap between objects) holding P (0: none) */
HIDDEN int dyl_static_find(uintptr_t p, struct dyl_region *r);

/* stackframe.c */
struct dyl_frames {		/* the stack pointers of the calling frames, innermost first */
	int n;			/* -1: not unwound yet */
	uintptr_t sp[64];
};
HIDDEN int dyl_stack_bounds(uintptr_t *lo, uintptr_t *hi);	/* the calling thread's stack */
/* The frame holding P (P in the thread's stack): unwinds into FR once, from the caller
 * of the charge up to the frame above MAXP. */
HIDDEN void dyl_unwind_warm(void);	/* libunwind's own set-up, once, early */
HIDDEN int dyl_stack_frame(uintptr_t p, uintptr_t maxp, struct dyl_frames *fr,
			   struct dyl_region *r);
/* P in another thread's stack: up to the top of its frames (1; 0: none; -1: cannot look
 * now, from a signal handler that interrupted this thread changing the list) */
HIDDEN int dyl_stack_other(uintptr_t p, struct dyl_region *r);

#endif
