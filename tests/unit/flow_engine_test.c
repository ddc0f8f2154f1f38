/* sources: speedup/lib/flow/flow_engine.c speedup/lib/flow/flow_hash.c speedup/lib/flow/flow_ivmap.c speedup/lib/util/grow.c */
/* flow_engine_test.c - speedup/lib/flow/flow_engine.c on hand-made event sequences, each worked out
 * by hand (doc/flow.md): a chain A -> B -> C; the program writing part of a buffer
 * between two calls; fresh bytes after a rewrite; a free before the read (Prod % < 100)
 * and an overwrite before it; realloc moving a block; a call's reads before its writes;
 * blocks of one site as one object; a matrix read by every call (unique stays at its
 * size); nested calls skipped; bad events refused with a reason. */
#include <stdlib.h>
#include "check.h"
#include "flow_engine.h"

enum { A = 1, B = 2, C = 3 };	/* nodes: func_names.h id + 1 */

/* A process whose calls 1..N are depth-0 calls of FUNCS[i - 1], 10 ns each. */
static void start(struct flow *f, const int *funcs, int n)
{
	flow_init(f);
	for (int i = 1; i <= n; i++)
		CHECK(flow_call(f, (uint64_t)i, (uint32_t)funcs[i - 1], 0, 1, i * 100, 10) == 0);
	CHECK(flow_site(f, 0, "main (t.c:5)", 12) == 0);
	CHECK(flow_site(f, 1, "helper (t.c:9) <- main (t.c:20)", 32) == 0);
}

static const struct flow_edge *find(const struct flow *f, uint32_t from, uint32_t to)
{
	static const struct flow_edge none;

	for (size_t i = 0; i < f->nedges; i++)
		if (f->edge[i].from == from && f->edge[i].to == to)
			return &f->edge[i];
	return &none;
}

#define EDGE(f, p, c, b, u, fr)                                                \
	do {                                                                   \
		const struct flow_edge *e_ = find(f, p, c);                    \
		CHECK(e_->bytes == (b));                                       \
		CHECK(e_->unique == (u));                                      \
		CHECK(e_->fresh == (fr));                                      \
	} while (0)

static void chain(void)
{
	struct flow f;
	int funcs[] = { A, B, C };

	start(&f, funcs, 3);
	CHECK(flow_object(&f, 1, FLOW_HEAP, 100, 0, NULL, 0) == 0);
	CHECK(flow_object(&f, 2, FLOW_HEAP, 100, 1, NULL, 0) == 0);
	CHECK(flow_access(&f, 1, 1, 1, 0, 100) == 0);
	CHECK(flow_access(&f, 2, 1, 0, 0, 100) == 0);
	CHECK(flow_access(&f, 2, 2, 1, 0, 100) == 0);
	CHECK(flow_access(&f, 3, 2, 0, 0, 100) == 0);
	CHECK(flow_finish(&f) == 0);
	EDGE(&f, A, B, 100, 100, 100);
	EDGE(&f, B, C, 100, 100, 100);
	EDGE(&f, FLOW_HOST, B, 0, 0, 0);
	CHECK(f.nedges == 2);
	CHECK(f.nobjects == 2);
	CHECK(f.object[0].produced == 100 && f.object[0].used == 100);
	CHECK(f.object[0].ever_written == 100);
	CHECK(f.call[2].read == 100 && f.call[2].written == 100);
	CHECK(f.node[B].calls == 1 && f.node[B].read == 100 && f.node[B].written == 100);
	flow_free_all(&f);
}

/* A writes the buffer, the program changes [10, 20), B reads it twice. */
static void host_between(void)
{
	struct flow f;
	int funcs[] = { A, B, B };

	start(&f, funcs, 3);
	CHECK(flow_object(&f, 7, FLOW_HEAP, 100, 0, NULL, 0) == 0);
	CHECK(flow_access(&f, 1, 7, 1, 0, 100) == 0);
	CHECK(flow_host(&f, 7, 1, 10, 20) == 0);
	CHECK(flow_access(&f, 2, 7, 0, 0, 100) == 0);
	CHECK(flow_access(&f, 3, 7, 0, 0, 100) == 0);
	CHECK(flow_finish(&f) == 0);
	EDGE(&f, A, B, 180, 90, 90);
	EDGE(&f, FLOW_HOST, B, 20, 10, 10);
	CHECK(f.object[0].host_written == 10 && f.object[0].call_written == 100);
	CHECK(f.object[0].produced == 100 && f.object[0].used == 90);
	flow_free_all(&f);
}

/* A writes, B reads, A rewrites [0, 40), B reads again: 40 bytes are fresh again. */
static void rewrite(void)
{
	struct flow f;
	int funcs[] = { A, B, A, B };

	start(&f, funcs, 4);
	CHECK(flow_object(&f, 1, FLOW_HEAP, 100, 0, NULL, 0) == 0);
	CHECK(flow_access(&f, 1, 1, 1, 0, 100) == 0);
	CHECK(flow_access(&f, 2, 1, 0, 0, 100) == 0);
	CHECK(flow_access(&f, 3, 1, 1, 0, 40) == 0);
	CHECK(flow_access(&f, 4, 1, 0, 0, 100) == 0);
	CHECK(flow_finish(&f) == 0);
	EDGE(&f, A, B, 200, 100, 140);
	flow_free_all(&f);
}

/* A writes 100 bytes, B reads 50, the block is freed: Prod % 50.  A writes another block
 * twice before B reads it once: the first write was never used. */
static void prod(void)
{
	struct flow f;
	int funcs[] = { A, B, A, A, B };

	start(&f, funcs, 5);
	CHECK(flow_object(&f, 1, FLOW_HEAP, 100, 0, NULL, 0) == 0);
	CHECK(flow_access(&f, 1, 1, 1, 0, 100) == 0);
	CHECK(flow_access(&f, 2, 1, 0, 0, 50) == 0);
	CHECK(flow_release(&f, 1) == 0);
	CHECK(f.object[0].produced == 100 && f.object[0].used == 50);
	CHECK(f.object[0].ever_written == 100);
	CHECK(flow_object(&f, 2, FLOW_HEAP, 100, 1, NULL, 0) == 0);
	CHECK(flow_access(&f, 3, 2, 1, 0, 100) == 0);
	CHECK(flow_access(&f, 4, 2, 1, 0, 100) == 0);
	CHECK(flow_access(&f, 5, 2, 0, 0, 100) == 0);
	CHECK(flow_finish(&f) == 0);
	CHECK(f.object[1].produced == 200 && f.object[1].used == 100);
	EDGE(&f, A, B, 150, 150, 150);
	/* after its FREE, the block is refused */
	CHECK(flow_access(&f, 5, 1, 0, 0, 10) == -1);
	CHECK(strstr(f.err, "after its FREE") != NULL);
	flow_free_all(&f);
}

/* realloc moves a block from 50 to 100 bytes: A's bytes follow it, the rest are the
 * program's; one object of 100 bytes, one move. */
static void realloc_moves(void)
{
	struct flow f;
	int funcs[] = { A, B };

	start(&f, funcs, 2);
	CHECK(flow_object(&f, 3, FLOW_HEAP, 50, 0, NULL, 0) == 0);
	CHECK(flow_access(&f, 1, 3, 1, 0, 50) == 0);
	CHECK(flow_resize(&f, 3, 100, 1) == 0);
	CHECK(flow_access(&f, 2, 3, 0, 0, 100) == 0);
	CHECK(flow_finish(&f) == 0);
	EDGE(&f, A, B, 50, 50, 50);
	EDGE(&f, FLOW_HOST, B, 50, 50, 50);
	CHECK(f.object[0].size == 100 && f.object[0].max_block == 100);
	CHECK(f.object[0].moves == 1 && f.object[0].blocks == 1);
	/* shrinking: what was written past the end counts as written */
	flow_free_all(&f);
	start(&f, funcs, 2);
	CHECK(flow_object(&f, 3, FLOW_HEAP, 100, 0, NULL, 0) == 0);
	CHECK(flow_access(&f, 1, 3, 1, 60, 100) == 0);
	CHECK(flow_resize(&f, 3, 50, 0) == 0);
	CHECK(flow_access(&f, 2, 3, 0, 0, 100) == 0);	/* cut to 50 */
	CHECK(f.clipped_bytes == 50);
	CHECK(flow_resize(&f, 3, 100, 0) == 0);		/* A's bytes did not come back */
	CHECK(flow_access(&f, 2, 3, 0, 50, 100) == 0);
	CHECK(flow_finish(&f) == 0);
	CHECK(f.object[0].ever_written == 40 && f.object[0].size == 100);
	EDGE(&f, FLOW_HOST, B, 100, 100, 100);
	EDGE(&f, A, B, 0, 0, 0);
	flow_free_all(&f);
}

/* B reads A's 100 bytes, the block shrinks to 50 and grows back, B reads it all again:
 * nothing is fresh, but bytes [50, 100) now come from the program, a pair B never read
 * them from: 50 unique bytes host -> B (the engine skips the unique map of a read with
 * nothing fresh, except over a gap of a block that shrank). */
static void regrown_gap(void)
{
	struct flow f;
	int funcs[] = { A, B, B };

	start(&f, funcs, 3);
	CHECK(flow_object(&f, 1, FLOW_HEAP, 100, 0, NULL, 0) == 0);
	CHECK(flow_access(&f, 1, 1, 1, 0, 100) == 0);
	CHECK(flow_access(&f, 2, 1, 0, 0, 100) == 0);
	CHECK(flow_resize(&f, 1, 50, 0) == 0);
	CHECK(flow_resize(&f, 1, 100, 0) == 0);
	CHECK(flow_access(&f, 3, 1, 0, 0, 100) == 0);
	CHECK(flow_finish(&f) == 0);
	EDGE(&f, A, B, 150, 100, 100);
	EDGE(&f, FLOW_HOST, B, 50, 50, 0);
	flow_free_all(&f);
}

/* B's write event comes before its read event: its read still sees A's bytes. */
static void reads_first(void)
{
	struct flow f;
	int funcs[] = { A, B, C };

	start(&f, funcs, 3);
	CHECK(flow_object(&f, 1, FLOW_HEAP, 10, 0, NULL, 0) == 0);
	CHECK(flow_access(&f, 1, 1, 1, 0, 10) == 0);
	CHECK(flow_access(&f, 2, 1, 1, 0, 10) == 0);
	CHECK(flow_access(&f, 2, 1, 0, 0, 10) == 0);
	CHECK(flow_access(&f, 3, 1, 0, 0, 10) == 0);
	CHECK(flow_finish(&f) == 0);
	EDGE(&f, A, B, 10, 10, 10);
	EDGE(&f, B, B, 0, 0, 0);
	EDGE(&f, B, C, 10, 10, 10);
	flow_free_all(&f);
}

/* Blocks of one site are one object; a static array is named by its symbol. */
static void objects(void)
{
	struct flow f;
	int funcs[] = { A };

	start(&f, funcs, 1);
	CHECK(flow_object(&f, 1, FLOW_HEAP, 10, 0, NULL, 0) == 0);
	CHECK(flow_object(&f, 2, FLOW_HEAP, 30, 0, NULL, 0) == 0);
	CHECK(flow_object(&f, 3, FLOW_HEAP, 20, 1, NULL, 0) == 0);
	CHECK(flow_object(&f, 4, FLOW_STATIC, 64, 0, "table", 5) == 0);
	CHECK(flow_object(&f, 5, FLOW_STACK, 64, 0, "main:buf", 8) == 0);
	CHECK(flow_access(&f, 1, 4, 0, 0, 64) == 0);
	CHECK(flow_finish(&f) == 0);
	CHECK(f.nobjects == 4);
	CHECK(f.object[0].blocks == 2 && f.object[0].size == 40 && f.object[0].max_block == 30);
	CHECK_STR(f.object[1].name, "helper (t.c:9) <- main (t.c:20)");
	CHECK_STR(f.object[2].name, "table");
	CHECK(f.object[2].kind == FLOW_STATIC && f.object[2].call_read == 64);
	CHECK(f.object[3].kind == FLOW_STACK);
	CHECK(f.nlinks == 1 && f.link[0].node == A && f.link[0].read == 64);
	flow_free_all(&f);
}

/* The power iteration: the matrix, filled by the program, read by 5 calls; the vector
 * written by each call and read by the next. */
static void power(void)
{
	struct flow f;
	int funcs[] = { A, A, A, A, A };

	start(&f, funcs, 5);
	CHECK(flow_object(&f, 1, FLOW_HEAP, 800, 0, NULL, 0) == 0);
	CHECK(flow_object(&f, 2, FLOW_HEAP, 80, 1, NULL, 0) == 0);
	CHECK(flow_host(&f, 1, 1, 0, 800) == 0);
	for (uint64_t s = 1; s <= 5; s++) {
		CHECK(flow_access(&f, s, 1, 0, 0, 800) == 0);
		CHECK(flow_access(&f, s, 2, 0, 0, 80) == 0);
		CHECK(flow_access(&f, s, 2, 1, 0, 80) == 0);
	}
	CHECK(flow_finish(&f) == 0);
	EDGE(&f, FLOW_HOST, A, 4000 + 80, 800 + 80, 800 + 80);
	EDGE(&f, A, A, 320, 80, 320);
	CHECK(f.object[0].ever_written == 800 && f.object[0].host_written == 800);
	flow_free_all(&f);
}

/* A nested call's events are skipped (its outer call's own events carry its bytes);
 * bad events are refused with a reason. */
static void refused(void)
{
	struct flow f;
	int funcs[] = { A, B };

	start(&f, funcs, 2);
	CHECK(flow_call(&f, 3, C, 1, 1, 150, 5) == 0);
	CHECK(flow_object(&f, 1, FLOW_HEAP, 10, 0, NULL, 0) == 0);
	CHECK(flow_access(&f, 3, 1, 1, 0, 10) == 0);
	CHECK(f.nested_events == 1);
	CHECK(flow_access(&f, 9, 1, 0, 0, 10) == -1);
	CHECK(strstr(f.err, "seq 9") != NULL);
	CHECK(flow_access(&f, 1, 8, 0, 0, 10) == -1);
	CHECK(strstr(f.err, "object 8 not defined") != NULL);
	CHECK(flow_access(&f, 1, 1, 0, 5, 4) == -1);
	CHECK(flow_object(&f, 2, FLOW_HEAP, 10, 5, NULL, 0) == -1);
	CHECK(strstr(f.err, "site 5") != NULL);
	CHECK(flow_object(&f, 1, FLOW_HEAP, 10, 0, NULL, 0) == -1);
	CHECK(flow_site(&f, 0, "x", 1) == -1);
	CHECK(flow_finish(&f) == 0);
	CHECK(f.nedges == 0);
	flow_free_all(&f);
}

/* The interval map itself: cuts, joins, truncation. */
static void ivmap(void)
{
	struct ivmap m = { 0 };

	CHECK(ivmap_set(&m, 10, 20, 1, 1) == 0);
	CHECK(ivmap_set(&m, 20, 30, 1, 1) == 0);	/* joins */
	CHECK(m.n == 1 && m.seg[0].lo == 10 && m.seg[0].hi == 30);
	CHECK(ivmap_set(&m, 15, 25, 2, 2) == 0);	/* splits */
	CHECK(m.n == 3 && m.seg[1].lo == 15 && m.seg[1].hi == 25 && m.seg[2].lo == 25);
	CHECK(ivmap_set(&m, 0, 40, 3, 3) == 0);		/* covers all */
	CHECK(m.n == 1 && ivmap_covered(&m) == 40);
	CHECK(ivmap_set(&m, 50, 60, 3, 3) == 0);	/* a gap stays */
	CHECK(m.n == 2 && ivmap_covered(&m) == 50);
	CHECK(ivmap_cut(&m, 5) == 1 && m.n == 3);
	CHECK(ivmap_truncate(&m, 55) == 5 && ivmap_covered(&m) == 45);
	ivmap_free(&m);
}

int main(void)
{
	chain();
	host_between();
	rewrite();
	prod();
	realloc_moves();
	reads_first();
	regrown_gap();
	objects();
	power();
	refused();
	ivmap();
	return CHECK_DONE();
}
