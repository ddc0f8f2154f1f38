/* sources: runtime/format/csv.c runtime/format/decode.c runtime/format/fmtmem.c */
/* format_test.c - the CSV row writer (runtime/format/csv.c) against snprintf: numbers at
 * their edges, and the kept-state writer (dyl_csv_row) against the plain one
 * (dyl_format_row) over rows that change seq, thread, name and fields in every way a
 * conversion meets.  Exits 0 when all checks pass; one line per failure. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "dyl_csv.h"

static int failures;

static void check_u64(uint64_t v)
{
	char want[32], got[32];
	snprintf(want, sizeof(want), "%" PRIu64, v);
	*dyl_put_u64(got, v) = '\0';
	if (strcmp(want, got)) {
		printf("dyl_put_u64(%s) wrote %s\n", want, got);
		failures++;
	}
}

static void check_i64(int64_t v)
{
	char want[32], got[32];
	snprintf(want, sizeof(want), "%" PRId64, v);
	*dyl_put_i64(got, v) = '\0';
	if (strcmp(want, got)) {
		printf("dyl_put_i64(%s) wrote %s\n", want, got);
		failures++;
	}
}

static void numbers(void)
{
	uint64_t p = 1;
	check_u64(0);
	check_u64(UINT64_MAX);
	check_u64(UINT64_MAX - 1);
	check_u64(UINT32_MAX);
	check_u64((uint64_t)UINT32_MAX + 1);
	for (int i = 0; i < 20; i++, p *= 10) {	/* every length and its edges */
		check_u64(p);
		check_u64(p - 1);
		check_u64(p + 1);
		check_u64(p * 9 + (p - 1));	/* 99..9 */
		check_i64(-(int64_t)(p > INT64_MAX ? 1 : p));
	}
	check_i64(0);
	check_i64(-1);
	check_i64(INT64_MIN + 1);
	check_i64(INT64_MAX);
	check_i64(INT64_MIN);	/* DYL_NONE's value: as a plain number, negative */
	for (uint64_t v = 1; v < UINT64_MAX / 3; v = v * 3 + 1)
		check_u64(v);
	/* the last 8 digits of a longer number (csv.c's put8): each of 10^4 and 10^2's
	 * quotients at their edges, and a sample of the rest */
	for (uint64_t k = 0; k < 100000000; k += 9999)
		for (uint64_t d = 0; d < 3; d++)
			check_u64(100000000 + k + d);
	for (uint64_t k = 0; k < 10000; k++)
		check_u64(1000000000000 + k * 10000 + 99);
}

/* The row as snprintf would write it: the trace's CSV (nothing quoted here). */
static void row_by_snprintf(char *out, size_t room, const struct dyl_row *r)
{
	snprintf(out, room, "%" PRIu64 ",%" PRIu32 ",%.*s,%" PRIu64 ",%" PRIu64 ",,,,%" PRIu32 ",\n",
		 r->seq, (uint32_t)r->tid, (int)r->func_len, r->func, r->t_start_ns, r->t_ns,
		 r->depth);
}

static void same_rows(const struct dyl_row *rows, size_t n, unsigned ncol)
{
	struct dyl_csv_writer w = { 0 };
	static char a[DYL_ROW_MAX], b[DYL_ROW_MAX];

	for (size_t i = 0; i < n; i++) {
		size_t la = dyl_format_row(a, sizeof(a), &rows[i], ncol);
		size_t lb = dyl_csv_row(&w, b, sizeof(b), &rows[i], ncol);
		if (la != lb || memcmp(a, b, la)) {
			printf("row %zu (seq %" PRIu64 "): dyl_csv_row wrote '%.*s', dyl_format_row '%.*s'\n",
			       i, rows[i].seq, (int)lb, b, (int)la, a);
			failures++;
		}
	}
}

static struct dyl_row plain(uint64_t seq, int32_t tid, const char *func, uint32_t id)
{
	struct dyl_row r;
	memset(&r, 0, sizeof(r));
	r.seq = seq;
	r.tid = tid;
	r.func = func;
	r.func_len = (uint32_t)strlen(func);
	r.func_id = id;
	r.timed = 1;
	r.t_start_ns = seq * 1000 + 7;
	r.t_ns = seq % 1000;
	r.in_bytes = r.out_bytes = r.work = DYL_NONE;
	return r;
}

static const int64_t counters[3] = { 5, -6, DYL_NONE };

/* The rows same_rows compares, into R: how many. */
static size_t make_rows(struct dyl_row *r)
{
	static const char *names[] = { "nop", "a,b", "q\"uote", "new\nline", "" };
	size_t n = 0;

	/* seq up by one through every carry (9, 99, 999 ...), with a jump back (a call
	 * numbered at an earlier place) and forward */
	for (uint64_t s = 0; s < 1200; s++)
		r[n++] = plain(s, 42, "nop", 0);
	r[n++] = plain(5, 42, "nop", 0);
	r[n++] = plain(6, 42, "nop", 0);
	r[n++] = plain(99999999, 42, "nop", 0);
	r[n++] = plain(100000000, 42, "nop", 0);
	r[n++] = plain(UINT64_MAX - 1, 42, "nop", 0);
	r[n++] = plain(UINT64_MAX, 42, "nop", 0);
	r[n++] = plain(0, 42, "nop", 0);
	/* another thread, a negative tid, other names (quoted), the same id with another name */
	for (int i = 0; i < 5; i++) {
		r[n++] = plain(1300 + i, 43, names[i], (uint32_t)i);
		r[n++] = plain(1400 + i, -1, names[i], (uint32_t)i);
		r[n++] = plain(1500 + i, -1, "other", (uint32_t)i);
	}
	/* untimed, sizes (one empty, negative), depth, args, counters */
	struct dyl_row x = plain(2000, 42, "nop", 0);
	x.timed = 0;
	r[n++] = x;
	x = plain(2001, 42, "nop", 0);
	x.in_bytes = 10, x.out_bytes = DYL_NONE, x.depth = 3;
	r[n++] = x;
	x.in_bytes = -5, x.out_bytes = INT64_MAX, x.work = INT64_MIN + 1, x.seq++;
	r[n++] = x;
	x = plain(2003, 42, "nop", 0);
	x.args = "a=1, \"b\"\n", x.args_len = 9;
	x.counters = counters, x.ncounters = 3, x.counter_base = 1;
	r[n++] = x;
	/* threads and functions in turn, more of them than the writer keeps (slots shared) */
	static const char *fn[] = { "malloc", "free", "memcpy", "a_much_longer_function_name_here",
				    "x", "q,uoted", "dgemm_", "pthread_mutex_lock_with_a_name_of_48_bytes__" };
	for (uint32_t i = 0; i < 1500; i++) {
		uint32_t id = (i * 7 + i / 13) % 40;
		r[n++] = plain(3000 + i, (int32_t)(i % 11) - 2, fn[id % 8], id);
	}
	for (uint32_t i = 0; i < 500; i++) {	/* 100 threads, one function: slots shared */
		r[n++] = plain(4500 + i, (int32_t)(i % 100), "nop", 0);
		r[n++] = plain(5000 + i, (int32_t)(i % 97), "free", 1);
	}
	return n;
}

/* make_rows' plain rows (not the sizes, args and counters, nor a quoted name) against
 * snprintf */
static void plain_rows_by_snprintf(const struct dyl_row *r, size_t n)
{
	char want[256], got[DYL_ROW_MAX];

	for (size_t i = 0; i < n; i++) {
		if ((i >= 1207 && i < n - 2500) || strchr(r[i].func, ','))
			continue;
		row_by_snprintf(want, sizeof(want), &r[i]);
		size_t l = dyl_format_row(got, sizeof(got), &r[i], 0);
		if (l != strlen(want) || memcmp(want, got, l)) {
			printf("seq %" PRIu64 ": wrote '%.*s', snprintf '%s'\n", r[i].seq, (int)l, got, want);
			failures++;
		}
	}
}

/* a quoted name, sizes, args and counters as the trace format says */
static void quoted_row(void)
{
	char got[DYL_ROW_MAX];
	struct dyl_row x = plain(7, 9, "a,\"b\"", 1);

	x.in_bytes = 3, x.out_bytes = DYL_NONE;
	x.args = "x\ny", x.args_len = 3;
	x.counters = counters, x.ncounters = 2, x.counter_base = 0;
	size_t l = dyl_format_row(got, sizeof(got), &x, 3);
	const char *expect = "7,9,\"a,\"\"b\"\"\",7007,7,3,,3,0,\"x y\",5,-6,\n";
	if (l != strlen(expect) || memcmp(got, expect, l)) {
		printf("quoted row: wrote '%.*s', want '%s'\n", (int)l, got, expect);
		failures++;
	}
	l = dyl_format_extra(got, sizeof(got), &x, 3);
	if (l != 13 || memcmp(got, "0,\"x y\",5,-6,", 13) != 0) {
		printf("extra: wrote '%.*s', want '0,\"x y\",5,-6,'\n", (int)l, got);
		failures++;
	}
}

static void rows(void)
{
	static struct dyl_row r[8192];
	size_t n = make_rows(r);

	same_rows(r, n, 0);
	same_rows(r, n, 4);
	same_rows(r, n, 40);	/* more than written: cut to DYL_CSV_MAX_COUNTERS */
	plain_rows_by_snprintf(r, n);
	quoted_row();
}

/* The kept-state writer's starts, durations and row ends: starts through every place
 * where the text of their digits above the last 8 changes (10^8 .. 2^64, up and back),
 * durations of every length, depths of one digit and more; against dyl_format_row and
 * snprintf. */
static void times(void)
{
	static struct dyl_row r[4096];
	static const uint64_t durs[] = { 0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 123456789,
					 UINT64_MAX };
	uint64_t starts[2048];
	size_t n = 0, ns = 0;
	char want[256], got[DYL_ROW_MAX];

	for (uint64_t p = 10; p <= 10000000000000000000ull; p *= 10) {
		for (uint64_t d = 0; d < 3; d++)
			starts[ns++] = p - 1 + d;
		starts[ns++] = p * 2;
		starts[ns++] = p + p / 2;	/* back, within the last start's 10^8 or not */
		if (p > UINT64_MAX / 10)
			break;
	}
	for (uint64_t v = 99999990; v < 100000012; v++)	/* on, across 10^8 */
		starts[ns++] = v;
	for (uint64_t v = 1799999990; v < 1800000012; v += 3)
		starts[ns++] = v;
	uint64_t top = UINT64_MAX - 100000000;	/* where no base is kept (csv.c) */
	uint64_t edge[] = { top - 1, top, top + 1, UINT64_MAX - 1, UINT64_MAX, top, 7, 5,
			    200000000, 199999999, 300000000, 299999999 };
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		starts[ns++] = edge[i];
	for (size_t i = 0; i < ns; i++) {
		struct dyl_row x = plain(i, 42, "nop", 0);
		x.t_start_ns = starts[i];
		x.t_ns = durs[i % (sizeof(durs) / sizeof(durs[0]))];
		x.depth = (uint32_t)(i % 13);	/* 0-9: the kept end; 10-12: written */
		r[n++] = x;
	}
	same_rows(r, n, 0);
	same_rows(r, n, 3);
	same_rows(r, n, 16);
	same_rows(r, n, 17);
	struct dyl_csv_writer w = { 0 };
	for (size_t i = 0; i < n; i++) {
		row_by_snprintf(want, sizeof(want), &r[i]);
		size_t l = dyl_csv_row(&w, got, sizeof(got), &r[i], 0);
		if (l != strlen(want) || memcmp(want, got, l)) {
			printf("start %" PRIu64 ": wrote '%.*s', snprintf '%s'\n", r[i].t_start_ns,
			       (int)l, got, want);
			failures++;
		}
	}
}

int main(void)
{
	numbers();
	rows();
	times();
	if (failures)
		printf("format_test: %d failures\n", failures);
	return failures != 0;
}
