/* sources: speedup/lib/flow/flow_slices.c speedup/lib/flow/flow_engine.c speedup/lib/flow/flow_hash.c speedup/lib/flow/flow_ivmap.c speedup/lib/util/grow.c */
/* flow_slices_test.c - speedup/lib/flow/flow_slices.c on calls laid out by hand: a call's
 * bytes spread over the slices its interval covers, in proportion; the span and peak
 * of each function; two phases found where the active function changes, a short burst
 * inside a phase joined to it, a jump in traffic starting a phase. */
#include <stdlib.h>
#include "check.h"
#include "flow_engine.h"
#include "flow_slices.h"

enum { A = 1, B = 2 };

/* Call SEQ of NODE over [T0, T0 + T) reading READ bytes of block 1 (1 MiB). */
static void call(struct flow *f, uint64_t seq, uint32_t node, int64_t t0, int64_t t,
		 uint64_t read)
{
	CHECK(flow_call(f, seq, node, 0, 1, t0, t) == 0);
	if (read)
		CHECK(flow_access(f, seq, 1, 0, 0, read) == 0);
}

static void setup(struct flow *f)
{
	flow_init(f);
	CHECK(flow_site(f, 0, "main (s.c:1)", 12) == 0);
	CHECK(flow_object(f, 1, FLOW_HEAP, 1 << 20, 0, NULL, 0) == 0);
}

/* One call of A over [50, 250) reading 400 B, slices of 100 ns from t0 = 50: 2 slices
 * of 200 B; B's call [250, 300) 100 B: slice 2, 50 ns of it. */
static void spread(void)
{
	struct flow f;
	struct flow_slices s;
	char err[200];

	setup(&f);
	call(&f, 0, A, 50, 200, 400);
	call(&f, 1, B, 250, 50, 100);
	CHECK(flow_finish(&f) == 0);
	CHECK(flow_slices_make(&s, &f, 100, err, sizeof(err)) == 0);
	CHECK(s.t0 == 50 && s.n == 3);
	CHECK_NEAR(s.read[0 * s.nnodes + A], 200, 1e-9);
	CHECK_NEAR(s.read[1 * s.nnodes + A], 200, 1e-9);
	CHECK_NEAR(s.read[2 * s.nnodes + B], 100, 1e-9);
	CHECK(s.first_ns[A] == 0 && s.last_ns[A] == 200 && s.first_ns[B] == 200);
	CHECK_NEAR(s.peak[A], 200 * 1e9 / 100, 1e-3);
	flow_slices_free(&s);
	/* no timed calls: refused with a reason */
	flow_free_all(&f);
	setup(&f);
	call(&f, 0, A, -1, -1, 8);
	CHECK(flow_slices_make(&s, &f, 100, err, sizeof(err)) == -1);
	CHECK(strstr(err, "no timed calls") != NULL);
	flow_slices_free(&s);
	flow_free_all(&f);
}

/* A for 20 slices, then B for 20: two phases of 20 slices.  A one-slice burst of B
 * inside A's phase stays in it.  Then A again moving 10 times more: a third phase. */
static void phases(void)
{
	struct flow f;
	struct flow_slices s;
	char err[200];
	uint64_t q = 0;

	setup(&f);
	for (int i = 0; i < 20; i++, q++)
		call(&f, q, i == 7 ? B : A, i * 100, 100, 1000);
	for (int i = 20; i < 40; i++, q++)
		call(&f, q, B, i * 100, 100, 1000);
	for (int i = 40; i < 60; i++, q++)
		call(&f, q, B, i * 100, 100, 10000);
	CHECK(flow_finish(&f) == 0);
	CHECK(flow_slices_make(&s, &f, 100, err, sizeof(err)) == 0);
	CHECK(s.n == 60);
	CHECK(s.nphases == 3);
	if (s.nphases == 3) {
		CHECK(s.phase[0].first == 0 && s.phase[0].last == 19);
		CHECK(s.phase[1].first == 20 && s.phase[1].last == 39);
		CHECK(s.phase[2].first == 40 && s.phase[2].last == 59);
		CHECK(flow_phase_has(&s, &s.phase[0], A) && !flow_phase_has(&s, &s.phase[0], B));
		CHECK(flow_phase_has(&s, &s.phase[1], B) && !flow_phase_has(&s, &s.phase[1], A));
		CHECK_NEAR(s.phase[2].bytes, 200000, 1e-6);
	}
	flow_slices_free(&s);
	flow_free_all(&f);
}

int main(void)
{
	spread();
	phases();
	return CHECK_DONE();
}
