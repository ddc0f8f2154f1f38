/* sources: speedup/lib/model/select.c speedup/lib/util/grow.c speedup/lib/util/slots.c speedup/lib/util/func_names.c speedup/lib/util/shown.c */
/* lib_test.c - the tools' library parts everything else stands on: the one quickselect
 * (select.h), the one growth helper (grow.h) and the one hash table (slots.h, and
 * func_names.c's name table over it).  Exits 0 when all checks pass; prints a line per
 * failure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "func_names.h"
#include "grow.h"
#include "select.h"
#include "slots.h"
#include "check.h"

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Every K of arrays of many sizes and spreads (few distinct values: many equal to the
 * pivot), against qsort; and the partition select_kth promises. */
static void test_select(void)
{
	unsigned seed = 1;
	int64_t v[200], sorted[200];

	for (size_t n = 1; n <= 200; n += (n < 20 ? 1 : 13)) {
		for (int spread = 1; spread <= 1000; spread *= 10) {
			for (size_t i = 0; i < n; i++)
				sorted[i] = (int64_t)(rand_r(&seed) % spread) - spread / 2;
			qsort(sorted, n, sizeof(*sorted), by_value);
			for (size_t k = 0; k < n; k++) {
				memcpy(v, sorted, n * sizeof(*v));
				for (size_t i = n - 1; i > 0; i--) {	/* shuffled */
					size_t j = (size_t)rand_r(&seed) % (i + 1);
					int64_t x = v[i];
					v[i] = v[j], v[j] = x;
				}
				int64_t got = select_kth(v, n, k);
				CHECK_MSG(got == sorted[k] && v[k] == sorted[k],
				      "select_kth n=%zu k=%zu: %lld, want %lld", n, k, (long long)got,
				      (long long)sorted[k]);
				for (size_t i = 0; i < n; i++)
					CHECK_MSG(i < k ? v[i] <= v[k] : v[i] >= v[k],
					      "select_kth n=%zu k=%zu: v[%zu] on the wrong side", n, k, i);
			}
			memcpy(v, sorted, n * sizeof(*v));
			double want = n % 2 ? (double)sorted[n / 2]
					    : ((double)sorted[n / 2 - 1] + (double)sorted[n / 2]) / 2;
			CHECK_MSG(select_median(v, n) == want, "select_median n=%zu: %g, want %g", n,
			      select_median(v, n), want);
		}
	}
	int64_t two[] = { 7, 2 }, one[] = { 5 };
	CHECK_MSG(select_median(two, 2) == 4.5, "median of {7, 2}: %g", select_median(two, 2));
	CHECK_MSG(select_median(one, 1) == 5, "median of {5}: %g", select_median(one, 1));
	CHECK_MSG(select_median(NULL, 0) == -1, "median of nothing: %g", select_median(NULL, 0));
}

static void test_grow(void)
{
	int *a = NULL;
	size_t room = 0;

	for (size_t n = 0; n < 1000; n++) {
		if (grow(&a, sizeof(*a), n, &room, 16) != 0) {
			CHECK_MSG(0, "grow: out of memory at %zu", n);
			return;
		}
		CHECK_MSG(room > n && (room == 16 || room % 16 == 0), "grow: room %zu for %zu items", room, n);
		a[n] = (int)n * 3;
	}
	CHECK_MSG(room == 1024, "grow: room %zu after 1000 appends from 16 (doubling: 1024)", room);
	for (size_t n = 0; n < 1000; n++)
		CHECK_MSG(a[n] == (int)n * 3, "grow: item %zu is %d", n, a[n]);
	free(a);

	/* grow_to: room for an index met in any order, new items zeroed */
	long *b = NULL;
	size_t broom = 0;
	CHECK_MSG(grow_to(&b, sizeof(*b), 5, &broom, 8) == 0 && broom == 8, "grow_to 5: room %zu", broom);
	for (size_t i = 0; i < broom; i++)
		CHECK_MSG(b[i] == 0, "grow_to: item %zu not zeroed", i);
	b[7] = 77;
	CHECK_MSG(grow_to(&b, sizeof(*b), 3, &broom, 8) == 0 && broom == 8 && b[7] == 77,
	      "grow_to 3 (room 8): room %zu", broom);
	CHECK_MSG(grow_to(&b, sizeof(*b), 100, &broom, 8) == 0 && broom == 128, "grow_to 100: room %zu",
	      broom);
	CHECK_MSG(b[7] == 77, "grow_to: item 7 lost (%ld)", b[7]);
	for (size_t i = 8; i < broom; i++)
		CHECK_MSG(b[i] == 0, "grow_to: new item %zu not zeroed", i);
	free(b);
}

/* The hash table: items placed by slots_grow are each found by probing from their hash,
 * once, also when many share a hash. */
static uint64_t keys[3000];

static size_t key_hash(const void *ctx, size_t i)
{
	const uint64_t *k = ctx;
	return (size_t)(k[i] % 61);	/* few hashes: long probe chains */
}

static void test_slots(void)
{
	uint32_t *slots = NULL;
	size_t nslots = 0, n = 0;

	for (size_t i = 0; i < 3000; i++) {
		keys[i] = i * 2654435761u;
		if (2 * (n + 1) > nslots && slots_grow(&slots, &nslots, 64, n, key_hash, keys) != 0) {
			CHECK_MSG(0, "slots_grow: out of memory");
			return;
		}
		size_t j = key_hash(keys, i) & (nslots - 1);
		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = (uint32_t)++n;
	}
	CHECK_MSG(nslots >= 2 * n && (nslots & (nslots - 1)) == 0, "slots: %zu slots for %zu items",
	      nslots, n);
	for (size_t i = 0; i < n; i++) {
		size_t j = key_hash(keys, i) & (nslots - 1), seen = 0;
		for (; slots[j]; j = (j + 1) & (nslots - 1))
			seen += slots[j] == i + 1;
		CHECK_MSG(seen == 1, "slots: item %zu found %zu times from its hash", i, seen);
	}
	size_t used = 0;
	for (size_t j = 0; j < nslots; j++)
		used += slots[j] != 0;
	CHECK_MSG(used == n, "slots: %zu slots used for %zu items", used, n);
	free(slots);

	/* func_names.c's names over it: ids in order of first sight, the same id again after the
	 * table has grown many times */
	char name[32];
	int added;
	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "f%d_", i);
		int id = funcs_intern(name, strlen(name), &added);
		CHECK_MSG(id == i && added == 1, "funcs_intern %s: id %d added %d", name, id, added);
	}
	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "f%d_xyz", i);	/* only the first LEN bytes count */
		int id = funcs_intern(name, strlen(name) - 3, &added);
		CHECK_MSG(id == i && added == 0, "funcs_intern %s again: id %d added %d", name, id, added);
		CHECK_MSG(strcmp(funcs_get(i)->name, (name[strlen(name) - 3] = 0, name)) == 0,
		      "funcs_get(%d): %s", i, funcs_get(i)->name);
	}
	CHECK_MSG(funcs_count() == 2000, "funcs_count: %d", funcs_count());
}

int main(void)
{
	test_select();
	test_grow();
	test_slots();
	return check_failures ? 1 : 0;
}
