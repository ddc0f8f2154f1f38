/* slots.h - the open-addressing index behind func_names.c, tids.c, samples.c and model2d.c: a table
 * of NSLOTS (a power of two) slots, each holding an item's index + 1 (0: empty), kept
 * at most half full by its caller.  Each caller keeps its own items, hashes and
 * compares its own keys, and probes linearly: (j + 1) & (nslots - 1). */
#ifndef SPEEDUP_SLOTS_H
#define SPEEDUP_SLOTS_H

#include <stddef.h>
#include <stdint.h>

/* Doubles *SLOTS (to FIRST slots when there are none) and places items 0..COUNT-1 again,
 * item i at HASH(CTX, i) masked to the new size.  0, or -1 out of memory (the old table
 * stays). */
int slots_grow(uint32_t **slots, size_t *nslots, size_t first, size_t count,
	       size_t (*hash)(const void *ctx, size_t i), const void *ctx);

#endif
