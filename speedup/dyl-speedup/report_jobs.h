/* report_jobs.h - the processes of a run placed on one timeline (jobs.h) in dyl-speedup's
 * report: each process's start, measured and predicted time and what it waited for other
 * processes, the dependencies between them and the run's critical path. */
#ifndef SPEEDUP_REPORT_JOBS_H
#define SPEEDUP_REPORT_JOBS_H

#include <stdio.h>
#include "report.h"

/* The processes' table (nothing for one process or a run not placed). */
void jobs_table(FILE *out, const struct report *r);
/* ', "job": {...}' for the run's JSON object (nothing when not placed). */
void jobs_json(FILE *out, const struct report *r);
/* ', "pid": ...' for process I's entry in "processes" (nothing when not placed). */
void jobs_json_proc(FILE *out, const struct report *r, int i);

#endif
