/* flow_hash.c - see flow_hash.h. */
#include <stdlib.h>
#include "flow_hash.h"

static inline uint32_t mix(uint64_t a, uint64_t b)
{
	uint64_t x = a * UINT64_C(0x9E3779B97F4A7C15) ^ (b + UINT64_C(0x632BE59BD9B4E019));

	x ^= x >> 29;
	x *= UINT64_C(0xBF58476D1CE4E5B9);
	return (uint32_t)(x ^ (x >> 32));
}

static struct fh_slot *lookup(const struct flow_hash *h, uint64_t a, uint64_t b)
{
	if (!h->mask)
		return NULL;
	for (uint32_t i = mix(a, b) & h->mask;; i = (i + 1) & h->mask) {
		struct fh_slot *s = &h->slot[i];
		if (s->val == 0)
			return NULL;
		if (s->val != FH_DEAD && s->a == a && s->b == b)
			return s;
	}
}

int64_t fh_get(const struct flow_hash *h, uint64_t a, uint64_t b)
{
	const struct fh_slot *s = lookup(h, a, b);

	return s ? (int64_t)s->val - 1 : -1;
}

static void place(struct fh_slot *slot, uint32_t mask, uint64_t a, uint64_t b, uint32_t val)
{
	uint32_t i = mix(a, b) & mask;

	while (slot[i].val != 0)
		i = (i + 1) & mask;
	slot[i] = (struct fh_slot){ a, b, val };
}

/* Room for four times the live keys (at least 64 slots), the live keys moved, the
 * tombstones dropped: a table of blocks allocated and freed by the million stays small. */
static int rehash(struct flow_hash *h)
{
	uint32_t cap = 64, used = 0, live = 0;
	struct fh_slot *slot;

	for (uint32_t i = 0; h->mask && i <= h->mask; i++)
		live += h->slot[i].val && h->slot[i].val != FH_DEAD;
	while (cap < (uint64_t)live * 4 + 4)
		cap *= 2;
	if (!(slot = calloc(cap, sizeof(*slot))))
		return -1;

	if (!slot)
		return -1;
	for (uint32_t i = 0; h->mask && i <= h->mask; i++)
		if (h->slot[i].val && h->slot[i].val != FH_DEAD) {
			place(slot, cap - 1, h->slot[i].a, h->slot[i].b, h->slot[i].val);
			used++;
		}
	free(h->slot);
	h->slot = slot;
	h->mask = cap - 1;
	h->used = used;
	return 0;
}

int fh_put(struct flow_hash *h, uint64_t a, uint64_t b, uint32_t val)
{
	/* at most half full, tombstones counted: probes stay short */
	if ((h->used + 1) * 2 > h->mask + 1 && rehash(h) != 0)
		return -1;
	place(h->slot, h->mask, a, b, val + 1);
	h->used++;
	return 0;
}

void fh_free(struct flow_hash *h)
{
	free(h->slot);
	*h = (struct flow_hash){ 0 };
}

/* --- a block's small tables --- */

static inline uint32_t st_slot(uint64_t key, uint32_t mask)
{
	return (uint32_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 40) & mask;
}

/* Twice the room (4 slots the first time), the keys moved. */
static int st_grow(struct subtab *t)
{
	uint32_t cap = t->mask ? (t->mask + 1) * 2 : 4;
	struct fsub *e = malloc((size_t)cap * sizeof(*e));

	if (!e)
		return -1;
	for (uint32_t i = 0; i < cap; i++)
		e[i].key = FS_EMPTY;
	for (uint32_t i = 0; t->mask && i <= t->mask; i++)
		if (t->e[i].key != FS_EMPTY) {
			uint32_t k = st_slot(t->e[i].key, cap - 1);
			while (e[k].key != FS_EMPTY)
				k = (k + 1) & (cap - 1);
			e[k] = t->e[i];
		}
	free(t->e);
	t->e = e;
	t->mask = cap - 1;
	t->last = 0;
	return 0;
}

struct ivmap *st_get(struct subtab *t, uint64_t key)
{
	uint32_t k;

	if (t->last && t->e[t->last - 1].key == key)
		return &t->e[t->last - 1].map;
	if (t->mask)
		for (k = st_slot(key, t->mask); t->e[k].key != FS_EMPTY; k = (k + 1) & t->mask)
			if (t->e[k].key == key) {
				t->last = k + 1;
				return &t->e[k].map;
			}
	/* a new key */
	if ((t->n + 1) * 2 > (t->mask ? t->mask + 1 : 0) && st_grow(t) != 0)
		return NULL;
	for (k = st_slot(key, t->mask); t->e[k].key != FS_EMPTY; k = (k + 1) & t->mask)
		;
	t->e[k] = (struct fsub){ .key = key };
	t->n++;
	t->last = k + 1;
	return &t->e[k].map;
}

void st_free(struct subtab *t)
{
	for (uint32_t i = 0; t->mask && i <= t->mask; i++)
		if (t->e[i].key != FS_EMPTY)
			ivmap_free(&t->e[i].map);
	free(t->e);
	*t = (struct subtab){ 0 };
}
