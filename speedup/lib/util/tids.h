/* tids.h - what a reader keeps per thread: items of the caller's type, found by thread
 * id, numbered 0, 1, 2... in order of first sight. */
#ifndef SPEEDUP_TIDS_H
#define SPEEDUP_TIDS_H

#include <stddef.h>
#include <stdint.h>

struct tids {
	void *items;		/* n items of item_size bytes */
	size_t item_size;
	uint64_t *tid;		/* by index */
	size_t n, room;
	uint32_t *slots;	/* index + 1 by tid hash (open addressing) */
	size_t nslots;
};

/* TID's item of ITEM_SIZE bytes (the same at every call), zeroed and *FRESH = 1 when
 * the tid is new.  NULL: out of memory.  Items move when the table grows. */
void *tids_get(struct tids *t, uint64_t tid, size_t item_size, int *fresh);
/* The I-th item, I < T->n. */
static inline void *tids_item(const struct tids *t, size_t i)
{
	return (char *)t->items + i * t->item_size;
}
void tids_free(struct tids *t);

#endif
