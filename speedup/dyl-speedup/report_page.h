/* report_page.h - dyl-speedup --report and --html: the report people look at (doc/report.md).
 * The answer first (S_G, T -> T', the transfers' bounds), then the kernels, the transfers,
 * the offload plan, the threads and the notes.  The numbers are report.c's and plan.c's:
 * this layer only gathers them (report_page.c) and lays them out, as text wrapped to the
 * terminal (report_text.c) or as one self-contained HTML file (report_html.c, with its
 * timelines in SVG, report_svg.c, and the flow graph, report_graph.c). */
#ifndef SPEEDUP_REPORT_PAGE_H
#define SPEEDUP_REPORT_PAGE_H

#include <stdio.h>
#include "plan.h"
#include "report.h"

/* What both layouts show, gathered once. */
struct page {
	const struct report *r;
	int *kern, nkern;	/* the modelled functions, by measured time (report_kernels) */
	int *other, nother;	/* the others: what stays on the host */
	char **notes;
	int nnotes;
	int has_plan;		/* the plans were found (link rows and flows: plan.h) */
	struct plan_rows plan;
	const char *no_plan;	/* why there is none, where one was looked for; NULL */
	char sg[32], t[32], tp[32];	/* S_G, T and T' as the report prints them */
	char what[600];		/* what was replaced, by what: the headline's third line */
};

/* Gathers R's page.  0; -1 after a message. */
int page_load(struct page *pg, const struct report *r);
void page_free(struct page *pg);
/* The headline's second line: the three residency bounds, or what T' holds.  In BUF. */
const char *page_bounds(const struct page *pg, char *buf, size_t room);

/* The text report on OUT, wrapped to COLUMNS.  0, or -1 on a write error. */
int report_text(FILE *out, const struct page *pg, int columns);
/* The HTML report, written to PATH (a temporary file, then renamed: never half a file).
 * 0; -1 after one message naming PATH. */
int report_html(const char *path, const struct page *pg);

/* Runs the page reports for dyl-speedup's main: TEXT on OUT, HTML to a file when not NULL.
 * 0; -1 after a message. */
int report_page(FILE *out, const struct report *r, int text, const char *html);

/* --link L: the link model L, a file or a name (models/link-L.csv, models/L.csv), as a
 * path to open (malloc'd); NULL when there is none. */
char *report_link_path(const char *link);

#endif
