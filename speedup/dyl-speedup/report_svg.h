/* report_svg.h - the HTML report's pictures in SVG (report_html.c): each process's
 * measured and predicted timelines per thread, the device's queue and the link. */
#ifndef SPEEDUP_REPORT_SVG_H
#define SPEEDUP_REPORT_SVG_H

#include <stdio.h>
#include "report_page.h"

/* S on OUT with & < > " ' escaped: safe in HTML text and attributes. */
void html_text(FILE *out, const char *s);
/* Kernel ID's colour class: "k0".."k7" by its rank in PG's kernels, else "k8". */
int svg_colour(const struct page *pg, int id);
/* One <svg> per process of PG predicted along its timeline: a lane per thread
 * (<g class="lane" data-tid=...>, measured above, predicted below), the device and the
 * link, a time axis and a legend; for the others, why they have none.  Returns the
 * number of processes drawn. */
int svg_timelines(FILE *out, const struct page *pg);

#endif
