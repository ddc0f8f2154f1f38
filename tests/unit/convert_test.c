/* sources: runtime/format/csv.c runtime/format/csvconv.c runtime/format/decode.c runtime/format/fmtmem.c */
/* convert_test.c - the conversion's fast path (dyl_conv_plain, dyl_csv_plain, in
 * dyl_csv_convert) against the row-at-a-time one (dyl_conv_next, dyl_format_row): the
 * same bytes over a spool whose plain records change in every way the fast path treats
 * apart: starts below and across 10^8, 10^9 and 10^10 ns, durations of 1 to 4 digits,
 * depths of one digit and two, a name that needs quotes and one too long to keep, rows
 * in ns (DYL_REC_DUR_NS), untimed rows, an extended record, and two threads whose runs
 * of calls interleave (a run's first start tying with the other's).  Converted into
 * blocks of the least size allowed, so that rows end blocks at every place. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"
#include "dyl_csv.h"
#include "spoolmk.h"

static char got[1 << 23], want[1 << 23];
static size_t got_len;

#define PER_BLOCK 300

struct rec {
	uint64_t start;
	uint32_t dur, meta;
	int ext;
};

/* A block of thread TID's records R[0 .. N - 1] (plain, or with sizes when EXT). */
static void block(int32_t tid, const struct rec *r, size_t n)
{
	static char recs[PER_BLOCK * 48];
	size_t rl = 0;
	uint64_t min = UINT64_MAX;

	for (size_t i = 0; i < n; i++) {
		struct dyl_rec x = { r[i].start, r[i].dur, r[i].meta };
		static const uint64_t sizes[3] = { 10, 20, 30 };
		if (r[i].start < min)
			min = r[i].start;
		rec_put(recs, &rl, x, r[i].ext ? sizes : NULL);
	}
	block_put(tid, recs, rl, min);
}

/* The spool: no clock chunk (ticks are ns), names 0-3, two threads' calls. */
static void make_spool(void)
{
	struct dyl_spool_head h = { DYL_SPOOL_MAGIC, DYL_SPOOL_VERSION, 0 };
	static const char meta[80] = "seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args,c1\n";
	static char names[8 + 128];
	static struct rec r[2][PER_BLOCK];
	uint32_t nl = 8;
	const char *name[4] = { "add", "with,comma", NULL, "x" };
	char lng[100];

	memset(lng, 'n', 90);
	lng[90] = '\0';
	name[2] = lng;	/* longer than a kept ",TID,FUNC," */
	uint32_t first = 0, count = 4;
	memcpy(names, &first, 4);
	memcpy(names + 4, &count, 4);
	for (int i = 0; i < 4; i++) {
		size_t l = strlen(name[i]) + 1;
		memcpy(names + nl, name[i], l);
		nl += (uint32_t)l;
	}
	nl = (nl + 7) & ~7u;
	put(&h, sizeof(h));
	uint32_t mh[2] = { 1, (uint32_t)strlen(meta) };
	uint32_t ml = (uint32_t)((8 + strlen(meta) + 7) & ~7u);
	chunk(DYL_CH_META, ml);
	put(mh, 8);
	put(meta, ml - 8);	/* (with zeros to the chunk's end) */
	chunk(DYL_CH_NAMES, nl);
	put(names, nl);

	srand(11);
	uint64_t t = 5;
	size_t n[2] = { 0, 0 };
	for (int k = 0; k < 40000; k++) {
		int th = rand() % 7 == 0;	/* the second thread: short runs */
		struct rec *x = &r[th][n[th]];
		/* starts: through 10^8 .. 10^10 and beyond, in small steps mostly */
		t += (uint64_t)(rand() % 50) + (rand() % 500 == 0 ? 99999000u : 0);
		if (k == 20000)
			t = 9999999000ull;
		uint32_t dur = (uint32_t)(rand() % 3 == 0 ? rand() % 10 : rand() % 8 == 0 ? rand() % 20000 : rand() % 100);
		uint32_t id = (uint32_t)(rand() % 16 == 0 ? rand() % 5 : 0);	/* 4: no name ("?") */
		uint32_t depth = (uint32_t)(rand() % 20 == 0 ? 10 + rand() % 5 : rand() % 3);
		uint32_t flags = rand() % 300 == 0 ? DYL_REC_DUR_NS : 0;
		*x = (struct rec){ rand() % 400 == 0 && !n[th] ? 0 : t, dur,
				   id | depth << 20 | flags << 28, rand() % 350 == 0 };
		if (x->start == 0)
			x->meta &= ~(0xffu << 20);	/* (an untimed row first: depth 0) */
		if (++n[th] == PER_BLOCK || k == 39999) {
			block(th + 1, r[th], n[th]);
			n[th] = 0;
		}
		if (k == 39999 && n[!th])
			block(!th + 1, r[!th], n[!th]);
	}
}

static int put_got(void *arg, const char *data, size_t n)
{
	(void)arg;
	CHECK(got_len + n <= sizeof(got));
	if (got_len + n <= sizeof(got)) {
		memcpy(got + got_len, data, n);
		got_len += n;
	}
	return 0;
}

int main(void)
{
	const char *why;
	static char buf[2 * DYL_ROW_MAX + 100];
	struct dyl_row r;

	make_spool();
	int fd = memfd_create("convert-test", 0);
	CHECK(fd >= 0 && write(fd, spool, len) == (ssize_t)len);
	struct dyl_conv *c = dyl_conv_open(fd, len, 0, &why);
	CHECK(c != NULL);
	if (!c)
		return 1;
	size_t want_len = 0, rows = 0;
	unsigned ncol = dyl_conv_ncolumns(c);
	CHECK(ncol == 1);
	while (dyl_conv_next(c, &r)) {
		want_len += dyl_format_row(want + want_len, DYL_ROW_MAX, &r, ncol);
		rows++;
		CHECK(want_len + DYL_ROW_MAX <= sizeof(want));
	}
	dyl_conv_close(c);
	CHECK(rows == 40000);

	/* blocks of the least size, and of the runtime's */
	size_t sizes[2] = { 2 * DYL_ROW_MAX, DYL_CONVERT_BLOCK };
	for (int k = 0; k < 2; k++) {
		char *b = k ? malloc(sizes[k]) : buf;
		c = dyl_conv_open(fd, len, 0, &why);
		CHECK(c != NULL && b != NULL);
		if (!c || !b)
			return 1;
		got_len = 0;
		uint64_t n = dyl_csv_convert(c, b, sizes[k], put_got, NULL);
		CHECK(n == rows);
		CHECK(dyl_conv_seq(c) == rows);
		dyl_conv_close(c);
		if (k)
			free(b);
		size_t i = 0;
		while (i < got_len && i < want_len && got[i] == want[i])
			i++;
		CHECK_MSG(got_len == want_len && i == got_len,
			  "block %zu: %zu bytes, want %zu; first difference at %zu: '%.60s' want '%.60s'",
			  sizes[k], got_len, want_len, i, got + (i > 20 ? i - 20 : 0),
			  want + (i > 20 ? i - 20 : 0));
	}
	close(fd);
	return check_failures != 0;
}
