/* report_html.c - dyl-speedup --html FILE: the report as one self-contained page
 * (report_page.h).  Inline CSS, inline SVG and a few lines of inline script that sort the
 * tables: nothing is loaded, the page opens from disk.  Every string from a trace (a
 * function's name, a path) goes through html_text.  The page is written to a temporary
 * file beside FILE and renamed onto it: a failure leaves no half page. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "func_names.h"
#include "input.h"
#include "report_fmt.h"
#include "report_graph.h"
#include "report_page.h"
#include "report_svg.h"
#include "resid.h"

static const char style[] =
"body{font:14px/1.45 system-ui,sans-serif;margin:24px 40px;color:#1d2330;max-width:1280px}"
"h1{font-size:15px;font-weight:600;color:#556;margin:0 0 4px}"
"h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #dde;padding-bottom:3px}"
"h3{font-size:13px;font-weight:600;margin:14px 0 4px;color:#445}"
".sg{font-size:56px;font-weight:700;line-height:1.1}.sg small{font-size:20px;color:#667}"
".tt{font-size:22px;margin:2px 0 6px}.sub{fill:#889;font-size:10px}.muted{color:#667}"
"table{border-collapse:collapse;font-size:13px;margin:4px 0}"
"th,td{padding:3px 10px;border-bottom:1px solid #e4e6ee;text-align:right}"
"th{background:#f1f3f8;cursor:pointer;user-select:none}th:first-child,td:first-child,th.l,"
"td.l{text-align:left}tr.star td{font-weight:600}"
"th.asc:after{content:' \\25B2'}th.desc:after{content:' \\25BC'}"
"svg.tl{width:100%;height:auto;background:#fbfbfd;border:1px solid #e4e6ee}"
".lbl{font-size:11px;fill:#334}.tick{font-size:10px;fill:#556;text-anchor:middle}"
".ax{stroke:#99a;stroke-width:1}.life0{fill:#dfe3ec}.life1{fill:#d6eadb}"
".k0{fill:#3b6fd8}.k1{fill:#e07b28}.k2{fill:#2a9d5c}.k3{fill:#c8407a}.k4{fill:#8a5cd1}"
".k5{fill:#b59a1d}.k6{fill:#1aa3b8}.k7{fill:#7d5a44}.k8{fill:#888}"
".link0{fill:#e23b3b}.link1{fill:#f2a33a}.graph svg{max-width:100%;height:auto}"
"li{margin:3px 0}code{font-size:12px}";

/* Sorts a table by the column clicked: by each cell's data-v when it has one, else text. */
static const char script[] =
"document.querySelectorAll('table.sortable th').forEach(function(th,i){"
"th.addEventListener('click',function(){var t=th.closest('table'),b=t.tBodies[0],"
"up=!th.classList.contains('asc');t.querySelectorAll('th').forEach(function(h){"
"h.classList.remove('asc','desc')});th.classList.add(up?'asc':'desc');"
"var rows=[].slice.call(b.rows);rows.sort(function(x,y){var a=x.cells[i],c=y.cells[i],"
"d=(a.dataset.v!==undefined&&c.dataset.v!==undefined)?parseFloat(a.dataset.v)-"
"parseFloat(c.dataset.v):a.textContent.localeCompare(c.textContent);return up?d:-d});"
"rows.forEach(function(r){b.appendChild(r)})})});";

/* A cell with its number for sorting (V) and its text (TEXT, escaped). */
static void cell(FILE *out, double v, const char *text)
{
	if (isfinite(v))
		fprintf(out, "<td data-v=\"%.17g\">", v);
	else
		fputs("<td data-v=\"-1e308\">", out);
	html_text(out, text);
	fputs("</td>", out);
}

static void cell_u64(FILE *out, uint64_t v)
{
	fprintf(out, "<td data-v=\"%llu\">%llu</td>", (unsigned long long)v, (unsigned long long)v);
}

static void headline(FILE *out, const struct page *pg)
{
	const struct prediction *run = pg->r->run;
	char b[1200];

	fputs("<h1>dyl-speedup report: ", out);
	for (int i = 0; i < pg->r->nprocs; i++) {
		fputs(i ? ", " : "", out);
		html_text(out, pg->r->procs[i].path);
	}
	fputs("</h1>\n<div class=\"sg\">S_G = <span id=\"sg\" data-sg=\"", out);
	json_number(out, run->S_G);
	fprintf(out, "\">%s</span> <small>the whole %s's speedup</small></div>\n", pg->sg,
		pg->r->nprocs > 1 ? "run" : "program");
	fprintf(out, "<div class=\"tt\">T = <b id=\"t\">%s</b> &rarr; T' = <b id=\"tp\">%s</b></div>\n",
		pg->t, pg->tp);
	fputs("<div id=\"bounds\">", out);
	html_text(out, page_bounds(pg, b, sizeof(b)));
	fputs("</div>\n<div class=\"muted\" id=\"what\">", out);
	html_text(out, pg->what);
	fputs("</div>\n", out);
}

/* Several traces: each process's T, T' and S_G. */
static void process_table(FILE *out, const struct page *pg)
{
	const struct report *r = pg->r;
	char a[32];

	if (r->nprocs < 2)
		return;
	fputs("<h2>Processes</h2>\n<table class=\"sortable\" id=\"processes\"><thead><tr>"
	      "<th>process</th><th>T</th><th>T'</th><th>S_G</th><th>calls</th></tr></thead>"
	      "<tbody>\n", out);
	for (int i = 0; i < r->nprocs; i++) {
		const struct prediction *p = &r->procs[i];
		fputs("<tr><td>", out);
		html_text(out, p->path);
		fputs("</td>", out);
		cell(out, (double)p->total_ns, fmt_ns(a, sizeof(a), (double)p->total_ns));
		cell(out, p->predicted_total_ns, fmt_ns(a, sizeof(a), p->predicted_total_ns));
		cell(out, p->S_G, fmt_ratio(a, sizeof(a), p->S_G));
		cell_u64(out, p->calls);
		fputs("</tr>\n", out);
	}
	fputs(r->job ? "</tbody></table>\n<p class=\"muted\">Each process predicted alone; the run's T "
	      "and T' are its first start to its last end, the processes on one timeline.</p>\n"
	      : "</tbody></table>\n<p class=\"muted\">The run's T and T' are their sums.</p>\n", out);
}

static void kernel_table(FILE *out, const struct page *pg)
{
	const struct report *r = pg->r;
	const struct prediction *run = r->run;
	char a[32];
	/* P's base, as the table's: T, or the threads' time when they ran at once */
	double base = run->timeline && run->threads_ns > (double)run->total_ns ? run->threads_ns
									       : (double)run->total_ns;

	fputs("<h2>Kernels</h2>\n<table class=\"sortable\" id=\"kernels\"><thead><tr><th>function</th>"
	      "<th>calls</th><th>measured</th><th>P</th><th>predicted</th><th>S_P</th>", out);
	fputs(r->device ? "<th class=\"l\">bounded by</th>" : "", out);
	fputs(run->residency ? "<th>h2d bytes</th><th>d2h bytes</th><th>link time</th>" : "", out);
	fputs("</tr></thead><tbody>\n", out);
	for (int i = 0; i < pg->nkern; i++) {
		const struct kernel *k = &run->k[pg->kern[i]];
		double sp = k->calls && k->predicted_ns > 0 ? (double)k->t_ns / k->predicted_ns : NAN;
		double P = base > 0 ? (double)k->t_ns / base : 0;
		fputs("<tr class=\"kernel\"><td>", out);
		html_text(out, funcs_get(pg->kern[i])->shown);
		fputs("</td>", out);
		cell_u64(out, k->calls);
		cell(out, (double)k->t_ns, fmt_ns(a, sizeof(a), (double)k->t_ns));
		snprintf(a, sizeof(a), "%.2f%%", 100 * P);
		cell(out, P, a);
		cell(out, k->predicted_ns, fmt_ns(a, sizeof(a), k->predicted_ns));
		cell(out, sp, fmt_ratio(a, sizeof(a), sp));
		if (r->device)
			fprintf(out, "<td class=\"l\">%s</td>", report_bounded_by(k));
		if (run->residency) {
			cell_u64(out, k->h2d_bytes);
			cell_u64(out, k->d2h_bytes);
			cell(out, k->h2d_ns + k->d2h_ns, fmt_ns(a, sizeof(a), k->h2d_ns + k->d2h_ns));
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n<p class=\"muted\">calls: the calls replaced; measured: their time "
	      "t; P: measured / T; predicted: their f(work); S_P: measured / predicted. Click a "
	      "column's head to sort.</p>\n", out);
}

static void bounds_table(FILE *out, const struct page *pg)
{
	const struct prediction *run = pg->r->run;
	char a[32];

	if (!run->residency)
		return;
	fputs("<h2>Transfers: the three bounds</h2>\n<table class=\"sortable\" id=\"bounds-table\">"
	      "<thead><tr><th>residency</th><th>h2d bytes</th><th>d2h bytes</th><th>transfers</th>"
	      "<th>link time</th><th>T'</th><th>S_G</th></tr></thead><tbody>\n", out);
	for (int m = 0; m < RESID_MODES; m++) {
		const struct xfer_fig *x = &run->xfer[m];
		if (!x->known)
			continue;
		fprintf(out, "<tr%s><td>%s%s</td>", m == run->xfer_top ? " class=\"star\"" : "",
			resid_mode_name[m], m == run->xfer_top ? " *" : "");
		cell_u64(out, x->h2d_bytes);
		cell_u64(out, x->d2h_bytes);
		cell_u64(out, x->h2d_transfers + x->d2h_transfers);
		cell(out, x->h2d_ns + x->d2h_ns, fmt_ns(a, sizeof(a), x->h2d_ns + x->d2h_ns));
		cell(out, x->predicted_total_ns, fmt_ns(a, sizeof(a), x->predicted_total_ns));
		cell(out, x->S_G, fmt_ratio(a, sizeof(a), x->S_G));
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n<p class=\"muted\">exact: data comes back when the program reads it "
	      "(host reads recorded); optimistic: only to calls left on the host; pessimistic: every "
	      "call moves all it reads and writes. *: the headline's.</p>\n", out);
}

static void plan_table(FILE *out, const struct page *pg)
{
	const struct plan_rows *pr = &pg->plan;
	char a[32];

	if (pg->no_plan) {
		fputs("<h2>Offload plan</h2>\n<p class=\"muted\">", out);
		html_text(out, pg->no_plan);
		fputs(".</p>\n", out);
	}
	if (!pg->has_plan)
		return;
	fprintf(out, "<h2>Offload plan</h2>\n<p class=\"muted\">T' with the transfers (%s); %s over %d "
		"function%s.</p>\n<table class=\"sortable\" id=\"plans\"><thead><tr><th>plan</th>"
		"<th>T'</th><th>S_G</th><th>h2d bytes</th><th>d2h bytes</th><th class=\"l\">accelerated</th>"
		"</tr></thead><tbody>\n", pr->mode, pr->exhaustive ? "every subset" : "greedy flips",
		pr->ncand, pr->ncand == 1 ? "" : "s");
	for (int i = 0; i < pr->n; i++) {
		const struct plan_row *p = &pr->row[i];
		fprintf(out, "<tr%s><td>%s%s</td>", i == pr->least ? " class=\"star\"" : "", p->name,
			i == pr->least ? " *" : "");
		cell(out, p->total_ns, fmt_ns(a, sizeof(a), p->total_ns));
		cell(out, p->S_G, fmt_ratio(a, sizeof(a), p->S_G));
		cell_u64(out, p->h2d_bytes);
		cell_u64(out, p->d2h_bytes);
		fputs("<td class=\"l\">", out);
		html_text(out, p->functions);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n<p class=\"muted\">*: least T'. best: the best set of whole "
	      "functions; all: every modelled function; call-by-call: the calls the model makes "
	      "faster.</p>\n", out);
}

static void pictures(FILE *out, const struct page *pg)
{
	const char *why = NULL;

	fputs("<h2>Timelines</h2>\n<p class=\"muted\">Each thread: measured (its life and replaced "
	      "calls, on the trace's clock) above, predicted below; the device runs the replaced "
	      "calls' compute, the link their transfers.</p>\n", out);
	svg_timelines(out, pg);
	fputs("<h2>Data flow</h2>\n<div class=\"graph\">", out);
	if (graph_svg(out, pg->r, &why) != 0) {
		fputs("<p class=\"muted\">Not drawn: ", out);
		html_text(out, why);
		fputs(".</p>", out);
	}
	fputs("</div>\n", out);
}

static void notes(FILE *out, const struct page *pg)
{
	if (!pg->nnotes)
		return;
	fputs("<h2>Notes</h2>\n<ul id=\"notes\">\n", out);
	for (int i = 0; i < pg->nnotes; i++) {
		fputs("<li>", out);
		html_text(out, pg->notes[i]);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

static void page(FILE *out, const struct page *pg)
{
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		"<title>dyl-speedup report: S_G = %s</title>\n<style>%s</style></head><body>\n",
		pg->sg, style);
	headline(out, pg);
	process_table(out, pg);
	kernel_table(out, pg);
	bounds_table(out, pg);
	plan_table(out, pg);
	pictures(out, pg);
	notes(out, pg);
	fprintf(out, "<script>%s</script>\n</body></html>\n", script);
}

int report_html(const char *path, const struct page *pg)
{
	char *tmp = NULL;
	int fd = -1, err = 0;
	FILE *out = NULL;

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0) {
		input_error(path, 0, "cannot write the report: out of memory");
		return -1;
	}
	errno = 0;
	if ((fd = mkstemp(tmp)) < 0 || !(out = fdopen(fd, "w")))
		err = errno ? errno : EIO;
	if (out) {
		page(out, pg);
		if (fflush(out) != 0 || ferror(out) || fsync(fd) != 0)
			err = errno ? errno : EIO;
		if (fclose(out) != 0 && !err)
			err = errno ? errno : EIO;
		fd = -1;
	}
	if (fd >= 0)
		close(fd);
	/* mkstemp's 0600: a report is read like any other file */
	if (!err && (chmod(tmp, 0644) != 0 || rename(tmp, path) != 0))
		err = errno;
	if (err) {
		unlink(tmp);
		input_error(path, 0, "cannot write the report: %s", strerror(err));
	}
	free(tmp);
	return err ? -1 : 0;
}
