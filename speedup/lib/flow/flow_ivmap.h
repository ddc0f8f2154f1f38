/* flow_ivmap.h - an interval map over the bytes of one object: sorted, disjoint
 * segments [lo, hi) that each carry two numbers.  dyl-flow keeps one per heap block for
 * the last writers (who, when), one per (block, consumer) for the last reads, and one
 * per (producer, consumer, block) for the distinct bytes the pair moved.  Bytes no
 * segment covers are a gap: never written, never read.
 *
 * Most objects are written and read whole, so a map is one or a few segments: a
 * sorted array, binary search, memmove on change. */
#ifndef SPEEDUP_FLOW_IVMAP_H
#define SPEEDUP_FLOW_IVMAP_H

#include <stddef.h>
#include <stdint.h>

struct ivseg {
	uint64_t lo, hi;
	uint64_t who;	/* the writer's node (flow_engine.h), with IV_READ when read since */
	uint64_t when;	/* the engine's clock at the write or the read */
};
#define IV_READ (UINT64_C(1) << 63)

struct ivmap {
	struct ivseg *seg;
	uint32_t n, room;
};

/* Makes X a boundary (a segment over it is cut in two there): the index of the first
 * segment that starts at or after X.  -1: out of memory. */
int64_t ivmap_cut(struct ivmap *m, uint64_t x);
/* [LO, HI) becomes one segment (WHO, WHEN), over whatever was there; it joins a
 * neighbour that touches it and carries the same numbers.  0, or -1 out of memory. */
int ivmap_set(struct ivmap *m, uint64_t lo, uint64_t hi, uint64_t who, uint64_t when);
/* The bytes the segments cover. */
uint64_t ivmap_covered(const struct ivmap *m);
/* The bytes from SIZE on are dropped (a block shrunk): the bytes covered there. */
uint64_t ivmap_truncate(struct ivmap *m, uint64_t size);
/* The index of the first segment whose hi is above X. */
uint32_t ivmap_find(const struct ivmap *m, uint64_t x);
void ivmap_free(struct ivmap *m);

#endif
