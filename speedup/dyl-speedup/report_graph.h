/* report_graph.h - the flow graph in the HTML report: dyl-flow --svg draws it (Graphviz's
 * dot), and it is put inline. */
#ifndef SPEEDUP_REPORT_GRAPH_H
#define SPEEDUP_REPORT_GRAPH_H

#include <stdio.h>
#include "report.h"

/* Writes R's flow graph (its traces' TRACE.flow) on OUT as inline SVG.  0 drawn; else
 * nothing written, and *WHY says why (static text). */
int graph_svg(FILE *out, const struct report *r, const char **why);

#endif
