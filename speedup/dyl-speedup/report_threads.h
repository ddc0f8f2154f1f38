/* report_threads.h - the per-thread part of dyl-speedup's report: each thread's measured
 * and predicted time, the critical path, the waits for a device (timeline.h). */
#ifndef SPEEDUP_REPORT_THREADS_H
#define SPEEDUP_REPORT_THREADS_H

#include <stdio.h>
#include "report.h"

/* The threads' table, the critical path and the queueing of each process predicted by
 * its timeline (nothing for the others). */
void threads_table(FILE *out, const struct report *r);
/* ', "devices": N, "queue_wait_ns": ..., "threads": [...], "critical_path": [...]' for
 * the run's JSON object. */
void threads_json(FILE *out, const struct report *r);

#endif
