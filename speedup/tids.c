/* tids.c - see tids.h.  Open addressing, at most half full. */
#include <stdlib.h>
#include <string.h>
#include "tids.h"

static size_t hash(uint64_t tid, size_t nslots)
{
	return (size_t)((tid * 0x9e3779b97f4a7c15ull) >> 20) & (nslots - 1);
}

static int grow_slots(struct tids *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 64;
	uint32_t *fresh = calloc(n, sizeof(*fresh));

	if (!fresh)
		return -1;
	for (size_t k = 0; k < t->n; k++) {
		size_t i = hash(t->tid[k], n);
		while (fresh[i])
			i = (i + 1) & (n - 1);
		fresh[i] = (uint32_t)k + 1;
	}
	free(t->slots);
	t->slots = fresh;
	t->nslots = n;
	return 0;
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
		size_t room = t->room ? t->room * 2 : 16;
		uint64_t *tids = realloc(t->tid, room * sizeof(*tids));
		if (!tids)
			return NULL;
		t->tid = tids;
		void *items = realloc(t->items, room * item_size);
		if (!items)
			return NULL;
		t->items = items;
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
