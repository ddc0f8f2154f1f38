/* plan.h - the offload plan (issue 24, item 4; RESIDENCY.md section 3): which functions
 * to accelerate so that the whole run's predicted time, the transfers of the residency
 * simulation (resid.h) included, is least.  Keeping a matrix on the accelerator pays only
 * when its consumers are accelerated too, which --only-faster's call-by-call choice
 * cannot see. */
#ifndef SPEEDUP_PLAN_H
#define SPEEDUP_PLAN_H

#include <stdint.h>
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

/* The three plans as data, for the page reports (report_page.h). */
struct plan_row {
	const char *name;	/* best, all, call-by-call */
	char *functions;	/* accelerated, ", " between (malloc'd) */
	double total_ns, S_G;	/* T' with the transfers; S_G NaN when undefined */
	uint64_t h2d_bytes, d2h_bytes, h2d_transfers, d2h_transfers;
};
struct plan_rows {
	struct plan_row row[3];
	int n, least;		/* the rows; the one of least T' */
	const char *mode;	/* the residency mode: exact, optimistic, pessimistic, mixed */
	int exhaustive, ncand;
	uint64_t evaluated;
	double total_ns;	/* T */
};
/* Fills PR with R's plans (what plan_report prints).  0; -1 after a message. */
int plan_rows(const struct report *r, struct plan_rows *pr);
void plan_rows_free(struct plan_rows *pr);

#endif
