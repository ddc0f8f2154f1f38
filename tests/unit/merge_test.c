/* sources: runtime/format/decode.c runtime/format/fmtmem.c */
/* merge_test.c - the spool decoder's order of rows (runtime/format/decode.c): threads
 * whose runs of calls interleave (a run of 1 to 40 calls, then another thread's), in
 * blocks that are read in place (plain records in start order), blocks whose callers
 * come after their callees (sorted first), and blocks with an extended record.  The rows
 * must come numbered 0, 1, 2 ... in start order, then depth, then thread: the order of
 * a sort of all the calls, made here independently of the decoder. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"
#include "dyl_decode.h"
#include "spoolmk.h"

#define NTHREADS 3
#define NCALLS 6000

struct call {
	uint64_t start;
	uint32_t dur, depth, id;
	int32_t tid;
	int ext;	/* written with a payload (sizes) */
	uint32_t span;	/* a recursion's outermost call: its calls, it included */
};

static struct call calls[NCALLS];
static size_t ncalls;

/* One block of thread TID: calls FROM .. TO - 1 (all of that thread), written in the
 * order the runtime would: by end, so a caller after its callees. */
static void block(int32_t tid, const size_t *idx, size_t n)
{
	char recs[64 * 64];
	size_t rl = 0;
	uint64_t min = UINT64_MAX;

	for (size_t i = 0; i < n; i++) {
		const struct call *c = &calls[idx[i]];
		struct dyl_rec r = { c->start, c->dur, c->id | c->depth << 20 };
		static const uint64_t sizes[3] = { 1, 2, 3 };
		if (c->start < min)
			min = c->start;
		rec_put(recs, &rl, r, c->ext ? sizes : NULL);
	}
	block_put(tid, recs, rl, min);
}

static int call_before(const void *a, const void *b)
{
	const struct call *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The calls: each thread's runs of calls at their own times, the threads' runs
 * interleaved in time; a nest (a caller around two callees) now and then; a run's first
 * start ties with the last run's last now and then (then depth, then tid decide).
 * Within a thread no two calls share their start and depth. */
static void make_calls(void)
{
	uint64_t t = 1000;
	srand(7);
	while (ncalls < NCALLS - 64) {
		int32_t tid = 1 + rand() % NTHREADS;
		int run = 1 + rand() % 40;
		if (ncalls && calls[ncalls - 1].tid != tid && rand() % 3 == 0)
			t = calls[ncalls - 1].start;	/* a tie across threads */
		for (int i = 0; i < run && ncalls < NCALLS - 64; i++) {
			if (rand() % 200 == 0) {	/* a recursion: its block sorted from reversed */
				uint32_t d = 20 + (uint32_t)(rand() % 20);
				for (uint32_t k = 0; k < d; k++)
					calls[ncalls++] = (struct call){ t + 2 * k, 3, k, 3, tid, 0,
									 k ? 0 : d };
				t += 2 * d + 10;
			} else if (rand() % 9 == 0) {	/* caller, two callees */
				calls[ncalls++] = (struct call){ t, 30, 0, 1, tid, 0 };
				calls[ncalls++] = (struct call){ t + 5, 5, 1, 2, tid, rand() % 4 == 0 };
				calls[ncalls++] = (struct call){ t + 15, 5, 1, 2, tid, 0 };
				t += 40;
			} else {
				calls[ncalls++] = (struct call){ t, 7, 0, 0, tid, rand() % 50 == 0 };
				t += 10;
			}
		}
	}
}

/* The spool: its head, the names, then each thread's calls in blocks of up to 64 in
 * end order (blocks of one thread do not overlap in time), the threads' blocks
 * interleaved in the file. */
static void make_spool(void)
{
	struct dyl_spool_head h = { DYL_SPOOL_MAGIC, DYL_SPOOL_VERSION, 0 };
	static const char names[] = "\0\0\0\0\4\0\0\0add\0outer\0inner\0deep\0\0\0";	/* 8 + 24 */
	static size_t idx[NTHREADS][NCALLS];
	size_t n[NTHREADS] = { 0 }, done[NTHREADS] = { 0 };

	put(&h, sizeof(h));
	chunk(DYL_CH_NAMES, 32);
	put(names, 32);
	for (size_t i = 0; i < ncalls; i++) {
		/* end order: a caller goes after its callees */
		int32_t k = calls[i].tid - 1;
		if (calls[i].span) {	/* the deepest call ends first */
			uint32_t span = calls[i].span;
			for (uint32_t d = span; d-- > 0;)
				idx[k][n[k]++] = i + d;
			i += span - 1;
		} else if (calls[i].depth == 0 && calls[i].id == 1) {
			idx[k][n[k]++] = i + 1;
			idx[k][n[k]++] = i + 2;
			idx[k][n[k]++] = i;
			i += 2;
		} else {
			idx[k][n[k]++] = i;
		}
	}
	for (int more = 1; more;) {
		more = 0;
		for (int k = 0; k < NTHREADS; k++) {
			size_t m = n[k] - done[k] < 64 ? n[k] - done[k] : 64;
			/* (a nest is not split between blocks) */
			while (m && done[k] + m < n[k] && calls[idx[k][done[k] + m - 1]].depth)
				m--;
			if (!m)
				continue;
			block(k + 1, idx[k] + done[k], m);
			done[k] += m;
			more = 1;
		}
	}
}

int main(void)
{
	struct dyl_row r;
	const char *why;

	make_calls();
	make_spool();
	int fd = memfd_create("merge-test", 0);
	CHECK(fd >= 0 && write(fd, spool, len) == (ssize_t)len);
	struct dyl_conv *c = dyl_conv_open(fd, len, 0, &why);
	CHECK(c != NULL);
	if (!c)
		return 1;
	qsort(calls, ncalls, sizeof(calls[0]), call_before);
	size_t i = 0;
	for (; dyl_conv_next(c, &r); i++) {
		if (i >= ncalls) {
			CHECK(i < ncalls);
			break;
		}
		const struct call *w = &calls[i];
		if (r.seq != i || r.tid != w->tid || r.t_start_ns != w->start || r.t_ns != w->dur ||
		    r.depth != w->depth || r.func_id != w->id ||
		    (r.in_bytes == 1) != w->ext) {
			printf("row %zu: seq %llu tid %d start %llu depth %u; want tid %d start %llu "
			       "depth %u\n", i, (unsigned long long)r.seq, r.tid,
			       (unsigned long long)r.t_start_ns, r.depth, w->tid,
			       (unsigned long long)w->start, w->depth);
			check_failures++;
			if (check_failures > 5)
				break;
		}
	}
	CHECK(i == ncalls);
	const char *what;
	CHECK(dyl_conv_damage(c, &what) == 0);
	dyl_conv_close(c);
	close(fd);
	return check_failures != 0;
}
