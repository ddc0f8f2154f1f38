/* report.h - printing a prediction: a table for people, JSON or CSV for programs. */
#ifndef SPEEDUP_REPORT_H
#define SPEEDUP_REPORT_H

#include <stdio.h>
#include "device_models.h"
#include "model.h"
#include "predict.h"

enum report_format { REPORT_TABLE, REPORT_JSON, REPORT_CSV };

struct report {
	enum report_format format;
	int only_faster;
	int keep_overhead;	/* --keep-overhead: T as the trace says, tracing's cost in it */
	int cpu_time;		/* --cpu-time: T from cpu_ns for one-thread traces timed on the wall */
	int faults_replaced;	/* --faults-replaced: faulted calls replaced whole */
	int devices;		/* --devices: replaced calls at once, 0 unlimited */
	const struct prediction *procs;	/* one per trace */
	int nprocs;
	const struct prediction *run;	/* their sum */
	struct job *job;	/* several processes on one timeline (jobs.h); NULL */
	const char *job_why;	/* several traces not placed so: why (NULL) */
	/* the models the traces were read against: a function's model (func_names.h) is an index
	 * into them; the link's are looked up (and marked used) by --plan */
	struct models *models;
	const char *const *model_files;
	int nmodel_files;
	/* --device: the device whose kernels and link predict (device_models.h); NULL: none,
	 * and the report is as without the option */
	const struct device_models *device;
};

/* Prints R on OUT; returns 0, or -1 when out of memory (message printed). */
int report_print(FILE *out, const struct report *r);

/* For the page reports (report_page.h), what the table shows: the functions of RUN with a
 * model (WITH_MODEL) or without, by time (malloc'd, *N of them; NULL out of memory); what
 * bounds kernel K (--device); the notes (*TEXT, *N; freed by report_notes_free), 0 or -1. */
int *report_kernels(const struct prediction *run, int with_model, int *n);
const char *report_bounded_by(const struct kernel *k);
int report_notes(const struct report *r, char ***text, int *n);
void report_notes_free(char **text, int n);

#endif
