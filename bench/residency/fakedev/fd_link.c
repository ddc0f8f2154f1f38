/* fd_link.c - fakedev's link model: FAKEDEV_LINK names a model file with rows
 * @h2d,work,t_ns and @d2h,work,t_ns (work = bytes of one transfer), read once; a
 * transfer's time is interpolated between the two samples around its size, and
 * extrapolated from the two nearest outside them (never below 0), as dyl-speedup does.
 * A bad file stops the program with a message naming it and the line: a port timed by a
 * model it did not read would give a figure that means nothing. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fd_internal.h"

#define MAX_SAMPLES 256

/* The model, by direction: samples sorted by bytes. */
static struct {
	pthread_once_t once;
	int on, wait;
	clockid_t clock;	/* FAKEDEV_WAIT=cpu: the thread's CPU time, else the wall */
	struct sample { double bytes, ns; } s[2][MAX_SAMPLES];
	int n[2];
} model = { .once = PTHREAD_ONCE_INIT };

static void die(const char *path, int line, const char *what)
{
	fprintf(stderr, "fakedev: %s:%d: %s\n", path, line, what);
	exit(2);
}

static int by_bytes(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

static void load(void)
{
	const char *path = getenv("FAKEDEV_LINK"), *nw = getenv("FAKEDEV_NOWAIT");
	char buf[512];
	int line = 0, header = 0;
	FILE *f;

	/* FAKEDEV_WAIT=cpu: each copy burns its modelled time as the thread's CPU time, so
	 * the port's CPU time is its plain CPU time plus the link's, whatever else the
	 * machine runs (a sleep on a loaded machine wakes milliseconds late) */
	const char *w = getenv("FAKEDEV_WAIT");
	model.clock = w && !strcmp(w, "cpu") ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
	if (!path || !*path)
		return;
	if (!(f = fopen(path, "r")))
		die(path, 0, "cannot read the link model");
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		if (buf[0] == '#' || buf[0] == '\n')
			continue;
		if (!header) {
			if (strncmp(buf, "func,work,t_ns", 14) != 0)
				die(path, line, "no header func,work,t_ns");
			header = 1;
			continue;
		}
		int dir = !strncmp(buf, "@h2d,", 5) ? 0 : !strncmp(buf, "@d2h,", 5) ? 1 : -1;
		if (dir < 0)
			continue;	/* a kernel's row: not the link's business */
		char *end;
		double b = strtod(buf + 5, &end);
		double t = *end == ',' ? strtod(end + 1, &end) : -1;
		if (b < 0 || t < 0 || (*end && *end != ',' && *end != '\n' && *end != '\r'))
			die(path, line, "a link row needs work (bytes) and t_ns, both >= 0");
		if (model.n[dir] == MAX_SAMPLES)
			die(path, line, "more than 256 samples for one direction");
		model.s[dir][model.n[dir]++] = (struct sample){ b, t };
	}
	fclose(f);
	if (!model.n[0] || !model.n[1])
		die(path, line, "the link model needs @h2d and @d2h rows");
	for (int d = 0; d < 2; d++)
		qsort(model.s[d], (size_t)model.n[d], sizeof(struct sample), by_bytes);
	model.on = 1;
	model.wait = !(nw && *nw && strcmp(nw, "0") != 0);
}

double fd_link_ns(int dir, size_t bytes)
{
	pthread_once(&model.once, load);
	if (!model.on)
		return 0;
	const struct sample *s = model.s[dir];
	int n = model.n[dir], i = 1;
	double x = (double)bytes;

	if (n == 1)
		return s[0].ns;
	while (i < n - 1 && s[i].bytes < x)
		i++;
	/* s[i-1], s[i]: the samples around x, or the two nearest beyond the ends */
	double dx = s[i].bytes - s[i - 1].bytes;
	double t = dx > 0 ? s[i - 1].ns + (x - s[i - 1].bytes) * (s[i].ns - s[i - 1].ns) / dx
			  : s[i].ns;
	return t > 0 ? t : 0;
}

uint64_t fd_link_now(void)
{
	struct timespec ts;
	pthread_once(&model.once, load);
	clock_gettime(model.clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int fd_link_cpu_clock(void)
{
	pthread_once(&model.once, load);
	return model.clock == CLOCK_THREAD_CPUTIME_ID;
}

/* Sleeps for the bulk, spins the last 200 us: nanosleep alone overshoots by tens of us,
 * more than a small transfer's whole time.  On the CPU clock: spins all of it. */
void fd_link_wait(uint64_t t0, double ns)
{
	if (!model.on || !model.wait || ns <= 0)
		return;
	uint64_t until = t0 + (uint64_t)ns, now;
	while ((now = fd_link_now()) < until) {
		uint64_t left = until - now;
		if (left > 200000 && model.clock == CLOCK_MONOTONIC) {
			struct timespec ts = { 0, (long)(left - 200000) };
			if (left - 200000 >= 1000000000u) {
				ts.tv_sec = (time_t)((left - 200000) / 1000000000u);
				ts.tv_nsec = (long)((left - 200000) % 1000000000u);
			}
			nanosleep(&ts, NULL);
		}
	}
}
