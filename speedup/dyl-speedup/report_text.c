/* report_text.c - dyl-speedup --report: the answer first, then the kernels, the
 * transfers, the plans, the threads and the notes, wrapped to the terminal
 * (report_page.h).  Each section is a table (report_wrap.h) of report.c's numbers. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "func_names.h"
#include "report_fmt.h"
#include "report_page.h"
#include "report_wrap.h"
#include "resid.h"
#include "timeline.h"

/* Rows of a long table shown; the rest are counted */
#define ROWS_SHOWN 20

/* A section's title after a blank line, wrapped. */
static void heading(FILE *out, const char *title, int width)
{
	fputc('\n', out);
	wrap_text(out, title, width, "", 2);
}

static void headline(FILE *out, const struct page *pg, int width)
{
	const struct prediction *run = pg->r->run;
	char line[1200];

	if (predict_nothing(run))
		snprintf(line, sizeof(line), "S_G = %s: no prediction, none of the modelled calls had a "
			 "work size (T = %s; see the notes)", pg->sg, pg->t);
	else if (!(run->predicted_total_ns > 0))
		snprintf(line, sizeof(line), "S_G = %s: undefined, T' = %s is no run time (T = %s; see "
			 "the notes)", pg->sg, pg->tp, pg->t);
	else
		snprintf(line, sizeof(line), "S_G = %s: the %s would take T' = %s instead of T = %s",
			 pg->sg, pg->r->nprocs > 1 ? "run" : "program", pg->tp, pg->t);
	wrap_text(out, line, width, "", 2);
	wrap_text(out, page_bounds(pg, line, sizeof(line)), width, "", 2);
	wrap_text(out, pg->what, width, "", 2);
}

/* Fills a kernel's cells after its name (column 0). */
typedef void (*kernel_cells)(char (*c)[TT_CELL], const struct kernel *k, const struct page *pg);

/* A table of a row per kernel: NCOL columns HEAD, the cells from FILL. */
static void kernel_table(FILE *out, const struct page *pg, int width, int ncol,
			 const char *const *head, kernel_cells fill)
{
	struct ttab t;

	tt_init(&t, ncol, head);
	for (int i = 0; i < pg->nkern && i < ROWS_SHOWN; i++) {
		char (*c)[TT_CELL] = tt_row(&t);
		if (!c)
			break;
		snprintf(c[0], TT_CELL, "%s", funcs_get(pg->kern[i])->shown);
		fill(c, &pg->r->run->k[pg->kern[i]], pg);
	}
	tt_print(out, &t, width);
	if (pg->nkern > ROWS_SHOWN)
		fprintf(out, "  (%d more)\n", pg->nkern - ROWS_SHOWN);
}

static void time_cells(char (*c)[TT_CELL], const struct kernel *k, const struct page *pg)
{
	char a[32];

	snprintf(c[1], TT_CELL, "%llu", (unsigned long long)k->calls);
	snprintf(c[2], TT_CELL, "%s", fmt_ns(a, sizeof(a), (double)k->t_ns));
	snprintf(c[3], TT_CELL, "%s", fmt_ns(a, sizeof(a), k->predicted_ns));
	snprintf(c[4], TT_CELL, "%s", fmt_ratio(a, sizeof(a), k->calls && k->predicted_ns > 0
						    ? (double)k->t_ns / k->predicted_ns : NAN));
	snprintf(c[5], TT_CELL, "%s", pg->r->device ? report_bounded_by(k) : "");
}

/* Several traces: each process's T, T' and S_G. */
static void processes(FILE *out, const struct page *pg, int width)
{
	static const char *const head[] = { "<process", "T", "T'", "S_G", "calls" };
	const struct report *r = pg->r;
	struct ttab t;
	char a[32];

	if (r->nprocs < 2)
		return;
	heading(out, r->job ? "Processes (each alone; the run: first start to last end, doc/jobs-timeline.md)"
		     : "Processes (the run's T and T' are their sums)", width);
	tt_init(&t, 5, head);
	for (int i = 0; i < r->nprocs; i++) {
		const struct prediction *p = &r->procs[i];
		char (*c)[TT_CELL] = tt_row(&t);
		if (!c)
			break;
		snprintf(c[0], TT_CELL, "%.*s", TT_CELL - 1, p->path);
		snprintf(c[1], TT_CELL, "%s", fmt_ns(a, sizeof(a), (double)p->total_ns));
		snprintf(c[2], TT_CELL, "%s", fmt_ns(a, sizeof(a), p->predicted_total_ns));
		snprintf(c[3], TT_CELL, "%s", fmt_ratio(a, sizeof(a), p->S_G));
		snprintf(c[4], TT_CELL, "%llu", (unsigned long long)p->calls);
	}
	tt_print(out, &t, width);
}

static void kernels(FILE *out, const struct page *pg, int width)
{
	static const char *const head[] = { "<function", "calls", "measured", "predicted", "S_P",
					    "<bounded by" };

	heading(out, "Kernels (the replaced calls: measured time t, predicted f(work))", width);
	kernel_table(out, pg, width, pg->r->device ? 6 : 5, head, time_cells);
}

static void xfer_cells(char (*c)[TT_CELL], const struct kernel *k, const struct page *pg)
{
	char a[32];

	(void)pg;
	snprintf(c[1], TT_CELL, "%llu", (unsigned long long)k->h2d_bytes);
	snprintf(c[2], TT_CELL, "%llu", (unsigned long long)k->h2d_transfers);
	snprintf(c[3], TT_CELL, "%llu", (unsigned long long)k->d2h_bytes);
	snprintf(c[4], TT_CELL, "%llu", (unsigned long long)k->d2h_transfers);
	snprintf(c[5], TT_CELL, "%s", fmt_ns(a, sizeof(a), k->h2d_ns + k->d2h_ns));
}

static void bounds_table(FILE *out, const struct prediction *run, int width)
{
	static const char *const head[] = { "<residency", "h2d bytes", "d2h bytes", "transfers",
					    "link time", "T'", "S_G" };
	struct ttab t;
	char a[32];

	tt_init(&t, 7, head);
	for (int m = 0; m < RESID_MODES; m++) {
		const struct xfer_fig *x = &run->xfer[m];
		char (*c)[TT_CELL];
		if (!x->known || !(c = tt_row(&t)))
			continue;
		snprintf(c[0], TT_CELL, "%s%s", resid_mode_name[m], m == run->xfer_top ? " *" : "");
		snprintf(c[1], TT_CELL, "%llu", (unsigned long long)x->h2d_bytes);
		snprintf(c[2], TT_CELL, "%llu", (unsigned long long)x->d2h_bytes);
		snprintf(c[3], TT_CELL, "%llu", (unsigned long long)(x->h2d_transfers + x->d2h_transfers));
		snprintf(c[4], TT_CELL, "%s", fmt_ns(a, sizeof(a), x->h2d_ns + x->d2h_ns));
		snprintf(c[5], TT_CELL, "%s", fmt_ns(a, sizeof(a), x->predicted_total_ns));
		snprintf(c[6], TT_CELL, "%s", fmt_ratio(a, sizeof(a), x->S_G));
	}
	tt_print(out, &t, width);
}

static void transfers(FILE *out, const struct page *pg, int width)
{
	static const char *const head[] = { "<function", "h2d bytes", "moves", "d2h bytes", "moves",
					    "link time" };

	if (!pg->r->run->residency)
		return;
	heading(out, "Transfers (what a port keeping data on the accelerator moves)", width);
	kernel_table(out, pg, width, 6, head, xfer_cells);
	fprintf(out, "  the three bounds (*: the headline's):\n");
	bounds_table(out, pg->r->run, width);
}

static void plans(FILE *out, const struct page *pg, int width)
{
	static const char *const head[] = { "<plan", "T'", "S_G", "h2d bytes", "d2h bytes",
					    "<accelerated" };
	const struct plan_rows *pr = &pg->plan;
	struct ttab t;
	char a[32], line[200];

	if (pg->no_plan) {
		heading(out, "Offload plan", width);
		wrap_text(out, pg->no_plan, width, "  ", 2);
	}
	if (!pg->has_plan)
		return;
	snprintf(line, sizeof(line), "Offload plan (T' with the transfers, %s)", pr->mode);
	heading(out, line, width);
	tt_init(&t, 6, head);
	for (int i = 0; i < pr->n; i++) {
		const struct plan_row *p = &pr->row[i];
		char (*c)[TT_CELL] = tt_row(&t);
		if (!c)
			break;
		snprintf(c[0], TT_CELL, "%s%s", p->name, i == pr->least ? " *" : "");
		snprintf(c[1], TT_CELL, "%s", fmt_ns(a, sizeof(a), p->total_ns));
		snprintf(c[2], TT_CELL, "%s", fmt_ratio(a, sizeof(a), p->S_G));
		snprintf(c[3], TT_CELL, "%llu", (unsigned long long)p->h2d_bytes);
		snprintf(c[4], TT_CELL, "%llu", (unsigned long long)p->d2h_bytes);
		snprintf(c[5], TT_CELL, "%.*s", TT_CELL - 1, p->functions);
	}
	tt_print(out, &t, width);
	snprintf(line, sizeof(line), "*: least T'. best: the best set of whole functions; all: "
		 "every modelled function; call-by-call: the calls the model makes faster");
	wrap_text(out, line, width, "  ", 2);
}

/* One process's threads, predicted along its timeline. */
static void threads_of(FILE *out, const struct prediction *p, int width)
{
	static const char *const head[] = { "<thread", "measured", "predicted", "S", "calls",
					    "waited" };
	const struct timeline *tl = p->tl;
	struct ttab t;
	char a[32];

	char line[4200];
	snprintf(line, sizeof(line), "%s:", p->path);
	wrap_text(out, line, width, "  ", 4);
	tt_init(&t, 6, head);
	for (int i = 0; i < tl->n && i < ROWS_SHOWN; i++) {
		const struct tl_thread *th = &tl->th[i];
		double m = i == 0 ? (double)p->total_ns : th->end_ns != TL_UNKNOWN
			   ? (double)(th->end_ns - th->start_ns)
			   : (double)p->tl_clock_total_ns - (double)th->start_ns;
		double pr = i == 0 ? p->predicted_total_ns : th->state == TL_DONE
			    ? th->pend - th->pstart : NAN;
		char (*c)[TT_CELL] = tt_row(&t);
		if (!c)
			break;
		snprintf(c[0], TT_CELL, "%llu%s", (unsigned long long)th->tid, i ? "" : " main");
		snprintf(c[1], TT_CELL, "%s", fmt_ns(a, sizeof(a), m));
		snprintf(c[2], TT_CELL, "%s", isfinite(pr) ? fmt_ns(a, sizeof(a), pr) : "-");
		snprintf(c[3], TT_CELL, "%s", fmt_ratio(a, sizeof(a), pr > 0 ? m / pr : NAN));
		snprintf(c[4], TT_CELL, "%zu", th->ncalls);
		snprintf(c[5], TT_CELL, "%s", th->waited_calls ? fmt_ns(a, sizeof(a), th->queue_wait_ns)
					      : "-");
	}
	tt_print(out, &t, width);
	if (tl->n > ROWS_SHOWN)
		fprintf(out, "  (%d more threads)\n", tl->n - ROWS_SHOWN);
}

static void threads(FILE *out, const struct page *pg, int width)
{
	const struct report *r = pg->r;

	if (!r->run->timeline)
		return;
	heading(out, "Threads (predicted along their timelines; waited: for a device)", width);
	for (int i = 0; i < r->nprocs; i++)
		if (r->procs[i].timeline && r->procs[i].tl)
			threads_of(out, &r->procs[i], width);
}

static void host_and_notes(FILE *out, const struct page *pg, int width)
{
	const struct prediction *run = pg->r->run;
	char a[32], line[400];

	if (pg->nother) {
		heading(out, "Not accelerated (no model: on the host)", width);
		for (int i = 0; i < pg->nother && i < 5; i++) {
			const struct kernel *k = &run->k[pg->other[i]];
			uint64_t t = k->all_t_ns > k->hidden_t_ns ? k->all_t_ns - k->hidden_t_ns : 0;
			snprintf(line, sizeof(line), "%s: %llu calls, %s", funcs_get(pg->other[i])->shown,
				 (unsigned long long)(k->all_calls - k->hidden_calls),
				 fmt_ns(a, sizeof(a), (double)t));
			wrap_text(out, line, width, "  ", 4);
		}
		if (pg->nother > 5)
			fprintf(out, "  (%d more)\n", pg->nother - 5);
	}
	if (!pg->nnotes)
		return;
	heading(out, "Notes", width);
	for (int i = 0; i < pg->nnotes; i++)
		wrap_text(out, pg->notes[i], width, "  - ", 4);
}

int report_text(FILE *out, const struct page *pg, int columns)
{
	headline(out, pg, columns);
	processes(out, pg, columns);
	kernels(out, pg, columns);
	transfers(out, pg, columns);
	plans(out, pg, columns);
	threads(out, pg, columns);
	host_and_notes(out, pg, columns);
	return ferror(out) ? -1 : 0;
}
