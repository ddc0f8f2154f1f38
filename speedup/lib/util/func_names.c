/* func_names.c - the name -> id hash table (open addressing through slots.h, FNV-1a).
 *
 * A trace has a handful of distinct function names and millions of rows, so lookups
 * dominate: the table stays at most half full and compares the hash before the bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "func_names.h"
#include "grow.h"
#include "shown.h"
#include "slots.h"

static struct func *funcs;	/* by id */
static int nfuncs;
static size_t funcs_room;
static uint32_t *slots;		/* id + 1, 0 = empty (slots.h) */
static size_t nslots;

static unsigned long hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return (unsigned long)h;
}

static size_t hash_at(const void *ctx, size_t id)
{
	return funcs[id].hash;
}

static int grow_slots(void)
{
	return slots_grow(&slots, &nslots, 256, (size_t)nfuncs, hash_at, NULL);
}

int funcs_intern(const char *name, size_t len, int *added)
{
	unsigned long h = hash_bytes(name, len);
	size_t i;

	*added = 0;
	if (!slots && grow_slots() != 0)
		return -1;
	for (i = h & (nslots - 1); slots[i]; i = (i + 1) & (nslots - 1)) {
		struct func *f = &funcs[slots[i] - 1];
		if (f->hash == h && f->len == len && memcmp(f->name, name, len) == 0)
			return (int)slots[i] - 1;
	}
	if (grow(&funcs, sizeof(*funcs), (size_t)nfuncs, &funcs_room, 64) != 0)
		return -1;
	struct func *f = &funcs[nfuncs];
	f->name = malloc(len + 1);
	if (!f->name)
		return -1;
	memcpy(f->name, name, len);
	f->name[len] = '\0';
	f->len = len;
	if (!(f->shown = shown_keep(f->name, len))) {
		free(f->name);
		return -1;
	}
	f->hash = h;
	f->model = -1;
	f->handle_only = NULL;
	slots[i] = (uint32_t)++nfuncs;
	*added = 1;
	if ((size_t)nfuncs * 2 > nslots && grow_slots() != 0)
		return -1;
	return nfuncs - 1;
}

struct func *funcs_get(int id)
{
	return &funcs[id];
}

int funcs_count(void)
{
	return nfuncs;
}
