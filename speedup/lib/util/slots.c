/* slots.c - see slots.h. */
#include <stdlib.h>
#include "slots.h"

int slots_grow(uint32_t **slots, size_t *nslots, size_t first, size_t count,
	       size_t (*hash)(const void *ctx, size_t i), const void *ctx)
{
	size_t n = *nslots ? *nslots * 2 : first;
	uint32_t *fresh = calloc(n, sizeof(*fresh));

	if (!fresh)
		return -1;
	for (size_t i = 0; i < count; i++) {
		size_t j = hash(ctx, i) & (n - 1);
		while (fresh[j])
			j = (j + 1) & (n - 1);
		fresh[j] = (uint32_t)i + 1;
	}
	free(*slots);
	*slots = fresh;
	*nslots = n;
	return 0;
}
