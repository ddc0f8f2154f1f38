/* plan.h - the offload plan (issue 24, item 4; RESIDENCY.md section 3): which functions
 * to accelerate so that the whole run's predicted time, the transfers of the residency
 * simulation (resid.h) included, is least.  Keeping a matrix on the accelerator pays only
 * when its consumers are accelerated too, which --only-faster's call-by-call choice
 * cannot see. */
#ifndef SPEEDUP_PLAN_H
#define SPEEDUP_PLAN_H

#include <stdio.h>
#include "report.h"

/* Functions with a model at most this many: every subset is tried; more: greedy flips */
#define PLAN_EXHAUSTIVE_MAX 12

/* Prints R's report (report_print) with the plans beside it: best, all-in and
 * call-by-call, each with its functions, T', S_G and the bytes it moves (a table after
 * the report; with --json a "plans" array in the object; with --csv '# plan' lines).
 * Needs link rows (@h2d, @d2h) among the models and a TRACE.flow beside each trace.
 * 0; -1 after a message (bad input, out of memory). */
int plan_report(FILE *out, const struct report *r);

#endif
