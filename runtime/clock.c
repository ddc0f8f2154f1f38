/* clock.c - the trace clock and its conversion to nanoseconds.
 *
 * Calls are timed in "ticks": the invariant TSC (rdtsc, inlined into the wrappers by
 * dyl_now() in dyl.h) where the CPU has one, else CLOCK_MONOTONIC in ns.  DYL_CLOCK=tsc
 * or DYL_CLOCK=monotonic chooses.  Ticks become CLOCK_MONOTONIC ns only when the spool
 * is converted (runtime/format/decode.c), through a piecewise linear map whose knots are (tsc, ns)
 * pairs read together here: at start-up, and at write-outs spaced out as the run grows
 * (so a handful of knots cover any run); each new knot goes into the spool.  A
 * piecewise linear map with rising knots is monotonic: rows never swap order.
 *
 * The knots are guarded by dyl_out.io: only write-out code adds them.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"

int dyl_tsc_on;	/* exported: dyl_now() reads the TSC when set */

/* The C library's own clock_gettime (the vDSO behind it), not whatever the global
 * scope calls clock_gettime: a wrapper of libc itself would time its own clock calls,
 * endlessly.  Looked up in libc's handle at first use; a race only repeats the lookup. */
typedef int (*clock_fn)(clockid_t, struct timespec *);
static clock_fn libc_clock_gettime;

static clock_fn find_clock(void)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	clock_fn fn = libc ? (clock_fn)dlsym(libc, "clock_gettime") : NULL;

	if (!fn)
		fn = clock_gettime;
	__atomic_store_n(&libc_clock_gettime, fn, __ATOMIC_RELAXED);
	return fn;
}

static uint64_t read_clock(clockid_t id)
{
	struct timespec ts;
	clock_fn fn = __atomic_load_n(&libc_clock_gettime, __ATOMIC_RELAXED);

	if (dyl_unlikely(fn == NULL))
		fn = find_clock();
	fn(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t dyl_monotonic_ns(void)
{
	return read_clock(CLOCK_MONOTONIC);
}

uint64_t dyl_clock_read(void)
{
	return read_clock(CLOCK_MONOTONIC);
}

uint64_t dyl_cpu_ns(void)
{
	return read_clock(CLOCK_PROCESS_CPUTIME_ID);
}

uint64_t dyl_realtime_ns(void)
{
	return read_clock(CLOCK_REALTIME);
}

uint64_t dyl_thread_cpu_ns(void)
{
	return read_clock(CLOCK_THREAD_CPUTIME_ID);
}

/* Is the TSC invariant (same rate in every power state, synchronised across cores)?
 * CPUID says so on bare metal; hypervisors often hide that bit but the kernel still
 * reports what it found in the cpuinfo flags. */
static int tsc_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	char buf[4096];

	if (__get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8)))
		return 1;
	int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	char *flags = strstr(buf, "\nflags");
	if (!flags)
		return 0;
	char *eol = strchr(flags + 1, '\n');
	if (eol)
		*eol = '\0';
	return strstr(flags, " constant_tsc") && strstr(flags, " nonstop_tsc");
#else
	return 0;
#endif
}

/* --- ticks to ns --- */

#define MAX_KNOTS 1024
#define knot dyl_knot
static struct knot knots[MAX_KNOTS];
static unsigned nknots;
static uint64_t cost_ns;	/* two clock reads, measured once */


/* A (tsc, ns) pair read as close together as this machine allows: the best of a few. */
static struct knot read_pair(void)
{
	struct knot best = { 0, 0 };
	uint64_t width = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t a = dyl_now(), ns = dyl_monotonic_ns(), b = dyl_now();
		if (b - a < width) {
			width = b - a;
			best.tsc = a + (b - a) / 2;
			best.ns = ns;
		}
	}
	return best;
}

void dyl_clock_setup(void)
{
	const char *e = dyl_env(DYL_ENV_CLOCK);

	if (e && !strcmp(e, "monotonic"))
		dyl_tsc_on = 0;
	else if (e && !strcmp(e, "tsc"))
		dyl_tsc_on = 1;
	else
		dyl_tsc_on = tsc_invariant();
	dyl_env_default(DYL_ENV_CLOCK, dyl_clock_name());
	/* the runtime's knots start here, whatever the clock */
	nknots = 0;
	if (dyl_tsc_on) {
		knots[0] = read_pair();
		nknots = 1;
	}
}

/* Adds a knot when the last one is old enough (see below), so that close pairs (whose
 * reading jitter would tilt a short segment) are never used and the table lasts for
 * any run.  FORCE_SPAN: with no slope yet, wait for one.  dyl_out.io held. */
static void add_knot(int force_span)
{
	struct knot k;

	if (!dyl_tsc_on)
		return;
	if (nknots == 0) {
		knots[0] = read_pair();
		nknots = 1;
	}
	for (;;) {
		k = read_pair();
		struct knot *last = &knots[nknots - 1];
		/* the first slope from 1 ms (a pair's jitter, ~30 ns, is then 3e-5 of
		 * it), later ones 10 ms and 1/32 of the run apart */
		uint64_t span = k.ns - knots[0].ns, gap = nknots == 1 ? 1000000u : 10000000u;
		if (nknots > 1 && span / 32 > gap)
			gap = span / 32;
		if (k.ns >= last->ns + gap && k.tsc > last->tsc)
			break;
		if (!force_span || nknots > 1)
			return;
		/* no slope yet: the first write-out of a short run spins up to 1 ms */
	}
	if (nknots == MAX_KNOTS)
		nknots--;	/* extend the last segment */
	knots[nknots++] = k;
}

void dyl_clock_mark(void)
{
	add_knot(1);
}

const struct dyl_knot *dyl_clock_knots(uint32_t *n)
{
	*n = nknots;
	return knots;
}

/* A pair read now, at least 50 us after the first knot: the slope a reader uses when
 * the process dies before a second knot (a pair's jitter is then ~6e-4 of it). */
struct dyl_knot dyl_clock_provisional(void)
{
	struct dyl_knot k = { 0, 0 };

	if (!dyl_tsc_on || nknots == 0)
		return k;
	do
		k = read_pair();
	while (k.ns < knots[0].ns + 50000 || k.tsc <= knots[0].tsc);
	return k;
}

/* The ticks' rate over the run so far: from the first knot to a pair read now. */
double dyl_clock_ns_per_tick(void)
{
	if (!dyl_tsc_on || nknots == 0)
		return 1.0;
	struct dyl_knot k = dyl_clock_provisional();
	return (double)(k.ns - knots[0].ns) / (double)(k.tsc - knots[0].tsc);
}

uint64_t dyl_clock_cost_ns(void)
{
	if (!cost_ns) {
		/* two reads, as a timed call makes them (the loop's own cost included); the
		 * best of 8 batches, so that a preemption does not count.  A batch's bracket
		 * (two monotonic reads: their best alone) is taken off, so that short batches
		 * suffice: the process's first call waits for this (8 x 250 pairs took ~100 us
		 * here, 8 x 32 take ~15) */
		enum { BATCHES = 8, N = 32 };
		volatile uint64_t sink = 0;
		uint64_t best = UINT64_MAX, bracket = UINT64_MAX;
		for (int b = 0; b < BATCHES; b++) {
			uint64_t t0 = dyl_monotonic_ns();
			uint64_t t1 = dyl_monotonic_ns();
			if (t1 - t0 < bracket)
				bracket = t1 - t0;
			t0 = dyl_monotonic_ns();
			for (int i = 0; i < N; i++) {
				uint64_t a = dyl_now();
				sink += dyl_now() - a;
			}
			uint64_t t = dyl_monotonic_ns() - t0;
			if (t < best)
				best = t;
		}
		cost_ns = best > bracket ? (best - bracket + N / 2) / N : 1;
		if (!cost_ns)
			cost_ns = 1;
	}
	return cost_ns;
}

const char *dyl_clock_name(void)
{
	return dyl_tsc_on ? "tsc" : "monotonic";
}

/* The process's tracing cost so far, ns: the calls timed whole scaled to all calls,
 * and what was timed every time; OUTSIDE_NS: the part of it spent with no call open
 * (struct dyl_cost). */
uint64_t dyl_cost_ns(uint64_t *samples, uint64_t *outside_ns)
{
	struct dyl_cost c = { 0 };

	pthread_mutex_lock(&dyl_proc.lock);
	dyl_cost_sum(&c, &dyl_costs.sum);
	for (struct dyl_thread *t = dyl_proc.threads; t; t = t->next)
		dyl_cost_sum(&c, &t->cost);	/* a running thread's: a moment's view is enough */
	pthread_mutex_unlock(&dyl_proc.lock);
	*samples = c.samples;
	double ticks = (double)c.whole + (double)c.outer - (double)c.inner;
	double per_tick = dyl_clock_ns_per_tick();
	double ns = ticks * per_tick + (double)c.outer_ns - (double)c.inner_ns;
	*outside_ns = (uint64_t)((double)c.outside * per_tick);
	if (ns > 0 && *outside_ns > (uint64_t)ns)
		*outside_ns = (uint64_t)ns;
	return ns > 0 ? (uint64_t)ns : 0;
}
