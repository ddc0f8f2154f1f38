/* flow_hash.h - a hash table from a key of two numbers to an index (into an array the
 * caller keeps): dyl-flow's pairs (producer, consumer), (node, object), (block,
 * consumer) and (producer, consumer, block).  Open addressing, linear probing; a
 * removed key leaves a tombstone until the table next grows. */
#ifndef SPEEDUP_FLOW_HASH_H
#define SPEEDUP_FLOW_HASH_H

#include <stdint.h>

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
/* Removes (A, B) if there. */
void fh_del(struct flow_hash *h, uint64_t a, uint64_t b);
void fh_free(struct flow_hash *h);

#endif
