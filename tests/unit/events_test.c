/* sources: runtime/format/events.c runtime/format/decode.c runtime/format/csv.c runtime/format/fmtmem.c */
/* events_test.c - a spool's thread events as '#' lines (runtime/format/events.c), on a
 * spool made by hand: an end matched to its thread by tid, a join to its thread by
 * pthread_t (one reused by a thread that started before the join was recorded), a join of a thread the spool never saw start (no
 * line), a thread still running (end empty), a wait and a wake-up (each a line of its own,
 * with its object), the lines in time order across chunks, and a last chunk cut short
 * (not read).  Names: last, one a thread (its last), odd bytes as \xHH; a spool of names
 * alone has no '# threads=recorded'.  Ticks are ns here (a clock without TSC), t0 = 1000. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"
#include "dyl_decode.h"
#include "dyl_events.h"

static int fd;
static uint64_t size;

static void put(const void *p, size_t n)
{
	CHECK(pwrite(fd, p, n, (off_t)size) == (ssize_t)n);
	size += n;
}

static void chunk(uint32_t kind, const void *body, uint32_t len)
{
	struct dyl_chunk ch = { kind, len };
	put(&ch, sizeof(ch));
	put(body, len);
}

static void events(const struct dyl_event *ev, uint32_t n)
{
	char buf[8 + 16 * sizeof(*ev)];
	uint32_t head[2] = { n, 0 };
	memcpy(buf, head, 8);
	memcpy(buf + 8, ev, n * sizeof(*ev));
	chunk(DYL_CH_EVENTS, buf, 8 + n * (uint32_t)sizeof(*ev));
}

/* A DYL_EV_NAME event: NAME's bytes (16, NUL-padded) in handle and t1 */
static struct dyl_event name_ev(int32_t tid, const char *name)
{
	struct dyl_event e = { DYL_EV_NAME, tid, 0, 0, 0, 0, 0 };
	char b[16] = { 0 };

	memcpy(b, name, strlen(name) < 16 ? strlen(name) : 16);
	memcpy(&e.handle, b, 8);
	memcpy(&e.t1, b + 8, 8);
	return e;
}

static char *text_of(size_t *len)
{
	const char *why;
	struct dyl_conv *c = dyl_conv_open(fd, size, 0, &why);
	CHECK(c != NULL);
	if (!c)
		return NULL;
	char *t = dyl_events_text(c, fd, size, len);
	dyl_conv_close(c);
	return t;
}

/* A spool whose only events are names (a wrapper whose thread interposers only forward):
 * the names, and no '# threads=recorded'. */
static void names_only(void)
{
	struct dyl_spool_head h = { DYL_SPOOL_MAGIC, DYL_SPOOL_VERSION, 0 };
	struct dyl_spool_clock clk = { 0, 0, 1000, 0, 0 };
	const struct dyl_event n[] = { name_ev(5, "solo") };
	size_t len;

	fd = memfd_create("events_names", 0);
	size = 0;
	put(&h, sizeof(h));
	chunk(DYL_CH_CLOCK, &clk, sizeof(clk));
	events(n, 1);
	char *t = text_of(&len);
	CHECK(t != NULL && len == 30 && memcmp(t, "# thread_name tid=5 name=solo\n", 30) == 0);
	dyl_events_free(t);
	close(fd);
}

int main(void)
{
	struct dyl_spool_head h = { DYL_SPOOL_MAGIC, DYL_SPOOL_VERSION, 0 };
	struct dyl_spool_clock clk = { 0, 0, 1000, 0, 0 };
	size_t len;

	fd = memfd_create("events_test", 0);
	CHECK(fd >= 0);
	put(&h, sizeof(h));
	chunk(DYL_CH_CLOCK, &clk, sizeof(clk));
	CHECK(text_of(&len) == NULL && len == 0);	/* no event: no line at all */

	const struct dyl_event a[] = {
		{ DYL_EV_ON, 10, 0, 0, 0, 0, 0 },
		{ DYL_EV_START, 11, 10, 0, 0xA, 1100, 1200 },
		{ DYL_EV_START, 12, 10, 0, 0xB, 1150, 1300 },
		{ DYL_EV_END, 11, 0, 0, 0, 1500, 0 },
		/* 0xA again, for a thread created once the join below freed it, which started
		 * before the join was recorded: the join is still 11's (created before the
		 * join was called) */
		{ DYL_EV_START, 13, 10, 0, 0xA, 1700, 1720 },
		{ DYL_EV_JOIN, 10, 0, 0, 0xA, 1400, 1750 },
	};
	events(a, sizeof(a) / sizeof(a[0]));
	const struct dyl_event b[] = {
		{ DYL_EV_END, 13, 0, 0, 0, 1900, 0 },
		{ DYL_EV_JOIN, 10, 0, 0, 0xA, 2000, 2100 },
		{ DYL_EV_PARALLEL, 10, 0, 0, 0, 2200, 2300 },
		{ DYL_EV_START, 14, 12, 0, 0xC, 2250, 2260 },
		{ DYL_EV_WAKE, 14, 0, DYL_ON_MUTEX, 0x200, 2275, 0 },
		{ DYL_EV_WAIT, 12, 0, DYL_ON_COND, 0x100, 2270, 2280 },
		{ DYL_EV_END, 12, 0, 0, 0, 2400, 0 },
		{ DYL_EV_JOIN, 10, 0, 0, 0xD, 2500, 2600 },	/* never started here */
	};
	events(b, sizeof(b) / sizeof(b[0]));
	const struct dyl_event n[] = { name_ev(12, "early"), name_ev(10, "main"),
				       name_ev(12, "worker 2\\") };
	events(n, 3);
	/* a chunk cut short: its header says more than there is */
	struct dyl_chunk cut = { DYL_CH_EVENTS, 4096 };
	put(&cut, sizeof(cut));
	put(a, 16);

	char *t = text_of(&len);
	CHECK(t != NULL);
	if (t) {
		char got[2048];
		snprintf(got, sizeof(got), "%.*s", (int)len, t);
		CHECK_STR(got,
			  "# threads=recorded\n"
			  "# thread tid=11 parent=10 create_ns=100 start_ns=200 end_ns=500\n"
			  "# thread tid=12 parent=10 create_ns=150 start_ns=300 end_ns=1400\n"
			  "# join tid=10 target=11 call_ns=400 ret_ns=750\n"
			  "# thread tid=13 parent=10 create_ns=700 start_ns=720 end_ns=900\n"
			  "# join tid=10 target=13 call_ns=1000 ret_ns=1100\n"
			  "# parallel tid=10 call_ns=1200 ret_ns=1300\n"
			  "# thread tid=14 parent=12 create_ns=1250 start_ns=1260 end_ns=\n"
			  "# wait tid=12 on=cond obj=256 call_ns=1270 ret_ns=1280\n"
			  "# wake tid=14 on=mutex obj=512 at_ns=1275\n"
			  "# thread_name tid=12 name=worker\\x202\\x5c\n"
			  "# thread_name tid=10 name=main\n");
		dyl_events_free(t);
	}
	close(fd);
	names_only();
	return check_failures != 0;
}
