/* sources: speedup/lib/util/tids.c speedup/lib/util/slots.c speedup/lib/util/grow.c */
/* tids_test.c - the per-thread table (tids.h): every tid put in comes back as the same
 * item, however far the table grew (its slots are rehashed at each doubling).  Exits 0
 * when all checks pass; prints a line per failure. */
#include <stdint.h>
#include <stdio.h>
#include "tids.h"
#include "check.h"

int main(void)
{
	struct tids t = { 0 };
	int fresh;

	/* consecutive tids, as the kernel gives them, then scattered ones */
	for (uint64_t i = 0; i < 20000; i++) {
		uint64_t tid = i < 10000 ? 1000 + i : i * 7919;
		long *v = tids_get(&t, tid, sizeof(long), &fresh);
		CHECK_MSG(v && fresh, "tid %llu not new", (unsigned long long)tid);
		if (v)
			*v = (long)i;
	}
	for (uint64_t i = 0; i < 20000 && check_failures < 10; i++) {
		uint64_t tid = i < 10000 ? 1000 + i : i * 7919;
		long *v = tids_get(&t, tid, sizeof(long), &fresh);
		CHECK_MSG(v && !fresh && *v == (long)i, "tid %llu: fresh %d, item %ld", (unsigned long long)tid,
		      fresh, v ? *v : -1);
	}
	CHECK_MSG(t.n == 20000, "%zu tids", t.n);
	tids_free(&t);
	return check_failures ? 1 : 0;
}
