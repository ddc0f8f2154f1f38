/* sources: speedup/dyl-speedup/timeline.c */
/* timeline_test.c - the timeline arithmetic (timeline.h) on hand-made threads, each
 * answer worked out by hand in the comments.  Times in ns; a model with f = t / 4 unless
 * said.  Exits 0 when all checks pass; prints a line per failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "timeline.h"
#include "check.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-6)

/* Thread TID created by CREATOR (an index, -1 none) at C, started at S, ended at E. */
static struct tl_thread thread(uint64_t tid, int creator, int64_t c, int64_t s, int64_t e)
{
	return (struct tl_thread){ .tid = tid, .creator = creator, .create_ns = c, .start_ns = s,
				   .end_ns = e };
}

static void run(struct timeline *tl, struct tl_thread *th, int n, int devices)
{
	memset(tl, 0, sizeof(*tl));
	tl->th = th;
	tl->n = n;
	tl->devices = devices;
	CHECK_MSG(timeline_run(tl) == 0, "timeline_run failed");
}

/* One thread: T' = T - sum t + sum f, Amdahl's answer, whatever the devices. */
static void test_one_thread(void)
{
	struct tl_call c[50];
	struct tl_thread th[1];
	struct timeline tl;
	int64_t at = 1000, sum_t = 0;
	double sum_f = 0;

	for (int i = 0; i < 50; i++) {
		c[i] = (struct tl_call){ at, 1000 + 37 * i, (1000 + 37 * i) / 3.7 };
		sum_t += c[i].t;
		sum_f += c[i].f;
		at += c[i].t + 500;
	}
	for (int devices = 0; devices <= 1; devices++) {
		th[0] = thread(1, -1, 0, 0, at + 123456789);
		th[0].calls = c;
		th[0].ncalls = 50;
		run(&tl, th, 1, devices);
		double amdahl = (double)(at + 123456789) - (double)sum_t + sum_f;
		CHECK_MSG(NEAR(tl.end_ns, amdahl), "one thread: %.17g, Amdahl %.17g", tl.end_ns, amdahl);
		CHECK_MSG(tl.queue_wait_ns == 0, "one thread waits for itself: %g", tl.queue_wait_ns);
		timeline_free(&tl);
	}
	/* the accelerator's set-up delays the first call: T' + 50 */
	th[0] = thread(1, -1, 0, 0, 10000);
	th[0].calls = c;
	th[0].ncalls = 1;
	memset(&tl, 0, sizeof(tl));
	tl.th = th, tl.n = 1, tl.setup_ns = 50;
	CHECK_MSG(timeline_run(&tl) == 0, "run");
	CHECK_MSG(NEAR(tl.end_ns, 10000 - 1000 + 1000 / 3.7 + 50), "set-up: %.17g", tl.end_ns);
	timeline_free(&tl);
}

/* Main (100) creates 101 at 1000 (it starts at 1100), calls at 2000 for 10000 (f 2500),
 * joins 101 from 12500 to 21600; 101 calls at 1200 for 20000 (f 5000), ends at 21500;
 * the process ends at 22000.  Unlimited: 101 ends at 1200 + 5000 + 300 = 6500; main
 * reaches the join at 2000 + 2500 + 500 = 5000, waits till 6500, + the join's cost
 * 21600 - 21500 = 100: 6600, + 400: T' = 7000.  One device: main's call arrives at 2000,
 * the device is busy till 6200: it waits 4200 and ends at 8700; the join at 9200 finds 101
 * ended (6500): + 100 = 9300, + 400: T' = 9700. */
static void test_call_then_join(void)
{
	struct tl_call m[] = { { 2000, 10000, 2500 } }, k[] = { { 1200, 20000, 5000 } };
	struct tl_join j[] = { { .call_ns = 12500, .ret_ns = 21600, .target = 1 } };
	struct tl_thread th[2];
	struct timeline tl;

	for (int devices = 0; devices <= 1; devices++) {
		th[0] = thread(100, -1, 0, 0, 22000);
		th[0].calls = m, th[0].ncalls = 1, th[0].joins = j, th[0].njoins = 1;
		th[1] = thread(101, 0, 1000, 1100, 21500);
		th[1].calls = k, th[1].ncalls = 1;
		run(&tl, th, 2, devices);
		CHECK_MSG(NEAR(tl.end_ns, devices ? 9700 : 7000), "call then join, devices %d: %.17g",
		      devices, tl.end_ns);
		CHECK_MSG(NEAR(tl.queue_wait_ns, devices ? 4200 : 0), "waited %g", tl.queue_wait_ns);
		CHECK_MSG(NEAR(th[1].pstart, 1100) && NEAR(th[1].pend, 6500), "101: %g..%g",
		      th[1].pstart, th[1].pend);
		CHECK_MSG(j[0].bound == !devices, "the join waited for 101: %d", j[0].bound);
		/* the critical path: main to 1000, 101 from its start, main after the join;
		 * with one device main never waits for 101: main alone */
		CHECK_MSG(tl.npath == (devices ? 1 : 3), "path of %d steps", tl.npath);
		if (!devices && tl.npath == 3)
			CHECK_MSG(tl.path[1].th == 1 && NEAR(tl.path[1].from, 1100) &&
			      NEAR(tl.path[1].to, 6500) && tl.path[2].how == TL_HOW_JOIN &&
			      NEAR(tl.path[2].from, 6500) && NEAR(tl.path[0].to, 1000),
			      "path: %d %g..%g", tl.path[1].th, tl.path[1].from, tl.path[1].to);
		timeline_free(&tl);
	}
}

/* A thread starts where its creator is on the prediction: main calls at 0 for 4000 (f
 * 1000: 3000 earlier from then on), creates 101 at 5000 (it starts at 5100: 2100 on the
 * prediction), joins it from 5500 to 7400; 101 calls at 5200 for 2000 (f 500: 2200..2700)
 * and ends at 7300: 2800; main's join, reached at 2500, returns at 2800 + 100; the
 * process ends at 8000: T' = 3500. */
static void test_start_follows_creator(void)
{
	struct tl_call m[] = { { 0, 4000, 1000 } }, k[] = { { 5200, 2000, 500 } };
	struct tl_join j[] = { { .call_ns = 5500, .ret_ns = 7400, .target = 1 } };
	struct tl_thread th[2];
	struct timeline tl;

	th[0] = thread(100, -1, 0, 0, 8000);
	th[0].calls = m, th[0].ncalls = 1, th[0].joins = j, th[0].njoins = 1;
	th[1] = thread(101, 0, 5000, 5100, 7300);
	th[1].calls = k, th[1].ncalls = 1;
	run(&tl, th, 2, 1);
	CHECK_MSG(NEAR(th[1].pstart, 2100) && NEAR(th[1].pend, 2800), "101: %g..%g", th[1].pstart,
	      th[1].pend);
	CHECK_MSG(NEAR(tl.end_ns, 3500), "start follows the creator: %.17g", tl.end_ns);
	timeline_free(&tl);
}

/* Main creates 101 at 0; 101 calls at 0 for 8000 (f 2000) and ends at 8000; main joins it
 * from 1000 to 8100, then calls at 9000 for 4000 (f 1000); the process ends at 14000.
 * 101 ends at 2000; the join waits for it: 2000 + 100 = 2100; main's call at 3000 ends at
 * 4000, + 1000: T' = 5000, with one device as well (the device is free at 2000). */
static void test_join_then_call(void)
{
	struct tl_call m[] = { { 9000, 4000, 1000 } }, k[] = { { 0, 8000, 2000 } };
	struct tl_join j[] = { { .call_ns = 1000, .ret_ns = 8100, .target = 1 } };
	struct tl_thread th[2];
	struct timeline tl;

	for (int devices = 0; devices <= 1; devices++) {
		th[0] = thread(100, -1, 0, 0, 14000);
		th[0].calls = m, th[0].ncalls = 1, th[0].joins = j, th[0].njoins = 1;
		th[1] = thread(101, 0, 0, 0, 8000);
		th[1].calls = k, th[1].ncalls = 1;
		run(&tl, th, 2, devices);
		CHECK_MSG(NEAR(tl.end_ns, 5000), "join then call, devices %d: %.17g", devices, tl.end_ns);
		CHECK_MSG(NEAR(j[0].pred_ret, 2100), "join returns at %g", j[0].pred_ret);
		timeline_free(&tl);
	}
}

/* Main creates 101 at 0, calls at 1000 for 4000 (f 1000), joins 101 from 6000 to 20050;
 * 101 calls at 0 for 20000 (f 5000), ends at 20000; the process ends at 20100.
 * Unlimited: 101 ends at 5000; main's call ends at 2000, its join waits from 3000 to 5000,
 * + 50, + 50: T' = 5100.  One device: 101 holds it from 0 to 5000; main's call waits 4000,
 * ends at 6000; the join at 7000 finds 101 ended: + 50 = 7050, + 50: T' = 7100. */
static void test_thread_outlives_calls(void)
{
	struct tl_call m[] = { { 1000, 4000, 1000 } }, k[] = { { 0, 20000, 5000 } };
	struct tl_join j[] = { { .call_ns = 6000, .ret_ns = 20050, .target = 1 } };
	struct tl_thread th[2];
	struct timeline tl;

	for (int devices = 0; devices <= 1; devices++) {
		th[0] = thread(100, -1, 0, 0, 20100);
		th[0].calls = m, th[0].ncalls = 1, th[0].joins = j, th[0].njoins = 1;
		th[1] = thread(101, 0, 0, 0, 20000);
		th[1].calls = k, th[1].ncalls = 1;
		run(&tl, th, 2, devices);
		CHECK_MSG(NEAR(tl.end_ns, devices ? 7100 : 5100), "outlives, devices %d: %.17g",
		      devices, tl.end_ns);
		CHECK_MSG(NEAR(tl.queue_wait_ns, devices ? 4000 : 0), "waited %g", tl.queue_wait_ns);
		timeline_free(&tl);
	}
}

/* A thread nobody joins that ends after main: main creates 101 at 0, calls at 100 for
 * 1000 (f 500) and ends at 2000: 1500.  101 calls at 500 for 1000, a model slower there
 * (f 2000), and ends at 1800: 2800.  The process ends with 101: T' = 2800. */
static void test_thread_outlives_main(void)
{
	struct tl_call m[] = { { 100, 1000, 500 } }, k[] = { { 500, 1000, 2000 } };
	struct tl_thread th[2];
	struct timeline tl;

	th[0] = thread(100, -1, 0, 0, 2000);
	th[0].calls = m, th[0].ncalls = 1;
	th[1] = thread(101, 0, 0, 0, 1800);
	th[1].calls = k, th[1].ncalls = 1;
	run(&tl, th, 2, 0);
	CHECK_MSG(NEAR(tl.end_ns, 2800) && tl.last == 1, "outlives main: %.17g (thread %d)",
	      tl.end_ns, tl.last);
	CHECK_MSG(NEAR(th[0].pend, 1500), "main ends at %g", th[0].pend);
	CHECK_MSG(tl.npath == 2 && tl.path[1].th == 1, "path of %d steps", tl.npath);
	timeline_free(&tl);
}

/* A thread still running at exit (end unknown: an OpenMP team's) whose last call ends,
 * on the prediction, after main: main calls at 100 for 1000 (f 500), ends at 2000: 1500;
 * 101 (created at 0) calls at 1000 for 800, f 1200 (a slower model): 1000..2200.  The
 * process lasts at least until 2200. */
static void test_unknown_end_bounds_the_process(void)
{
	struct tl_call m[] = { { 100, 1000, 500 } }, k[] = { { 1000, 800, 1200 } };
	struct tl_thread th[2];
	struct timeline tl;

	th[0] = thread(100, -1, 0, 0, 2000);
	th[0].calls = m, th[0].ncalls = 1;
	th[1] = thread(101, 0, 0, 0, TL_UNKNOWN);
	th[1].calls = k, th[1].ncalls = 1;
	run(&tl, th, 2, 0);
	CHECK_MSG(NEAR(tl.end_ns, 2200) && tl.last == 1, "unknown end: %.17g (thread %d)", tl.end_ns,
	      tl.last);
	CHECK_MSG(isnan(th[1].pend), "101's end: %g", th[1].pend);
	timeline_free(&tl);
}

/* An OpenMP region of main from 0 to 9500 (its closing barrier as tl_build.c writes it: a
 * join from main's arrival, 4300, to 9500 on the thread whose work ended last, up to its
 * last call in the region).  Main creates 101 at 100 (started 200) and calls 300..4300 (f
 * 1000: ends 1300); 101 calls 2000..9300 (f 3000: ends 5000), and runs till exit.  The
 * barrier, reached at 1300, waits till 5000, + 200 (9500 - 9300): 5200; main ends at
 * 10000 - 4300 = 5700.  Without the barrier main would end at 7000 (and 101's call at
 * 5000 decides nothing). */
static void test_region_barrier(void)
{
	struct tl_call m[] = { { 300, 4000, 1000 } }, k[] = { { 2000, 7300, 3000 } };
	struct tl_join j[] = { { .call_ns = 4300, .ret_ns = 9500, .target = 1, .upto = 1 } };
	struct tl_thread th[2];
	struct timeline tl;

	th[0] = thread(100, -1, 0, 0, 10000);
	th[0].calls = m, th[0].ncalls = 1, th[0].joins = j, th[0].njoins = 1;
	th[1] = thread(101, 0, 100, 200, TL_UNKNOWN);
	th[1].calls = k, th[1].ncalls = 1;
	run(&tl, th, 2, 0);
	CHECK_MSG(NEAR(j[0].pred_ret, 5200) && NEAR(tl.end_ns, 5700), "region: %g, %.17g",
	      j[0].pred_ret, tl.end_ns);
	CHECK_MSG(tl.npath == 3 && tl.path[1].th == 1 && NEAR(tl.path[1].to, 5000), "path: %d steps",
	      tl.npath);
	timeline_free(&tl);
}

/* Three threads created at 0 call at 0, 10 and 20 for 1000 (f 400) and end at 1000, 1010,
 * 1020; main joins them in turn (30..1001, 1001..1011, 1011..1021), ends at 1100.
 * One device: 101 holds it 0..400, 102 waits 390 (400..800), 103 waits 780 (800..1200):
 * 1170 in all; 103 ends at 1200; main's last join returns at 1201: T' = 1280.  Two: 103
 * waits 380 (400..800), main's last join returns at 801: T' = 880.  Unlimited: the
 * threads end at 400, 410, 420; the last join at 421: T' = 500. */
static void test_queue_of_three(void)
{
	struct tl_call k[3][1] = { { { 0, 1000, 400 } }, { { 10, 1000, 400 } }, { { 20, 1000, 400 } } };
	struct tl_join j[3];
	struct tl_thread th[4];
	struct timeline tl;
	static const double want[3] = { 500, 1280, 880 }, wait[3] = { 0, 1170, 380 };

	for (int devices = 0; devices <= 2; devices++) {
		th[0] = thread(100, -1, 0, 0, 1100);
		for (int i = 0; i < 3; i++) {
			th[i + 1] = thread(101 + (uint64_t)i, 0, 0, 0, 1000 + 10 * i);
			th[i + 1].calls = k[i], th[i + 1].ncalls = 1;
			j[i] = (struct tl_join){ .call_ns = i ? 991 + 10 * i : 30,
						 .ret_ns = 1001 + 10 * i, .target = i + 1 };
		}
		th[0].joins = j, th[0].njoins = 3;
		run(&tl, th, 4, devices);
		CHECK_MSG(NEAR(tl.end_ns, want[devices]), "queue, devices %d: %.17g", devices, tl.end_ns);
		CHECK_MSG(NEAR(tl.queue_wait_ns, wait[devices]), "devices %d waited %g", devices,
		      tl.queue_wait_ns);
		CHECK_MSG(tl.waited_calls == (uint64_t)(devices == 1 ? 2 : devices == 2 ? 1 : 0),
		      "devices %d: %llu calls waited", devices, (unsigned long long)tl.waited_calls);
		timeline_free(&tl);
	}
}

/* Main calls at 100 for 1000 (f 100) and creates 101 inside the call (at 200), joins it
 * inside too (950..960); 101 is part of the call: T' = 2000 - 1000 + 100 = 1100. */
static void test_thread_inside_a_call(void)
{
	struct tl_call m[] = { { 100, 1000, 100 } };
	struct tl_join j[] = { { .call_ns = 950, .ret_ns = 960, .target = 1 } };
	struct tl_thread th[2];
	struct timeline tl;

	th[0] = thread(100, -1, 0, 0, 2000);
	th[0].calls = m, th[0].ncalls = 1, th[0].joins = j, th[0].njoins = 1;
	th[1] = thread(101, 0, 200, 210, 900);
	run(&tl, th, 2, 1);
	CHECK_MSG(NEAR(tl.end_ns, 1100), "inside a call: %.17g", tl.end_ns);
	CHECK_MSG(tl.absorbed == 1 && th[1].state == TL_ABSORBED, "absorbed %d", tl.absorbed);
	timeline_free(&tl);
}

/* Waits end at their wake-up's predicted time.  Main (100) creates the writer 101 at 0
 * (start 10) and the producer 102 at 20 (start 30), joins 101 from 60 to 41600 and ends at
 * 42000.  102 calls at 100 for 40000 (f 10000: d = -30000), wakes 101 at 40200 (10200
 * predicted) and ends at 40300.  101 waits from 50 to 40500, works and ends at 41500.
 * Predicted: 101's wait returns at the wake-up, 10200 (what it took after it, 300, is not
 * kept): d = -30300, it ends at 11200; main's join returns at 11200 + 100 = 11300 and main
 * ends at 11700.  Then a wake-up inside the call (at 20000): it comes at the call's
 * predicted end, 10100; 101 waits from 50 to 20300 and ends at 21000 (10800); main joins
 * from 60 to 21100 (10900) and ends at 21200: 11000; 102 ends at 10300. */
static void test_wait_follows_its_wake(void)
{
	struct tl_call k[] = { { 100, 40000, 10000 } };
	struct tl_join jm[1], jw[1];
	struct tl_wake wk[1];
	struct tl_thread th[3];
	struct timeline tl;

	for (int inside = 0; inside <= 1; inside++) {
		jm[0] = (struct tl_join){ .call_ns = 60, .ret_ns = inside ? 21100 : 41600, .target = 1 };
		jw[0] = (struct tl_join){ .call_ns = 50, .ret_ns = inside ? 20300 : 40500, .target = 2,
					  .wake = 1 };
		wk[0] = (struct tl_wake){ inside ? 20000 : 40200, 0 };
		th[0] = thread(100, -1, 0, 0, inside ? 21200 : 42000);
		th[0].joins = jm, th[0].njoins = 1;
		th[1] = thread(101, 0, 0, 10, inside ? 21000 : 41500);
		th[1].joins = jw, th[1].njoins = 1;
		th[2] = thread(102, 0, 20, 30, 40300);
		th[2].calls = k, th[2].ncalls = 1, th[2].wakes = wk, th[2].nwakes = 1;
		run(&tl, th, 3, 0);
		CHECK_MSG(NEAR(wk[0].pred, inside ? 10100 : 10200), "wake-up at %g", wk[0].pred);
		CHECK_MSG(NEAR(jw[0].pred_ret, inside ? 10100 : 10200) && jw[0].bound,
			  "the wait returns at %g", jw[0].pred_ret);
		CHECK_MSG(NEAR(th[1].pend, inside ? 10800 : 11200), "101 ends at %g", th[1].pend);
		CHECK_MSG(NEAR(tl.end_ns, inside ? 11000 : 11700), "wait, inside %d: T' %.17g",
			  inside, tl.end_ns);
		/* the path: main, 102 from its start, 101 woken, main after its join */
		CHECK_MSG(tl.npath == 4 && tl.path[1].th == 2 && tl.path[2].th == 1 &&
			  tl.path[2].how == TL_HOW_WAKE && tl.path[3].how == TL_HOW_JOIN,
			  "path of %d steps", tl.npath);
		timeline_free(&tl);
	}
}

int main(void)
{
	test_wait_follows_its_wake();
	test_one_thread();
	test_call_then_join();
	test_join_then_call();
	test_start_follows_creator();
	test_thread_outlives_calls();
	test_thread_outlives_main();
	test_queue_of_three();
	test_unknown_end_bounds_the_process();
	test_region_barrier();
	test_thread_inside_a_call();
	return check_failures ? 1 : 0;
}
