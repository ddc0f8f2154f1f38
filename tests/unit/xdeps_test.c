/* sources: speedup/dyl-speedup/timeline.c */
/* xdeps_test.c - the joins that dependencies between processes become (xdeps.h, jobs.c):
 * a lag of their own, and several on one interval (it ends at the latest).  Answers by
 * hand in the comments; times in ns. */
#include <math.h>
#include <string.h>
#include "timeline.h"
#include "check.h"

/* A (main) blocks 1000..9000 on B's end (lag 50) and on C's wake-up point (lag 20), one
 * interval; ends at 10000.  B calls 0..8000 (f 2000) and ends at 8000: predicted 2000.
 * C calls 0..4000 (f 1000), its point is at 6000 (predicted 3000), it ends at 7000
 * (4000).  The interval ends at max(2000 + 50, 3000 + 20) = 3020; A ends 5980 earlier
 * than measured: 4020.  The critical path: C from its start to its point, then A. */
static void test_group_ends_at_the_latest(void)
{
	struct tl_call cb = { 0, 8000, 2000, 0, 0 }, cc = { 0, 4000, 1000, 0, 0 };
	struct tl_wake w = { 6000, 0 };
	struct tl_join j[2] = {
		{ .call_ns = 1000, .ret_ns = 9000, .target = 1, .xdep = 1, .has_lag = 1,
		  .lag = 50, .more = 1 },
		{ .call_ns = 1000, .ret_ns = 9000, .target = 2, .wake = 1, .xdep = 1,
		  .has_lag = 1, .lag = 20 },
	};
	struct tl_thread th[3] = {
		{ .tid = 1, .creator = -1, .end_ns = 10000, .joins = j, .njoins = 2 },
		{ .tid = 2, .creator = -1, .end_ns = 8000, .calls = &cb, .ncalls = 1 },
		{ .tid = 3, .creator = -1, .end_ns = 7000, .calls = &cc, .ncalls = 1, .wakes = &w,
		  .nwakes = 1 },
	};
	struct timeline tl;

	memset(&tl, 0, sizeof(tl));
	tl.th = th, tl.n = 3;
	CHECK(timeline_run(&tl) == 0);
	CHECK_MSG(tl.end_ns == 4020, "T' %g", tl.end_ns);
	CHECK(j[0].pred_ret == 2050 && j[1].pred_ret == 3020);
	CHECK(!j[0].bound && j[1].bound);
	CHECK_MSG(tl.npath == 2 && tl.path[0].th == 2 && tl.path[0].to == 3000 &&
		  tl.path[1].th == 0 && tl.path[1].how == TL_HOW_WAKE, "path of %d", tl.npath);
	timeline_free(&tl);
}

/* The same with B's target unknown (-1) and C never reaching its point (ends at 5000
 * before it): the interval keeps what it can: B's member its measured time (9000 - 1000
 * after 1000: 9000), C's point at C's predicted end shift (6000 - 3000 = 3000, + 20).
 * The latest: 9000, A ends at 10000, as measured. */
static void test_group_member_without_target(void)
{
	struct tl_call cc = { 0, 4000, 1000, 0, 0 };
	struct tl_wake w = { 6000, 0 };
	struct tl_join j[2] = {
		{ .call_ns = 1000, .ret_ns = 9000, .target = -1, .xdep = 1, .has_lag = 1, .more = 1 },
		{ .call_ns = 1000, .ret_ns = 9000, .target = 2, .wake = 1, .xdep = 1,
		  .has_lag = 1, .lag = 20 },
	};
	struct tl_thread th[3] = {
		{ .tid = 1, .creator = -1, .end_ns = 10000, .joins = j, .njoins = 2 },
		{ .tid = 2, .creator = -1, .end_ns = 100 },
		{ .tid = 3, .creator = -1, .end_ns = 5000, .calls = &cc, .ncalls = 1, .wakes = &w,
		  .nwakes = 1 },
	};
	struct timeline tl;

	memset(&tl, 0, sizeof(tl));
	tl.th = th, tl.n = 3;
	CHECK(timeline_run(&tl) == 0);
	CHECK_MSG(tl.end_ns == 10000, "T' %g", tl.end_ns);
	CHECK_MSG(j[1].pred_ret == 3020, "C's member %g", j[1].pred_ret);
	timeline_free(&tl);
}

int main(void)
{
	test_group_ends_at_the_latest();
	test_group_member_without_target();
	return check_failures ? 1 : 0;
}
