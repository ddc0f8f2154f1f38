/* sources: speedup/lib/resid/resid.c speedup/lib/model/model.c speedup/lib/model/model2d.c speedup/lib/model/tri.c runtime/format/read/columns.c speedup/lib/util/shown.c runtime/format/read/input.c speedup/lib/util/grow.c speedup/lib/util/slots.c */
/* resid_test.c - speedup/lib/resid/resid.c on hand-made events, each case worked out by hand
 * (doc/residency.md): an iterative loop over one matrix; a pipeline whose intermediate
 * never comes back; a partial rewrite under std.diff (only those bytes move again, one
 * transfer per contiguous range); an output never read; a call reading and writing the
 * same buffer; a non-accelerated consumer; free and realloc; the three modes.
 *
 * The link: h2d t = 1000 + bytes ns, d2h t = 2000 + 2 * bytes ns (two samples each). */
#include <stdlib.h>
#include "check.h"
#include "model.h"
#include "resid.h"

enum { GEMV = 0, HOSTF = 1, AXPY = 2, NFUNCS = 3 };

static double h2d_w[] = { 0, 1e6 }, h2d_t[] = { 1000, 1001000 };
static double d2h_w[] = { 0, 1e6 }, d2h_t[] = { 2000, 2002000 };
static struct model h2d_m = { .w = h2d_w, .t = h2d_t, .n = 2 };
static struct model d2h_m = { .w = d2h_w, .t = d2h_t, .n = 2 };
static const struct link_model link = { &h2d_m, &d2h_m };

static struct resid_events ev;
static int32_t funcs[16];
static unsigned char accel[16];

/* A process of N calls of the functions F (each accelerated unless it is HOSTF). */
static void start(const int *f, int n, uint32_t nblocks)
{
	resid_events_init(&ev);
	for (int i = 0; i < n; i++) {
		funcs[i] = f[i];
		accel[i] = f[i] != HOSTF;
	}
	ev.func = funcs;
	ev.nseq = (uint64_t)n;
	ev.nblocks = nblocks;
	ev.nfuncs = NFUNCS;
}

static void add(uint64_t seq, int kind, uint32_t block, uint64_t lo, uint64_t hi)
{
	if (ev.n == ev.room) {
		ev.room = ev.room ? 2 * ev.room : 64;
		ev.ev = realloc(ev.ev, ev.room * sizeof(*ev.ev));
	}
	ev.ev[ev.n++] = (struct resid_ev){ seq, lo, hi, block, (uint8_t)kind, 0, 0 };
}

static void done(void)
{
	free(ev.ev);
	ev.ev = NULL;
}

#define CHECK_DIR(d, b, n, t) \
	CHECK_MSG((d).bytes == (b) && (d).transfers == (n) && (d).ns == (t), \
		  "got %llu bytes, %llu transfers, %.0f ns", (unsigned long long)(d).bytes, \
		  (unsigned long long)(d).transfers, (d).ns)

/* dgemv y = A x three times: A (800 B) and x (80 B) read, y (80 B) written; between the
 * calls the program reads y and writes a new x; after the last it reads y. */
static void iterative(void)
{
	static const int f[] = { GEMV, GEMV, GEMV };
	struct resid_result r = { 0 };

	start(f, 3, 3);
	for (uint64_t s = 0; s < 3; s++) {
		if (s > 0) {
			add(s, RESID_HOST_READ, 2, 0, 80);
			add(s, RESID_HOST_WRITE, 1, 0, 80);
		}
		add(s, RESID_READ, 0, 0, 800);
		add(s, RESID_READ, 1, 0, 80);
		add(s, RESID_WRITE, 2, 0, 80);
	}
	add(3, RESID_HOST_READ, 2, 0, 80);
	/* exact: A once, x each time (4 transfers, 1040 B); y back 3 times (240 B) */
	CHECK(resid_simulate(&ev, accel, RESID_EXACT, &link, &r) == 0);
	CHECK_DIR(r.h2d, 1040, 4, 4 * 1000 + 1040);
	CHECK_DIR(r.d2h, 240, 3, 3 * 2000 + 2 * 240);
	CHECK_DIR(r.func[GEMV].h2d, 1040, 4, 5040);
	CHECK_DIR(r.func[GEMV].d2h, 240, 3, 6480);
	CHECK(r.charge_ns[0] == 1800 + 1080);
	CHECK(r.charge_ns[1] == 1080 + 2160);
	CHECK(r.charge_ns[2] == 1080 + 2160);
	CHECK(r.charge_ns[3] == 2160);
	/* optimistic: y never comes back (no call off the accelerator reads it) */
	CHECK(resid_simulate(&ev, accel, RESID_OPTIMISTIC, &link, &r) == 0);
	CHECK_DIR(r.h2d, 1040, 4, 5040);
	CHECK_DIR(r.d2h, 0, 0, 0);
	CHECK(r.charge_ns[3] == 0);
	/* pessimistic: every call moves A and x in, y out */
	CHECK(resid_simulate(&ev, accel, RESID_PESSIMISTIC, &link, &r) == 0);
	CHECK_DIR(r.h2d, 3 * 880, 6, 6 * 1000 + 3 * 880);
	CHECK_DIR(r.d2h, 240, 3, 3 * 2000 + 2 * 240);
	/* no link model: the bytes alike, no time */
	CHECK(resid_simulate(&ev, accel, RESID_EXACT, NULL, &r) == 0);
	CHECK_DIR(r.h2d, 1040, 4, 0);
	resid_result_free(&r);
	done();
}

/* in -> gemv -> mid -> axpy -> out, then the program reads out.  The intermediate never
 * comes back; with axpy on the host, mid comes back to it. */
static void pipeline(void)
{
	static const int f[] = { GEMV, AXPY };
	struct resid_result r = { 0 };

	start(f, 2, 3);
	add(0, RESID_READ, 0, 0, 100);
	add(0, RESID_WRITE, 1, 0, 100);
	add(1, RESID_READ, 1, 0, 100);
	add(1, RESID_WRITE, 2, 0, 100);
	add(2, RESID_HOST_READ, 2, 0, 100);
	CHECK(resid_simulate(&ev, accel, RESID_EXACT, &link, &r) == 0);
	CHECK_DIR(r.h2d, 100, 1, 1100);
	CHECK_DIR(r.d2h, 100, 1, 2200);
	CHECK_DIR(r.func[AXPY].d2h, 100, 1, 2200);	/* charged to its producer */
	CHECK_DIR(r.func[AXPY].h2d, 0, 0, 0);
	CHECK(resid_simulate(&ev, accel, RESID_OPTIMISTIC, &link, &r) == 0);
	CHECK_DIR(r.d2h, 0, 0, 0);
	CHECK(resid_simulate(&ev, accel, RESID_PESSIMISTIC, &link, &r) == 0);
	CHECK_DIR(r.h2d, 200, 2, 2200);
	CHECK_DIR(r.d2h, 200, 2, 4400);
	/* axpy stays on the host: it reads mid from the accelerator (d2h, charged to its
	 * call), and out is written on the host: the program's read moves nothing */
	accel[1] = 0;
	CHECK(resid_simulate(&ev, accel, RESID_EXACT, &link, &r) == 0);
	CHECK_DIR(r.h2d, 100, 1, 1100);
	CHECK_DIR(r.d2h, 100, 1, 2200);
	CHECK_DIR(r.func[GEMV].d2h, 100, 1, 2200);
	CHECK(r.charge_ns[1] == 2200 && r.charge_ns[2] == 0);
	CHECK(resid_simulate(&ev, accel, RESID_OPTIMISTIC, &link, &r) == 0);
	CHECK_DIR(r.d2h, 100, 1, 2200);	/* a non-accelerated reader: in every mode */
	CHECK(resid_simulate(&ev, accel, RESID_PESSIMISTIC, &link, &r) == 0);
	CHECK_DIR(r.h2d, 100, 1, 1100);
	CHECK_DIR(r.d2h, 100, 1, 2200);	/* gemv's output, every call */
	resid_result_free(&r);
	done();
}

/* A 10000-byte input read by two calls (the first reads it as two halves: one contiguous
 * range, one transfer); between them the program rewrites (std.diff) [200, 300) and
 * [300, 400) (one contiguous range: one transfer) and [5000, 5050): the 4600 bytes
 * between cost more than a transfer's 1000 ns, so two transfers. */
static void rewrite(void)
{
	static const int f[] = { GEMV, GEMV };
	struct resid_result r = { 0 };

	start(f, 2, 1);
	add(0, RESID_READ, 0, 0, 5000);
	add(0, RESID_READ, 0, 5000, 10000);
	add(1, RESID_HOST_WRITE, 0, 200, 300);
	add(1, RESID_HOST_WRITE, 0, 5000, 5050);
	add(1, RESID_HOST_WRITE, 0, 300, 400);
	add(1, RESID_READ, 0, 0, 10000);
	CHECK(resid_simulate(&ev, accel, RESID_EXACT, &link, &r) == 0);
	CHECK_DIR(r.h2d, 10250, 3, 3000 + 10250);
	CHECK(r.charge_ns[1] == 1200 + 1050);
	/* pessimistic: each call moves the block whole, once (its two halves: one transfer) */
	CHECK(resid_simulate(&ev, accel, RESID_PESSIMISTIC, &link, &r) == 0);
	CHECK_DIR(r.h2d, 20000, 2, 2000 + 20000);
	resid_result_free(&r);
	done();
}

/* Pieces close together move as one transfer only over bytes valid on both sides:
 * [200, 400) and [600, 650) rewritten; the 200 bytes between cost 200 ns, less than a
 * transfer: one transfer of 450 bytes.  When the call before wrote those 200 bytes on
 * the accelerator (dev only), copying over them would destroy them: two transfers. */
static void gaps(void)
{
	static const int f[] = { GEMV, GEMV, GEMV };
	struct resid_result r = { 0 };

	start(f, 3, 2);
	add(0, RESID_READ, 0, 0, 1000);
	add(1, RESID_READ, 1, 0, 8);
	add(2, RESID_HOST_WRITE, 0, 200, 400);
	add(2, RESID_HOST_WRITE, 0, 600, 650);
	add(2, RESID_READ, 0, 0, 1000);
	CHECK(resid_simulate(&ev, accel, RESID_EXACT, &link, &r) == 0);
	CHECK_DIR(r.h2d, 1000 + 8 + 450, 3, 3000 + 1458);
	resid_result_free(&r);
	done();

	start(f, 3, 1);
	add(0, RESID_READ, 0, 0, 1000);
	add(1, RESID_WRITE, 0, 400, 600);
	add(2, RESID_HOST_WRITE, 0, 200, 400);
	add(2, RESID_HOST_WRITE, 0, 600, 650);
	add(2, RESID_READ, 0, 0, 1000);
	CHECK(resid_simulate(&ev, accel, RESID_EXACT, &link, &r) == 0);
	CHECK_DIR(r.h2d, 1000 + 250, 3, 3000 + 1250);
	resid_result_free(&r);
	done();
}

/* An output never read: it never comes back (exact, optimistic); pessimistic: it does. */
static void never_read(void)
{
	static const int f[] = { GEMV };
	struct resid_result r = { 0 };

	start(f, 1, 2);
	add(0, RESID_READ, 0, 0, 64);
	add(0, RESID_WRITE, 1, 0, 32);
	CHECK(resid_simulate(&ev, accel, RESID_EXACT, &link, &r) == 0);
	CHECK_DIR(r.d2h, 0, 0, 0);
	CHECK(resid_simulate(&ev, accel, RESID_PESSIMISTIC, &link, &r) == 0);
	CHECK_DIR(r.d2h, 32, 1, 2064);
	resid_result_free(&r);
	done();
}

/* axpy y += a x in place: its read of y comes before its write (y moves in once); the
 * program reads y's first half (only that comes back); a host call writes the second
 * half (it becomes host: nothing moves); a realloc that moved y copies its first 20
 * bytes back (already both: nothing); a free drops the state, so the next read of the
 * block (a new life of the id, in a test only) moves it in again. */
static void in_place_and_life(void)
{
	static const int f[] = { AXPY, HOSTF, AXPY, AXPY };
	struct resid_result r = { 0 };

	start(f, 4, 1);
	add(0, RESID_READ, 0, 0, 80);
	add(0, RESID_WRITE, 0, 0, 80);
	add(1, RESID_HOST_READ, 0, 0, 40);
	add(1, RESID_WRITE, 0, 40, 80);	/* the host call */
	add(2, RESID_RESIZE, 0, 20, 1);	/* shrunk to 20 and moved: [0, 20) is both already */
	add(2, RESID_READ, 0, 0, 20);	/* both: nothing moves */
	add(2, RESID_WRITE, 0, 0, 20);	/* dev */
	add(3, RESID_RESIZE, 0, 30, 1);	/* moved: [0, 20) dev comes back */
	add(3, RESID_FREE, 0, 0, 0);
	add(3, RESID_READ, 0, 0, 10);	/* dropped state: host, moves in */
	CHECK(resid_simulate(&ev, accel, RESID_EXACT, &link, &r) == 0);
	CHECK_DIR(r.h2d, 90, 2, 2000 + 90);
	CHECK_DIR(r.d2h, 60, 2, 4000 + 120);
	CHECK(r.charge_ns[1] == 2080);	/* the host read before call 1 */
	CHECK(r.charge_ns[3] == 2040 + 1010);
	CHECK(resid_simulate(&ev, accel, RESID_OPTIMISTIC, &link, &r) == 0);
	/* no host read: [0, 40) stays dev, so the realloc before call 2 brings [0, 20) */
	CHECK_DIR(r.d2h, 40, 2, 4000 + 80);
	resid_result_free(&r);
	done();
}

int main(void)
{
	iterative();
	pipeline();
	rewrite();
	gaps();
	never_read();
	in_place_and_life();
	return check_failures != 0;
}
