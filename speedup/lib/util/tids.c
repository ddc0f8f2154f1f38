/* tids.c - see tids.h.  Open addressing (slots.h), at most half full. */
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "slots.h"
#include "tids.h"

static size_t mix(uint64_t tid)
{
	return (size_t)((tid * 0x9e3779b97f4a7c15ull) >> 20);
}

static size_t hash(uint64_t tid, size_t nslots)
{
	return mix(tid) & (nslots - 1);
}

/* The unmasked hash: slots_grow masks it to the new size.  (Masked with SIZE_MAX - 1, as
 * it once was, it lost bit 0: past 32 threads, a thread placed on an even slot was looked
 * for from the odd one after it, and came back as a new thread.) */
static size_t hash_at(const void *ctx, size_t i)
{
	return mix(((const struct tids *)ctx)->tid[i]);
}

static int grow_slots(struct tids *t)
{
	return slots_grow(&t->slots, &t->nslots, 64, t->n, hash_at, t);
}

void *tids_get(struct tids *t, uint64_t tid, size_t item_size, int *fresh)
{
	size_t i;

	*fresh = 0;
	if (!t->slots && grow_slots(t) != 0)
		return NULL;
	for (i = hash(tid, t->nslots); t->slots[i]; i = (i + 1) & (t->nslots - 1))
		if (t->tid[t->slots[i] - 1] == tid)
			return tids_item(t, t->slots[i] - 1);
	if (t->n == t->room) {
		/* two arrays of one length: each grows from the same room */
		size_t room = t->room, ri = room;
		if (grow(&t->tid, sizeof(*t->tid), t->n, &room, 16) != 0 ||
		    grow(&t->items, item_size, t->n, &ri, 16) != 0)
			return NULL;
		t->room = room;
	}
	t->item_size = item_size;
	t->tid[t->n] = tid;
	t->slots[i] = (uint32_t)++t->n;
	if (t->n * 2 > t->nslots && grow_slots(t) != 0)
		return NULL;
	*fresh = 1;
	return memset(tids_item(t, t->n - 1), 0, item_size);
}

void tids_free(struct tids *t)
{
	free(t->items);
	free(t->tid);
	free(t->slots);
	t->items = NULL;
	t->tid = NULL;
	t->slots = NULL;
	t->n = t->room = t->nslots = 0;
}
