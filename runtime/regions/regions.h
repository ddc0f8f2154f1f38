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
	uint64_t id_kind;	/* id << 8 | kind (| DYL_SLOT_KEPT in the start entry) */
};
/* A feature keeps something of the block (std.diff: a snapshot): its free calls
 * dyl_reg.hooks.died, so that what was kept outlives the block (only the start entry,
 * which free reads anyway, carries it: the hot path pays one test) */
#define DYL_SLOT_KEPT 0x80u

/* What a feature above the table asks to hear of it (std.diff: diff.c), installed by
 * that feature's set-up; NULL: nobody asked.  The table knows no feature: it calls
 * these after its shard's lock is released, from the allocating thread.  Each pointer
 * costs the load and test that a flag would. */
struct dyl_groups;
struct dyl_region_hooks {
	/* a new heap block of N bytes at START (id ID) whose content is indeterminate
	 * (DYL_REGION_UNINIT) */
	void (*born)(uintptr_t start, uint64_t n, uint64_t id);
	/* the heap block at START with id ID, marked DYL_SLOT_KEPT, was freed */
	void (*died)(uintptr_t start, uint64_t id);
	/* a heap block of DYL_FREED_BIG bytes or more at START was freed */
	void (*freed)(uintptr_t start, uint64_t size);
	/* std.flow (runtime/flow/): every heap block or mapping added (KIND: its
	 * dyl_region_kind, with DYL_REGION_REALLOC when a realloc made it), and removed;
	 * and each charge's grouping, before it is released (from the charging thread) */
	void (*added)(uintptr_t start, uint64_t n, uint64_t id, unsigned kind);
	void (*removed)(uintptr_t start, uint64_t id);
	void (*charged)(const struct dyl_groups *c);
	/* std.flow, from std.diff's looks at an outermost call's buffers: [A, B) changed
	 * since the last look (AFTER 0: before the call, the program's doing) or during the
	 * call (AFTER 1), in address order, adjacent pieces joined */
	void (*changed)(uintptr_t a, uintptr_t b, int after);
};
#define DYL_FREED_BIG (32 * 4096)

struct dyl_seg {		/* a static segment */
	uintptr_t start, end;
	uint32_t obj;		/* its object's index in statics.c's list */
	uint32_t ro;		/* read-only (no PF_W) */
};

/* The region tracker's whole state: one per process, apart from the core's state (runtime/internal.h) so that it can
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
	int diff_on;		/* std.diff is set up: its looks say what changed (std.flow) */
	struct dyl_region_hooks hooks;	/* (atomic loads and stores) */
};

HIDDEN extern struct dyl_regions dyl_reg;

/* regions.c: the heap and mmap region holding P (0: none; -1: the table cannot be
 * used now, from a signal handler that interrupted this thread inside it) */
HIDDEN int dyl_table_find(uintptr_t p, struct dyl_region *r);
/* marks the heap block at START, if it still has id ID, with DYL_SLOT_KEPT */
HIDDEN void dyl_table_mark_kept(uintptr_t start, uint64_t id);
/* memory for the region code itself: never through the (interposed) mmap or malloc */
HIDDEN void *dyl_raw_map(size_t n);
HIDDEN void dyl_raw_unmap(void *p, size_t n);
HIDDEN void dyl_spin_lock(int *l);
HIDDEN void dyl_spin_unlock(int *l);

/* statics.c: the static object (or gap between objects) holding P (0: none) */
HIDDEN int dyl_static_find(uintptr_t p, struct dyl_region *r);
/* the loader's counts of objects loaded and unloaded so far (dlpi_adds, dlpi_subs): a
 * change says the list of objects may have changed */
HIDDEN void dyl_loader_counts(unsigned long long *adds, unsigned long long *subs);

/* stackframe.c */
struct dyl_frames {		/* the stack pointers of the calling frames, innermost first */
	int checked;		/* 0: not yet for this call (the frames may be the last call's) */
	int n;			/* frames unwound (for this call once checked) */
	int complete;		/* the walk went as far as it could (not stopped at maxp) */
	uintptr_t here;		/* where the walk started (its caller's frame address) */
	uintptr_t sp[64];
	uintptr_t data_end[64];	/* frame i's data: [sp[i], data_end[i]); above it, up to
				 * sp[i + 1], the registers it saved and its return address */
	uintptr_t ip[64];	/* where frame i's function is (a return address but for i = 0);
				 * its CFA is sp[i + 1] */
};
/* dyl_stack_frame's region is the data of a frame whose variables around P are not known
 * (no debug information): P's buffer may end sooner */
#define DYL_REGION_GUESS 0x100u
HIDDEN int dyl_stack_bounds(uintptr_t *lo, uintptr_t *hi);	/* the calling thread's stack */
/* The frame holding P (P in the thread's stack): unwinds into FR once, from the caller
 * of the charge up to the frame above MAXP. */
HIDDEN int dyl_stack_frame(uintptr_t p, uintptr_t maxp, struct dyl_frames *fr,
			   struct dyl_region *r);
/* stackvars.c: the variable holding P in the frame of the function at IP (a return
 * address) whose canonical frame address is CFA, from DWARF: [*LO, *HI), and *F64 = 1
 * when its type is double or an array of doubles (1; 0: not
 * known: no debug information, no libdw; 2: P is in no variable the debug information
 * names, and [*LO, *HI) is the room between the named ones around it, 0 and
 * UINTPTR_MAX where there are none) */
HIDDEN int dyl_stack_var(uintptr_t ip, uintptr_t cfa, uintptr_t p, uintptr_t *lo, uintptr_t *hi,
			  int *f64);
/* P in another thread's stack: up to the top of its frames (1; 0: none; -1: cannot look
 * now, from a signal handler that interrupted this thread changing the list) */
HIDDEN int dyl_stack_other(uintptr_t p, struct dyl_region *r);

/* charge.c: one call's pointer arguments grouped by the region they point into, for
 * the fast method (charge.c) and the full one (diff.c).  A region reached through
 * several pointers is one group, with the lowest const (input) pointer and the lowest
 * other (output) pointer into it, and where each class's buffers end: the highest end
 * of its pointers' bounds, the region's end as soon as one of them has none. */
#define DYL_GROUPS 256		/* distinct regions per call with deduplication */
struct dyl_group {
	struct dyl_region r;	/* a stack frame for stack pointers; end 0: slot free */
	uintptr_t min_in, min_out;	/* UINTPTR_MAX: no pointer of that class */
	uintptr_t end_in, end_out;	/* at most r.end; 0: no pointer of that class */
};
struct dyl_groups {
	struct dyl_frames fr;
	uintptr_t stack_lo, stack_hi;	/* the calling thread's stack */
	int have_stack;
	int incomplete;		/* some pointer could not be looked up: no estimate */
	unsigned ngroups;
	int64_t in, out;	/* regions past DYL_GROUPS, charged the fast way as they came */
	struct dyl_group g[DYL_GROUPS];	/* empty between calls: only used ones are cleared */
	uint16_t used[DYL_GROUPS];	/* the slots in use, in the order they were taken */
};
/* The calling thread's grouping of ARGS (arrays of pointers followed), or NULL when a
 * signal handler interrupted this thread inside a grouping; release it after use. */
HIDDEN struct dyl_groups *dyl_groups_collect(const struct dyl_rarg *args, unsigned n);
HIDDEN void dyl_groups_release(struct dyl_groups *c);

#endif
