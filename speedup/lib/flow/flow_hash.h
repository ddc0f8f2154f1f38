/* flow_hash.h - a hash table from a key of two numbers to an index (into an array the
 * caller keeps): dyl-flow's pairs (producer, consumer) and (node, object) past the
 * direct tables, and objects by (name hash, kind).  Open addressing, linear probing;
 * keys are never removed (FH_DEAD, a removed key's tombstone, is no longer made: the
 * per-block maps that were removed by the million have tables of their own, below). */
#ifndef SPEEDUP_FLOW_HASH_H
#define SPEEDUP_FLOW_HASH_H

#include <stdint.h>
#include "flow_ivmap.h"

struct fh_slot {
	uint64_t a, b;
	uint32_t val;	/* the index + 1; 0: empty; FH_DEAD: removed */
};
#define FH_DEAD UINT32_MAX

struct flow_hash {
	struct fh_slot *slot;
	uint32_t mask;		/* capacity - 1 (a power of two), 0 before the first put */
	uint32_t used;		/* keys plus tombstones */
};

/* The index kept for (A, B), or -1. */
int64_t fh_get(const struct flow_hash *h, uint64_t a, uint64_t b);
/* Keeps VAL (below FH_DEAD - 1) for (A, B), a key not there yet.  0, or -1 out of memory. */
int fh_put(struct flow_hash *h, uint64_t a, uint64_t b, uint32_t val);
void fh_free(struct flow_hash *h);

/* A block's own small table from a 64-bit key to an interval map: the last reads of
 * each consumer of the block, or the distinct bytes of each producer -> consumer pair
 * on it.  A block has a few such maps and is read again and again: a table of its own
 * stays in the cache where one table of every block's maps did not (15 % of the time
 * went to its lookups), and it goes whole when the block is freed (no tombstones).
 * Open addressing, linear probing, at most half full. */
struct fsub {
	uint64_t key;		/* FS_EMPTY: a free slot */
	struct ivmap map;
};
#define FS_EMPTY UINT64_MAX

struct subtab {
	struct fsub *e;
	uint32_t n, mask;	/* keys; capacity - 1 (0 before the first key) */
	uint32_t last;		/* the slot last found, + 1 (0: none) */
};

/* The map of KEY (not FS_EMPTY), made empty if new: valid until the next st_get on the
 * same table.  NULL: out of memory. */
struct ivmap *st_get(struct subtab *t, uint64_t key);
/* Frees every map and the table. */
void st_free(struct subtab *t);

#endif
