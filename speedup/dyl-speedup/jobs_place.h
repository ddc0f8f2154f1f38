/* jobs_place.h - the run's timeline made of its processes' (jobs.c's steps). */
#ifndef SPEEDUP_JOBS_PLACE_H
#define SPEEDUP_JOBS_PLACE_H

#include "jobs.h"

/* JOB->tl: every process's threads (PROCS' timelines) on the run's axis, the processes
 * linked to those that started them, the dependencies (JOB->x) as joins.  0, or -1 out
 * of memory. */
int jobs_place(struct job *job, const struct prediction *procs);
/* Each process's and the run's figures from the walked timeline. */
void jobs_results(struct job *job);

#endif
