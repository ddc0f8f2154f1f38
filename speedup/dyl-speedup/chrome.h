/* chrome.h - dyl-speedup --chrome FILE: the run as Chrome trace-event JSON (Perfetto,
 * chrome://tracing), measured beside predicted (doc/threads.md, "The timeline in
 * Perfetto").  Per process: each thread's measured calls (as dyl-trace chrome writes
 * them) and its predicted timeline (timeline.h's results), the device queue (the
 * replaced calls as they run on the devices) and the link (the residency simulation's
 * h2d and d2h transfers, resid.h). */
#ifndef SPEEDUP_CHROME_H
#define SPEEDUP_CHROME_H

#include <stdio.h>
#include "predict.h"

/* --- chrome.c --- */

/* Writes the processes PROCS (N, predicted: their timelines and residency kept) to PATH,
 * through a new file renamed over it.  0, or -1 after a message. */
int chrome_write(const char *path, const struct prediction *procs, int n);

/* --- chrome_link.c: the device and link tracks --- */

/* One process's output state, shared by chrome.c and chrome_link.c. */
struct chrome {
	FILE *f;
	int first;		/* no event written yet */
	int64_t pid;
	double offset;		/* ns: this process's place on the run's time axis */
	const struct prediction *p;
	const struct timeline *tl;	/* NULL: the process has no timeline (Amdahl) */
	const double *const *arrive;	/* [thread][call]: each replaced call's predicted
					 * arrival (before any wait for a device) */
};

/* Track ids (the JSON's tid) of a process: a thread's measured track is its tid */
#define CH_PREDICTED 1000000000LL	/* + tid: its predicted track */
#define CH_DEVICE 2000000000LL		/* + lane */
#define CH_LINK 2100000000LL		/* + lane */

/* A complete event's start, up to its args' opening brace (the caller writes the args
 * and then "}}").  TS, DUR: ns on the process's own clock. */
void chrome_event(struct chrome *c, const char *name, const char *cat, double ts, double dur,
		  int64_t tid);
/* A metadata event: WHAT (thread_name, thread_sort_index, process_name) of track TID. */
void chrome_meta_name(struct chrome *c, const char *what, int64_t tid, const char *name);
void chrome_meta_sort(struct chrome *c, int64_t tid, long index);

/* The device queue and the link: the replaced calls of C's timeline on the devices, and
 * the transfers of its residency simulation placed in the calls they are charged to.
 * 0, or -1 out of memory. */
int chrome_devices(struct chrome *c);

#endif
