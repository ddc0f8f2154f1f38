/* report.c - the three outputs of dyl-speedup.
 *
 * All three show the same numbers; the notes (why some calls were not replaced, where
 * the model was extrapolated, how several processes were combined) are built once and
 * printed in the table and in the JSON, so a script sees what a person sees.
 *
 * This file is the top of the report: it calls its parts, the threads (report_threads.c)
 * and the transfers (report_xfer.c), which call none of it; all of them write numbers
 * through report_fmt.c.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "func_names.h"
#include "grow.h"
#include "input.h"
#include "model.h"
#include "model2d.h"
#include "report.h"
#include "report_fmt.h"
#include "report_jobs.h"
#include "report_threads.h"
#include "report_xfer.h"
#include "timeline.h"
#include "shown.h"
#include "wrap.h"

struct notes {
	char **text;
	int n;
	size_t room;
	int failed;
};

static void note(struct notes *ns, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct notes *ns, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (grow(&ns->text, sizeof(*ns->text), (size_t)ns->n, &ns->room, 16) != 0) {
		ns->failed = 1;
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		ns->failed = 1;
	else
		ns->text[ns->n++] = s;
	va_end(ap);
}

static void free_notes(struct notes *ns)
{
	for (int i = 0; i < ns->n; i++)
		free(ns->text[i]);
	free(ns->text);
}

static double share(double part, double whole)
{
	return whole > 0 ? part / whole : 0;
}

/* What of K's calls stays on the host: those not nested in a replaced call (the ones
 * nested in one run with it on the accelerator). */
static uint64_t host_calls(const struct kernel *k)
{
	return k->all_calls - k->hidden_calls;
}

static uint64_t host_t_ns(const struct kernel *k)
{
	return k->all_t_ns > k->hidden_t_ns ? k->all_t_ns - k->hidden_t_ns : 0;
}

/* Funcs of RUN that have a model (kernels), by measured time, or not (what of them
 * stays on the host), by the host's time, largest first. */
static int by_time(const void *a, const void *b, void *run)
{
	const struct prediction *r = run;
	const struct kernel *x = &r->k[*(const int *)a], *y = &r->k[*(const int *)b];
	int host = funcs_get(*(const int *)a)->model < 0;
	uint64_t tx = host ? host_t_ns(x) : x->all_t_ns, ty = host ? host_t_ns(y) : y->all_t_ns;

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return strcmp(funcs_get(*(const int *)a)->name, funcs_get(*(const int *)b)->name);
}

static int *list_funcs(const struct prediction *run, int with_model, int *n)
{
	int *ids = malloc(((size_t)run->nk + 1) * sizeof(*ids));

	*n = 0;
	if (!ids)
		return NULL;
	for (int id = 0; id < run->nk; id++)
		if ((with_model ? run->k[id].all_calls : host_calls(&run->k[id])) > 0 &&
		    (funcs_get(id)->model >= 0) == with_model)
			ids[(*n)++] = id;
	qsort_r(ids, (size_t)*n, sizeof(*ids), by_time, (void *)run);
	return ids;
}

/* K's calls (function NAME) outside the samples of its model M. */
static void range_note(struct notes *ns, const struct kernel *k, const char *name,
		       const struct model *m)
{
	if (k->out_of_range && m->b) {
		double b0 = m->b[0], b1 = m->b[0];
		for (size_t j = 1; j < m->n; j++)
			b0 = m->b[j] < b0 ? m->b[j] : b0, b1 = m->b[j] > b1 ? m->b[j] : b1;
		note(ns, "%s: %llu replaced call%s (%.2f%% of its measured time, %.2f%% of its predicted "
		     "time) outside the model's samples in (work, bytes) (work %.17g..%.17g, bytes "
		     "%.17g..%.17g; outside the triangles between them by more than 1%%): %s", name,
		     (unsigned long long)k->out_of_range, k->out_of_range == 1 ? "" : "s",
		     100 * share((double)k->out_of_range_t_ns, (double)k->t_ns),
		     100 * share(k->out_of_range_predicted_ns, k->predicted_ns), m->w[0], m->w[m->n - 1],
		     b0, b1, m->n == 1 ? "the model has one sample, taken as a constant"
			: "taken along the nearest edge between two samples, extrapolated along it "
			  "beyond them (in logarithms: a power law)");
	} else if (k->out_of_range)
		note(ns, "%s: %llu replaced call%s (%.2f%% of its measured time, %.2f%% of its predicted "
		     "time) outside the model's samples (work %.17g..%.17g): %s", name,
		     (unsigned long long)k->out_of_range, k->out_of_range == 1 ? "" : "s",
		     100 * share((double)k->out_of_range_t_ns, (double)k->t_ns),
		     100 * share(k->out_of_range_predicted_ns, k->predicted_ns), m->w[0], m->w[m->n - 1],
		     m->n == 1 ? "the model has one sample, taken as a constant"
			       : "extrapolated linearly from the two nearest samples (never below 0)");
}

/* The model of function ID, one with a model. */
static const struct model *model_of(const struct report *r, int id)
{
	return &r->models->m[funcs_get(id)->model];
}

/* What became of kernel ID's calls that were not simply replaced. */
static void kernel_notes(struct notes *ns, const struct report *r, int id)
{
	const struct prediction *run = r->run;
	const struct kernel *k = &run->k[id];
	const char *name = funcs_get(id)->shown;
	const struct model *m = model_of(r, id);

	range_note(ns, k, name, m);
	if (k->no_bytes)
		note(ns, "%s: %llu call%s (%.2f%% of T) without in_bytes or out_bytes in the trace, which "
		     "model '%s' (%s:%lu) is keyed on: not replaced, their measured time is kept", name,
		     (unsigned long long)k->no_bytes, k->no_bytes == 1 ? "" : "s",
		     100 * share((double)k->no_bytes_t_ns, (double)run->total_ns), m->shown, m->file,
		     m->line);
	if (k->no_work)
		note(ns, "%s: %llu call%s (%.2f%% of T) without a work size in the trace: not replaced, "
		     "their measured time is kept%s", name, (unsigned long long)k->no_work,
		     k->no_work == 1 ? "" : "s",
		     100 * share((double)k->no_work_t_ns, (double)run->total_ns),
		     k->calls || k->nested || k->slower ? ""
			: " (give the wrapper a work size: --defs setting work_size, or std.regions)");
	if (k->calls && funcs_get(id)->handle_only)
		note(ns, "%s: its calls' only bytes were the struct its pointer points to "
		     "('# handle_only=%s %s': parameters, bytes): buffers a handle holds (a plan, a "
		     "context) are not seen, nor their transfers counted; bind them to the handle "
		     "with --defs (dyl_bind, dyl_use: doc/guide.md#handles, examples/fftw.defs)",
		     name, name, funcs_get(id)->handle_only);
	if (k->nested)
		note(ns, "%s: %llu call%s nested inside replaced calls: not replaced separately (the outer "
		     "call's model time stands for them)", name, (unsigned long long)k->nested,
		     k->nested == 1 ? "" : "s");
	if (k->slower)
		note(ns, "%s: %llu call%s kept on the original implementation by --only-faster "
		     "(the model is not faster for them)", name, (unsigned long long)k->slower,
		     k->slower == 1 ? "" : "s");
	if (k->fault_calls && !r->faults_replaced)
		note(ns, "%s: %llu replaced call%s took page faults: %.17g ns of their time (what "
		     "each took above the median of its process's fault-free calls at its work) is "
		     "kept beside f(work), the faults being the program's", name,
		     (unsigned long long)k->fault_calls, k->fault_calls == 1 ? "" : "s",
		     k->fault_kept_ns);
	if (k->fault_unmatched)
		note(ns, "%s: %llu faulted call%s without a fault-free call of the same work in "
		     "%s process: replaced by f(work) alone", name,
		     (unsigned long long)k->fault_unmatched, k->fault_unmatched == 1 ? "" : "s",
		     k->fault_unmatched == 1 ? "its" : "their");
}

/* Process P's notes: tracing's cost, --cpu-time, a T that does not hold. */
static void process_notes(struct notes *ns, const struct prediction *p)
{
	if (p->overhead_left_ns > 0)
		note(ns, "%s: tracing's own cost ('# overhead_ns=%llu', summed over the threads) is "
		     "left in T: several threads recorded calls, and on the wall clock their costs "
		     "overlap (with calls timed in thread CPU time, std.time:clock=thread, it is "
		     "taken out)", p->path, (unsigned long long)p->overhead_left_ns);
	if (p->overhead_over_cpu_ns)
		note(ns, "%s: tracing's measured cost, '# overhead_ns=%llu', exceeds the process's "
		     "CPU time: calls timed whole waited for a core (a loaded machine?), and the "
		     "measure holds their waits; no more than the CPU time is taken out of T, "
		     "and the prediction is unsure (trace it again on an idle machine)", p->path,
		     (unsigned long long)p->overhead_over_cpu_ns);
	if (p->cpu_time_refused == 2)
		note(ns, "%s: --cpu-time does not apply: the calls' wall-clock time exceeds the "
		     "process's CPU time ('# cpu_ns='), so they waited for a core (a loaded "
		     "machine?) longer than T in CPU time could hold: T is the wall time", p->path);
	else if (p->cpu_time_refused)
		note(ns, "%s: --cpu-time does not apply: several threads recorded calls (their CPU "
		     "times add up to no run time) or the trace has no '# cpu_ns=': T is its wall "
		     "time", p->path);
	if (p->total_ns > 0 && !(p->predicted_total_ns > 0))
		note(ns, "%s: the replaced calls' time, %llu ns, exceeds T, %llu ns, by more than "
		     "their predicted time: T' = %.17g ns is no run time and S_G is undefined "
		     "(%s)", p->path, (unsigned long long)p->t_ns, (unsigned long long)p->total_ns,
		     p->predicted_total_ns,
		     p->t_cpu == 2 ? "--cpu-time: the calls were timed on the wall clock, with "
		     "what they waited for a core, which the CPU time T does not hold; a loaded "
		     "machine?" : p->threads > 1 ? "calls of several threads overlap in time" :
		     "the trace's times do not fit together: a damaged or hand-made trace?");
	else if (!p->timeline && (p->P > 1 || isnan(p->P)))
		note(ns, "%s: the replaced calls' time exceeds the process's total_ns (P > 1; parallel "
		     "threads?): Amdahl's law does not hold as such, read S_G with care", p->path);
	if (p->assumed_reads)
		note(ns, "%s: %llu of its %llu host reads are assumed, not seen: bytes the runtime "
		     "could not watch (pages shared with other objects, stack, statics), counted as "
		     "read by the program", p->path, (unsigned long long)p->assumed_reads,
		     (unsigned long long)p->host_read_events);
	if (p->residency && p->flow_no_diff)
		note(ns, "%s: its flow was recorded without std.diff: the program's own writes are not "
		     "seen, so data it rewrites between calls does not move again (record with -g "
		     "std.flow -g std.diff)", p->path);
	if (p->residency && p->follow_writes_unseen)
		note(ns, "%s: its flow was recorded with std.flow follow=: the blocks a call reaches "
		     "through stored pointers count as read, never as written ('# "
		     "flow_follow_writes='): bytes a replaced call writes there are never brought "
		     "back (d2h may be under-counted)", p->path);
	if (p->unmatched_calls)
		note(ns, "%s: %llu replaced calls are not in its flow (no depth-0 call of the same "
		     "thread, start and function): their transfers are not counted", p->path,
		     (unsigned long long)p->unmatched_calls);
	if (p->residency && p->timeline && p->xfer_ns > 0)
		note(ns, "%s: the transfers lengthen the calls they are charged to in the threads' "
		     "timelines; the other residency figures shift T' by their difference in "
		     "transfer time", p->path);
}

/* How the processes' threads were predicted: by their timelines, or added up (and why). */
static void thread_notes(struct notes *ns, const struct report *r)
{
	for (int i = 0; i < r->nprocs; i++) {
		const struct prediction *p = &r->procs[i];
		if (!p->timeline && p->threads > 1)
			note(ns, "%s: replaced calls come from %d threads: %s", p->path, p->threads,
			     p->no_timeline ? p->no_timeline : "added up as if they ran one after another");
		if (p->timeline && p->tl->absorbed)
			note(ns, "%s: %d thread%s created inside replaced calls (part of them: f(work) "
			     "stands for their work) or never reached", p->path, p->tl->absorbed,
			     p->tl->absorbed == 1 ? "" : "s");
		if (p->timeline && p->tl->unresolved)
			note(ns, "%s: %d join%s waited for a thread that never ended on the timeline: "
			     "kept as measured (a damaged trace?)", p->path, p->tl->unresolved,
			     p->tl->unresolved == 1 ? "" : "s");
	}
	if (!r->run->timeline)
		return;
	char dev[96] = "any number of replaced calls run at once (--devices unlimited)";
	if (r->devices)
		snprintf(dev, sizeof(dev), "at most %d replaced call%s at once, the others wait their "
			 "turn (--devices %d)", r->devices, r->devices == 1 ? " runs" : "s run",
			 r->devices);
	char amdahl[160], a[32];
	/* (a sum that is no run time is said to be one) */
	snprintf(amdahl, sizeof(amdahl), r->run->amdahl_total_ns > 0 ? "would say %s" :
		 "gives no run time (%s: calls of threads that ran at once, added up, exceed T)",
		 fmt_ns(a, sizeof(a), r->run->amdahl_total_ns));
	note(ns, "T' follows the threads' timelines: a replaced call shifts the rest of its thread, "
	     "threads start when their creator created them, joins wait for their target's "
	     "end and waits for the wake-up that ended them; %s; Amdahl's T - measured + "
	     "predicted, adding the threads' calls up, %s", dev, amdahl);
}

/* --device: the device, its link, and the traced functions its libraries lack. */
static void device_notes(struct notes *ns, const struct device_models *dm)
{
	char list[1024] = "";
	size_t o = 0;

	note(ns, "--device %s (%s, %s): each call of a function its libraries provide takes "
	     "launch + max(work / (peak x efficiency), bytes / (bandwidth x efficiency)); the "
	     "link is %s (doc/devices.md)", dm->dev.name, dm->dev.title, dm->dev.path,
	     dm->linkless ? "none" : dm->link_path);
	for (int i = 0; i < dm->nmissing && o < sizeof(list) - 1; i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", i ? ", " : "", dm->missing[i]);
	if (dm->linkless)
		note(ns, "--device: no transfers: %s has no link row, so its data does not move "
		     "(a host device, doc/devices.md)", dm->dev.name);
	if (dm->no_link)
		note(ns, "--device: no transfers counted: a trace has no TRACE.flow beside it (record "
		     "it with -g std.flow), so the link model %s was not loaded", dm->link_path);
	if (dm->nmissing)
		note(ns, "not provided by %s's libraries, so on the host: %s", dm->dev.name, list);
}

static void build_notes(struct notes *ns, const struct report *r, const int *kern, int nkern)
{
	const struct prediction *run = r->run;

	if (r->job)
		note(ns, "%d traces of one run, placed on one timeline by their start times (doc/jobs-timeline.md): "
		     "T is the first start to the last end, T' the same predicted; a child starts at "
		     "its parent's predicted fork, a waitpid returns at the child's predicted end, a "
		     "pipe read after the predicted write of its first byte", r->nprocs);
	else if (r->nprocs > 1)
		note(ns, "%d traces: each process is predicted on its own; the run as a whole takes T as "
		     "the sum of the processes' total_ns (processes that ran one after another)%s%s",
		     r->nprocs, r->job_why ? ": " : "", r->job_why ? r->job_why : "");
	if (run->rows == 0)
		note(ns, "the trace%s hold%s no calls: nothing to accelerate", r->nprocs > 1 ? "s" : "",
		     r->nprocs > 1 ? "" : "s");
	for (int i = 0; i < nkern; i++)
		kernel_notes(ns, r, kern[i]);
	if (r->faults_replaced && run->fault_calls)
		note(ns, "--faults-replaced: the %llu replaced call%s that took page faults are replaced "
		     "whole by f(work) (the accelerator is taken not to fault on the program's pages)",
		     (unsigned long long)run->fault_calls, run->fault_calls == 1 ? "" : "s");
	if (r->only_faster)
		note(ns, "--only-faster: only calls the model makes faster are replaced (the best "
		     "implementation per call, decided from the outermost call inwards)");
	thread_notes(ns, r);
	if (r->device)
		device_notes(ns, r->device);
	for (int i = 0; i < r->nprocs; i++)
		process_notes(ns, &r->procs[i]);
	if (r->nprocs > 1 && run->total_ns > 0 && !(run->predicted_total_ns > 0))
		note(ns, "the run: the replaced calls' time exceeds the sum of the processes' T by more "
		     "than their predicted time: S_G is undefined");
}

/* --- the table --- */

/* The table's head: the traces, T, and what T holds.  WP: the width of a process's path. */
static void print_head(FILE *out, const struct report *r, int wp)
{
	const struct prediction *run = r->run;
	char a[32], b[32], c[32];

	fprintf(out, "dyl-speedup: %d trace%s, %d model file%s%s\n", r->nprocs, r->nprocs == 1 ? "" : "s",
		r->nmodel_files, r->nmodel_files == 1 ? "" : "s",
		r->only_faster ? ", --only-faster" : "");
	if (r->nprocs > 1) {
		fprintf(out, "\n%-*s %12s %7s %8s %8s %14s\n", wp, "process", "T", "P", "S_P", "S_G",
			"predicted T'");
		for (int i = 0; i < r->nprocs; i++) {
			const struct prediction *p = &r->procs[i];
			char e[32];
			fprintf(out, "%-*s %12s %6.2f%% %8s %8s %14s\n", wp, p->path,
				fmt_ns(a, sizeof(a), (double)p->total_ns), 100 * p->P,
				fmt_ratio(b, sizeof(b), p->S_P), fmt_ratio(c, sizeof(c), p->S_G),
				fmt_ns(e, sizeof(e), p->predicted_total_ns));
		}
		fprintf(out, "%-*s %12s  (%s)\n", wp, "run", fmt_ns(a, sizeof(a), (double)run->total_ns),
			r->job ? "first start to last end: the processes below"
			: "the sum of the processes' total_ns");
	} else {
		fprintf(out, "trace %s: T = %s (%s), %llu calls\n", r->procs[0].path,
			fmt_ns(a, sizeof(a), (double)run->total_ns),
			run->t_cpu == 1 ? "cpu_ns: the process's CPU time"
			: run->t_cpu == 2 ? "cpu_ns: the process's CPU time, --cpu-time"
			: run->has_startup ? "total_ns + startup_ns" : "total_ns",
			(unsigned long long)run->rows);
	}
	if (run->overhead_ns > 0 && r->job)
		fprintf(out, "  tracing's own cost, %s, is taken out of each process's T; the run's T\n"
			"  and T' are on the traces' clocks, with it\n",
			fmt_ns(a, sizeof(a), (double)run->overhead_ns));
	else if (run->overhead_ns > 0)
		fprintf(out, "  tracing's own cost, %s, is taken out of T (the wrapper's measure,\n"
			"  '# overhead_ns='; --keep-overhead leaves it in)\n",
			fmt_ns(a, sizeof(a), (double)run->overhead_ns));
	if (run->inner_cost_ns > 0)
		fprintf(out, "  and out of the replaced calls' measured time, for the %llu call%s nested in them:\n"
			"  %s (%s a call: overhead_ns, less overhead_outside_ns, / rows), which their t_ns held\n",
			(unsigned long long)run->inner_rows, run->inner_rows == 1 ? "" : "s",
			fmt_ns(a, sizeof(a), (double)run->inner_cost_ns),
			fmt_ns(b, sizeof(b), run->row_cost_ns));
	else if (r->keep_overhead)
		fprintf(out, "  --keep-overhead: T keeps tracing's own cost\n");
	if (run->reads_ns > 0)
		fprintf(out, "  and the clock read each replaced call's own t_ns held, %s in all\n"
			"  ('# clock_cost_ns=' / 2 a call)\n", fmt_ns(a, sizeof(a), (double)run->reads_ns));
	if (run->t_cpu == 1)
		fprintf(out, "  the calls were timed in thread CPU time (std.time clock=thread), so T is the "
			"process's\n  CPU time ('# cpu_ns=') rather than its wall time\n");
	else if (run->t_cpu == -1)
		fprintf(out, "  warning: some calls were timed in thread CPU time and set against a wall-clock "
			"T\n  (a trace without '# cpu_ns=', or traces of both kinds): P mixes two clocks\n");

}

/* One line per kernel, the sums, set-up and page faults, and what the columns mean.
 * W: the width of a name. */
/* --device: what bounds kernel K: the link when its transfers took longer than its
 * calls, else what bounds most of its predicted time; "-" when none was replaced. */
static const char *bounded_by(const struct kernel *k)
{
	int most = 0;

	if (k->h2d_ns + k->d2h_ns > k->predicted_ns)
		return "link";
	for (int b = 1; b < BOUNDS; b++)
		if (k->bound_ns[b] > k->bound_ns[most])
			most = b;
	return k->bound_ns[most] > 0 ? dev_bound_name[most] : "-";
}

static void print_kernels(FILE *out, const struct report *r, const int *kern, int nkern, int w)
{
	const struct prediction *run = r->run;
	char a[32], b[32], c[32], base[96] = "T";
	/* P's base: T, or the threads' time when they ran at once (predict.c) */
	double T = run->timeline && run->threads_ns > (double)run->total_ns ? run->threads_ns
									  : (double)run->total_ns;

	if (T > (double)run->total_ns)
		snprintf(base, sizeof(base), "the threads' time\n  (their lives summed, %s: several "
			 "ran at once)", fmt_ns(a, sizeof(a), T));
	fprintf(out, "\n%-*s %-*s %10s %12s %7s %12s %8s  %s%s\n", w, "kernel", w, "model", "calls",
		"measured", "P", "predicted", "S_P", r->device ? "bounded by  " : "", "out of range");
	for (int i = 0; i < nkern; i++) {
		const struct kernel *k = &run->k[kern[i]];
		double sp = k->calls ? (k->predicted_ns > 0 ? (double)k->t_ns / k->predicted_ns : INFINITY)
				     : NAN;
		char oor[64] = "-";
		if (k->out_of_range)
			snprintf(oor, sizeof(oor), "%llu call%s, %.1f%% of time",
				 (unsigned long long)k->out_of_range, k->out_of_range == 1 ? "" : "s",
				 100 * share((double)k->out_of_range_t_ns, (double)k->t_ns));
		fprintf(out, "%-*s %-*s %10llu %12s %6.2f%% %12s %8s  %-*s%s\n", w, funcs_get(kern[i])->shown,
			w, model_of(r, kern[i])->shown, (unsigned long long)k->calls,
			fmt_ns(a, sizeof(a), (double)k->t_ns), 100 * share((double)k->t_ns, T),
			fmt_ns(b, sizeof(b), k->predicted_ns), fmt_ratio(c, sizeof(c), sp),
			r->device ? 12 : 0, r->device ? bounded_by(k) : "", oor);
	}
	fprintf(out, "%-*s %-*s %10llu %12s %6.2f%% %12s %8s\n", w, "all kernels", w, "",
		(unsigned long long)run->calls, fmt_ns(a, sizeof(a), (double)run->t_ns), 100 * run->P,
		fmt_ns(b, sizeof(b), run->predicted_ns), fmt_ratio(c, sizeof(c), run->S_P));
	if (run->setup_ns > 0)
		fprintf(out, "%-*s %-*s %10s %12s %7s %12s\n", w, "accelerator set-up", w, "", "", "", "",
			fmt_ns(b, sizeof(b), run->setup_ns));
	if (run->residency)
		fprintf(out, "%-*s %-*s %10llu %12s %7s %12s  (below)\n", w, "transfers", w, "",
			(unsigned long long)(run->top.h2d_transfers + run->top.d2h_transfers), "", "",
			fmt_ns(b, sizeof(b), run->xfer_ns));
	if (run->fault_calls) {
		char un[64] = "";
		if (run->fault_unmatched)
			snprintf(un, sizeof(un), "; %llu without a fault-free reference",
				 (unsigned long long)run->fault_unmatched);
		fprintf(out, "%-*s %-*s %10llu %12s %7s %12s  %s%s\n", w, "page faults", w, "",
			(unsigned long long)run->fault_calls, "", "",
			fmt_ns(b, sizeof(b), run->fault_kept_ns),
			r->faults_replaced ? "none kept (--faults-replaced)" : "kept in predicted", un);
	}
	fprintf(out, "  calls: calls replaced by the model; measured: their sum of t_ns%s; P: measured / %s;\n"
		"  predicted: their sum of f(work) from the model; S_P: measured / predicted%s%s\n",
		run->inner_cost_ns ? "\n  (less tracing's cost of the calls nested in them)" : "", base,
		!run->fault_calls ? "" : r->faults_replaced ? "\n  page faults: replaced calls that took "
		"page faults; --faults-replaced replaces their whole time\n  by f(work)"
		: "\n  page faults: replaced calls that took page faults, and the time their faults took\n"
		"  (above fault-free calls of the same work), kept beside f(work): the pages are the "
		"program's",
		run->setup_ns > 0 ? "\n  accelerator set-up: '# setup_ns=' of the model files used, once per "
		"process (loading the\n  accelerator), counted with the predicted time (S_P = measured / "
		"(predicted + set-up))" : "");
}

/* S_G and the predicted T'. */
static void print_totals(FILE *out, const struct report *r)
{
	const struct prediction *run = r->run;
	char a[32], b[32], d[32];

	if (predict_nothing(run)) {
		fprintf(out, "\nNo prediction: none of the %llu calls of the modelled functions could be "
			"replaced,\nfor want of a work size (%llu calls without one, %llu without the bytes "
			"their model is\nkeyed on).  T' = T (%s) says nothing about the accelerator.\n"
			"  fix: give the wrapper a work size and run the program again: --defs FILE "
			"(work_size =\n  ...; examples/*.defs) or -g std.regions (bytes) when generating it.\n",
			(unsigned long long)(run->no_work + run->no_bytes), (unsigned long long)run->no_work,
			(unsigned long long)run->no_bytes, fmt_ns(d, sizeof(d), (double)run->total_ns));
		return;
	}
	if (run->timeline) {
		fprintf(out, "\nS_G = T / T' = %s   (the whole %s's speedup, by its threads' timelines)\n",
			fmt_ratio(a, sizeof(a), run->S_G), r->nprocs > 1 ? "run" : "program");
		fprintf(out, "predicted T' = %s   (T = %s; the critical path through the threads, "
			"below)\n", fmt_ns(b, sizeof(b), run->predicted_total_ns),
			fmt_ns(d, sizeof(d), (double)run->total_ns));
		return;
	}
	fprintf(out, "\nS_G = 1 / ((1 - P) + P / S_P) = %s   (the whole %s's speedup, Amdahl)\n",
		fmt_ratio(a, sizeof(a), run->S_G), r->nprocs > 1 ? "run" : "program");
	fprintf(out, "predicted T' = T - measured + predicted%s%s = %s   (T = %s)%s\n",
		run->setup_ns > 0 ? " + set-up" : "", run->residency ? " + transfers" : "",
		fmt_ns(b, sizeof(b), run->predicted_total_ns), fmt_ns(d, sizeof(d), (double)run->total_ns),
		run->total_ns > 0 && !(run->predicted_total_ns > 0) ? "\n  (no run time: S_G is "
		"undefined, see the notes)" : "");
}

static void print_table(FILE *out, const struct report *r, const int *kern, int nkern,
			const int *other, int nother, const struct notes *ns)
{
	const struct prediction *run = r->run;
	char a[32];
	int w = 11;	/* "all kernels" */

	for (int i = 0; i < nkern; i++) {
		int l = (int)strlen(funcs_get(kern[i])->shown);
		int lm = (int)strlen(model_of(r, kern[i])->shown);
		if (l > w)
			w = l;
		if (lm > w)
			w = lm;
	}
	int wp = 7;	/* "process" */
	for (int i = 0; r->nprocs > 1 && i < r->nprocs; i++)
		if ((int)strlen(r->procs[i].path) > wp)
			wp = (int)strlen(r->procs[i].path);
	print_head(out, r, wp);
	print_kernels(out, r, kern, nkern, w);
	print_totals(out, r);
	xfer_table(out, r, kern, nkern, w);
	threads_table(out, r);
	jobs_table(out, r);
	if (nother) {
		fprintf(out, "\nnot accelerated (no model): what stays on the host.  A call's time holds "
			"its nested\ncalls' (the shares may add up past 100 %%); calls nested in a replaced "
			"call run with it\nand are left out:\n");
		for (int i = 0; i < nother; i++) {
			const struct kernel *k = &run->k[other[i]];
			fprintf(out, "  %-*s %10llu calls %12s %6.2f%% of T\n", w, funcs_get(other[i])->shown,
				(unsigned long long)host_calls(k), fmt_ns(a, sizeof(a), (double)host_t_ns(k)),
				100 * share((double)host_t_ns(k), (double)run->total_ns));
		}
	}
	if (ns->n) {
		fprintf(out, "\nnotes:\n");
		for (int i = 0; i < ns->n; i++)
			wrap_put(out, ns->text[i], "  - ", wrap_width(fileno(out)));
	}
}

/* --- JSON --- */

static void json_u64(FILE *out, const char *key, uint64_t v)
{
	fprintf(out, ", \"%s\": %llu", key, (unsigned long long)v);
}

static void json_double(FILE *out, const char *key, double v)
{
	fprintf(out, ", \"%s\": ", key);
	json_number(out, v);
}

/* --device: a kernel's sums of work and bytes, and the call shapes its model met, each
 * [work, bytes, predicted_ns] (at most SHAPES_SHOWN): the points of a roofline plot
 * (bench/devices/roofline.py). */
#define SHAPES_SHOWN 1000
static void json_device_kernel(FILE *out, const struct kernel *k, const struct model *m)
{
	size_t n = m->eval2 ? model2d_count(m) : 0;
	int oor;

	fprintf(out, ", \"bounded_by\": \"%s\"", bounded_by(k));
	json_double(out, "work", k->work);
	json_double(out, "bytes", k->bytes);
	fputs(", \"shapes\": [", out);
	for (size_t i = 0; i < n && i < SHAPES_SHOWN; i++) {
		int64_t w, b;
		model2d_sizes(m, (int64_t)i, &w, &b);
		fprintf(out, "%s[%lld, %lld, %.17g]", i ? ", " : "", (long long)w, (long long)b,
			model2d_f(m, (int64_t)i, &oor));
	}
	fputs("]", out);
	json_u64(out, "shapes_left_off", n > SHAPES_SHOWN ? n - SHAPES_SHOWN : 0);
}

static void json_kernels(FILE *out, const struct report *r, const struct prediction *p,
			 const int *kern, int nkern)
{
	int first = 1;

	fputs("[", out);
	for (int i = 0; i < nkern; i++) {
		const struct kernel *k = kern[i] < p->nk ? &p->k[kern[i]] : NULL;
		const struct model *m = model_of(r, kern[i]);
		if (!k || k->all_calls == 0)
			continue;
		fputs(first ? "\n    {\"func\": " : ",\n    {\"func\": ", out);
		first = 0;
		json_string(out, funcs_get(kern[i])->name);
		fputs(", \"model\": ", out);
		json_string(out, m->pattern);
		fputs(", \"model_file\": ", out);
		json_string(out, m->file);
		json_u64(out, "model_line", m->line);
		fputs(m->b ? ", \"model_keys\": \"work,bytes\"" : ", \"model_keys\": \"work\"", out);
		if (r->device)
			json_device_kernel(out, k, m);
		json_u64(out, "calls", k->calls);
		json_u64(out, "t_ns", k->t_ns);
		json_u64(out, "measured_ns", k->measured_ns);
		json_u64(out, "inner_rows", k->inner_rows);
		json_u64(out, "inner_tracing_ns", k->inner_cost_ns);
		/* (P's base: T, or the threads' time when they ran at once) */
		double base = p->timeline && p->threads_ns > (double)p->total_ns ? p->threads_ns
										 : (double)p->total_ns;
		json_double(out, "P", base > 0 ? (double)k->t_ns / base : 0);
		json_double(out, "predicted_ns", k->predicted_ns);
		json_double(out, "S_P", k->calls ? (double)k->t_ns / k->predicted_ns : NAN);
		json_u64(out, "out_of_range_calls", k->out_of_range);
		json_u64(out, "out_of_range_t_ns", k->out_of_range_t_ns);
		json_double(out, "out_of_range_predicted_ns", k->out_of_range_predicted_ns);
		json_double(out, "out_of_range_share", share((double)k->out_of_range_t_ns, (double)k->t_ns));
		json_u64(out, "no_work_calls", k->no_work);
		json_u64(out, "no_work_t_ns", k->no_work_t_ns);
		json_u64(out, "no_bytes_calls", k->no_bytes);
		json_u64(out, "no_bytes_t_ns", k->no_bytes_t_ns);
		json_u64(out, "nested_calls", k->nested);
		json_u64(out, "slower_calls", k->slower);
		json_u64(out, "slower_t_ns", k->slower_t_ns);
		json_u64(out, "fault_calls", k->fault_calls);
		json_double(out, "fault_kept_ns", k->fault_kept_ns);
		json_u64(out, "fault_unmatched", k->fault_unmatched);
		json_u64(out, "all_calls", k->all_calls);
		json_u64(out, "all_t_ns", k->all_t_ns);
		json_u64(out, "hidden_calls", k->hidden_calls);
		json_u64(out, "hidden_t_ns", k->hidden_t_ns);
		xfer_json_kernel(out, p, k);
		fputs("}", out);
	}
	fputs(first ? "]" : "\n  ]", out);
}

static void json_totals(FILE *out, const struct prediction *p)
{
	json_u64(out, "total_ns", p->total_ns);
	json_u64(out, "overhead_ns", p->overhead_ns);
	json_u64(out, "overhead_left_ns", p->overhead_left_ns);
	fprintf(out, ", \"T_clock\": \"%s\"", p->t_cpu > 0 ? "cpu" : p->t_cpu ? "mixed" : "wall");
	json_u64(out, "t_ns", p->t_ns);
	json_u64(out, "measured_ns", p->measured_ns);
	json_u64(out, "inner_rows", p->inner_rows);
	json_u64(out, "inner_tracing_ns", p->inner_cost_ns);
	json_u64(out, "clock_reads_ns", p->reads_ns);
	json_double(out, "tracing_ns_per_row", p->row_cost_ns);
	json_double(out, "P", p->P);
	if (p->timeline)
		json_double(out, "threads_ns", p->threads_ns);
	json_double(out, "predicted_ns", p->predicted_ns);
	json_double(out, "setup_ns", p->setup_ns);
	json_double(out, "S_P", p->S_P);
	json_double(out, "S_G", p->S_G);
	json_double(out, "predicted_total_ns", p->predicted_total_ns);
	fprintf(out, ", \"timeline\": %s", p->timeline ? "true" : "false");
	json_double(out, "amdahl_predicted_total_ns", p->amdahl_total_ns);
	json_double(out, "queue_wait_ns", p->queue_wait_ns);
	json_u64(out, "waited_calls", p->waited_calls);
	json_u64(out, "rows", p->rows);
	json_u64(out, "calls", p->calls);
	json_u64(out, "out_of_range_calls", p->out_of_range);
	json_u64(out, "no_work_calls", p->no_work);
	json_u64(out, "no_bytes_calls", p->no_bytes);
	json_u64(out, "nested_calls", p->nested);
	json_u64(out, "slower_calls", p->slower);
	json_u64(out, "fault_calls", p->fault_calls);
	json_double(out, "fault_kept_ns", p->fault_kept_ns);
	json_u64(out, "fault_unmatched", p->fault_unmatched);
	json_u64(out, "traces_with_faults", (uint64_t)p->has_faults);
	fprintf(out, ", \"nothing_predicted\": %s", predict_nothing(p) ? "true" : "false");
	xfer_json(out, p);
}

static void print_json(FILE *out, const struct report *r, const int *kern, int nkern,
		       const int *other, int nother, const struct notes *ns)
{
	const struct prediction *run = r->run;
	int first;

	fprintf(out, "{\"version\": \"%s\", \"only_faster\": %s, \"faults_replaced\": %s", cli_version,
		r->only_faster ? "true" : "false", r->faults_replaced ? "true" : "false");
	json_totals(out, run);
	threads_json(out, r);
	jobs_json(out, r);
	fputs(",\n  \"kernels\": ", out);
	json_kernels(out, r, run, kern, nkern);
	fputs(",\n  \"not_accelerated\": [", out);
	for (int i = 0; i < nother; i++) {
		const struct kernel *k = &run->k[other[i]];
		fputs(i ? ",\n    {\"func\": " : "\n    {\"func\": ", out);
		json_string(out, funcs_get(other[i])->name);
		json_u64(out, "calls", host_calls(k));
		json_u64(out, "t_ns", host_t_ns(k));
		json_double(out, "P", share((double)host_t_ns(k), (double)run->total_ns));
		json_u64(out, "all_calls", k->all_calls);
		json_u64(out, "all_t_ns", k->all_t_ns);
		fputs("}", out);
	}
	fputs(nother ? "\n  ],\n  \"processes\": [" : "],\n  \"processes\": [", out);
	for (int i = 0; i < r->nprocs; i++) {
		fputs(i ? ",\n    {\"trace\": " : "\n    {\"trace\": ", out);
		json_string(out, r->procs[i].path);
		json_totals(out, &r->procs[i]);
		jobs_json_proc(out, r, i);
		fputs(", \"kernels\": ", out);
		json_kernels(out, r, &r->procs[i], kern, nkern);
		fputs("}", out);
	}
	fputs("\n  ],\n  \"unused_models\": [", out);
	first = 1;
	for (int i = 0; i < r->models->n; i++) {
		const struct model *m = &r->models->m[i];
		if (m->used || m->link)
			continue;
		fputs(first ? "\n    {\"func\": " : ",\n    {\"func\": ", out);
		first = 0;
		json_string(out, m->pattern);
		fputs(", \"file\": ", out);
		json_string(out, m->file);
		json_u64(out, "line", m->line);
		fputs("}", out);
	}
	fputs(first ? "],\n  \"notes\": [" : "\n  ],\n  \"notes\": [", out);
	for (int i = 0; i < ns->n; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json_string(out, ns->text[i]);
	}
	fputs(ns->n ? "\n  ]\n}\n" : "]\n}\n", out);
}

/* --- CSV --- */

static void print_csv(FILE *out, const struct report *r, const int *kern, int nkern)
{
	const struct prediction *run = r->run;

	fputs("func,model,calls,t_ns,P,predicted_ns,S_P,out_of_range_calls,out_of_range_t_ns,"
	      "out_of_range_predicted_ns,no_work_calls,no_work_t_ns,nested_calls,slower_calls,"
	      "all_calls,all_t_ns,no_bytes_calls,no_bytes_t_ns,fault_calls,fault_kept_ns,"
	      "fault_unmatched,measured_ns,inner_rows,inner_tracing_ns\n", out);
	for (int i = 0; i < nkern; i++) {
		const struct kernel *k = &run->k[kern[i]];
		csv_str(out, funcs_get(kern[i])->name);
		fputc(',', out);
		csv_str(out, model_of(r, kern[i])->pattern);
		fprintf(out, ",%llu,%llu,", (unsigned long long)k->calls, (unsigned long long)k->t_ns);
		csv_number(out, share((double)k->t_ns, (double)run->total_ns));
		fputc(',', out);
		csv_number(out, k->predicted_ns);
		fputc(',', out);
		csv_number(out, k->calls ? (double)k->t_ns / k->predicted_ns : NAN);
		fprintf(out, ",%llu,%llu,", (unsigned long long)k->out_of_range,
			(unsigned long long)k->out_of_range_t_ns);
		csv_number(out, k->out_of_range_predicted_ns);
		fprintf(out, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,", (unsigned long long)k->no_work,
			(unsigned long long)k->no_work_t_ns, (unsigned long long)k->nested,
			(unsigned long long)k->slower, (unsigned long long)k->all_calls,
			(unsigned long long)k->all_t_ns, (unsigned long long)k->no_bytes,
			(unsigned long long)k->no_bytes_t_ns, (unsigned long long)k->fault_calls);
		csv_number(out, k->fault_kept_ns);
		fprintf(out, ",%llu,%llu,%llu,%llu\n", (unsigned long long)k->fault_unmatched,
			(unsigned long long)k->measured_ns, (unsigned long long)k->inner_rows,
			(unsigned long long)k->inner_cost_ns);
	}
	/* the totals as metadata lines, the way traces carry theirs */
	fprintf(out, "# total_ns=%llu\n# overhead_ns=%llu\n# T_clock=%s\n# t_ns=%llu\n# P=",
		(unsigned long long)run->total_ns, (unsigned long long)run->overhead_ns,
		run->t_cpu > 0 ? "cpu" : run->t_cpu ? "mixed" : "wall", (unsigned long long)run->t_ns);
	csv_number(out, run->P);
	fputs("\n# predicted_ns=", out);
	csv_number(out, run->predicted_ns);
	fputs("\n# setup_ns=", out);
	csv_number(out, run->setup_ns);
	fputs("\n# S_P=", out);
	csv_number(out, run->S_P);
	fputs("\n# S_G=", out);
	csv_number(out, run->S_G);
	fputs("\n# predicted_total_ns=", out);
	csv_number(out, run->predicted_total_ns);
	fprintf(out, "\n# fault_calls=%llu\n# fault_kept_ns=", (unsigned long long)run->fault_calls);
	csv_number(out, run->fault_kept_ns);
	fprintf(out, "\n# fault_unmatched=%llu\n# faults_replaced=%d\n",
		(unsigned long long)run->fault_unmatched, r->faults_replaced);
	fprintf(out, "# processes=%d\n# timeline=%d\n# amdahl_predicted_total_ns=", r->nprocs,
		run->timeline > 0);
	csv_number(out, run->amdahl_total_ns);
	fputs("\n# queue_wait_ns=", out);
	csv_number(out, run->queue_wait_ns);
	if (r->devices)
		fprintf(out, "\n# devices=%d\n", r->devices);
	else
		fputs("\n# devices=unlimited\n", out);
	xfer_csv(out, run);
}

/* --- for the page reports (report_page.h): the same lists and notes --- */

int *report_kernels(const struct prediction *run, int with_model, int *n)
{
	return list_funcs(run, with_model, n);
}

const char *report_bounded_by(const struct kernel *k)
{
	return bounded_by(k);
}

int report_notes(const struct report *r, char ***text, int *n)
{
	struct notes ns = { 0 };
	int nkern, *kern = list_funcs(r->run, 1, &nkern);

	if (kern)
		build_notes(&ns, r, kern, nkern);
	free(kern);
	if (!kern || ns.failed) {
		free_notes(&ns);
		return -1;
	}
	*text = ns.text;
	*n = ns.n;
	return 0;
}

void report_notes_free(char **text, int n)
{
	struct notes ns = { .text = text, .n = n };

	free_notes(&ns);
}

int report_print(FILE *out, const struct report *r)
{
	struct notes ns = { 0 };
	int nkern, nother, rc = 0;
	int *kern = list_funcs(r->run, 1, &nkern);
	int *other = list_funcs(r->run, 0, &nother);

	if (kern && other)
		build_notes(&ns, r, kern, nkern);
	if (!kern || !other || ns.failed) {
		input_error(NULL, 0, "out of memory");
		rc = -1;
	} else if (r->format == REPORT_JSON) {
		print_json(out, r, kern, nkern, other, nother, &ns);
	} else if (r->format == REPORT_CSV) {
		print_csv(out, r, kern, nkern);
	} else {
		print_table(out, r, kern, nkern, other, nother, &ns);
	}
	free(kern);
	free(other);
	free_notes(&ns);
	return rc;
}
