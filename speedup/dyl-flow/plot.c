/* plot.c - --plot FILE: the bandwidth of each function over time as SVG, written by
 * hand (no library): one panel per process, one line per function (the 8 that move the
 * most bytes; the rest as "other"), bytes read and written per second in each slice,
 * the phases shaded behind with their number and share of the run. */
#include <stdlib.h>
#include <string.h>
#include "flowtool.h"

#define W 900.0		/* the plot area */
#define H 260.0
#define LEFT 80.0
#define TOP 40.0
#define PANEL (H + 90.0)
#define LINES 8

static const char *const colour[LINES + 1] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
	"#17becf", "#7f7f7f",
};

/* Text for SVG: &, < and > escaped; control bytes dropped. */
static void xml(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			fputs("&amp;", out);
		else if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else if ((unsigned char)*s >= 0x20)
			fputc(*s, out);
	}
}

static void rate(char *buf, size_t room, double v)
{
	static const char *const unit[] = { "B/s", "KB/s", "MB/s", "GB/s", "TB/s" };
	int u = 0;

	while (v >= 1000 && u < 4)
		v /= 1000, u++;
	snprintf(buf, room, "%.3g %s", v, unit[u]);
}

static void seconds(char *buf, size_t room, double ns)
{
	if (ns >= 1e9)
		snprintf(buf, room, "%.3g s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, room, "%.3g ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, room, "%.3g us", ns / 1e3);
	else
		snprintf(buf, room, "%.0f ns", ns);
}

static const struct flow *top_flow;

static int by_bytes(const void *a, const void *b)
{
	const struct flow_node *x = &top_flow->node[*(const uint32_t *)a];
	const struct flow_node *y = &top_flow->node[*(const uint32_t *)b];
	uint64_t bx = x->read + x->written, by = y->read + y->written;

	return bx > by ? -1 : bx < by;
}

static void panel(FILE *out, const struct proc *p, double y0)
{
	const struct flow_slices *s = &p->slices;
	uint32_t *order = malloc((s->nnodes + 1) * sizeof(*order)), nl = 0;
	double *line = calloc((LINES + 1) * (s->n + 1), sizeof(double)), max = 1;
	char buf[64];

	if (!order || !line) {
		free(order);
		free(line);
		return;
	}
	for (uint32_t i = 1; i < s->nnodes; i++)
		if (p->f.node[i].read + p->f.node[i].written)
			order[nl++] = i;
	top_flow = &p->f;
	qsort(order, nl, sizeof(*order), by_bytes);
	for (uint32_t j = 0; j < nl; j++) {
		int l = j < LINES ? (int)j : LINES;
		for (uint64_t q = 0; q < s->n; q++)
			line[l * s->n + q] += (s->read[q * s->nnodes + order[j]] +
					       s->written[q * s->nnodes + order[j]]) * 1e9 / (double)s->ns;
	}
	for (size_t i = 0; i < (LINES + 1) * s->n; i++)
		if (line[i] > max)
			max = line[i];
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"13\">pid %lld: ", LEFT, y0 - 14,
		(long long)p->pid);
	xml(out, p->cmdline ? p->cmdline : p->trace);
	fputs("</text>\n", out);
	/* phases behind */
	for (size_t i = 0; i < s->nphases; i++) {
		const struct flow_phase *ph = &s->phase[i];
		double x0 = LEFT + W * (double)ph->first / (double)s->n;
		double x1 = LEFT + W * (double)(ph->last + 1) / (double)s->n;
		fprintf(out, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\"/>\n",
			x0, y0, x1 - x0, H, i % 2 ? "#f4f4f4" : "#e6eef8");
		fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"10\" fill=\"#555\">P%zu %.0f%%"
			"</text>\n", x0 + 3, y0 + 12, i + 1,
			100.0 * (double)(ph->last - ph->first + 1) / (double)s->n);
	}
	/* axes */
	fprintf(out, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#000\"/>\n",
		LEFT, y0 + H, LEFT + W, y0 + H);
	fprintf(out, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#000\"/>\n",
		LEFT, y0, LEFT, y0 + H);
	for (int t = 0; t <= 4; t++) {
		rate(buf, sizeof(buf), max * t / 4);
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\" text-anchor=\"end\">%s"
			"</text>\n", LEFT - 4, y0 + H - H * t / 4 + 3, buf);
		seconds(buf, sizeof(buf), (double)s->n * (double)s->ns * t / 4);
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\" text-anchor=\"middle\">%s"
			"</text>\n", LEFT + W * t / 4, y0 + H + 14, buf);
	}
	seconds(buf, sizeof(buf), (double)s->ns);
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\">time from the first call "
		"(slices of %s); bytes read + written per second</text>\n", LEFT, y0 + H + 30, buf);
	/* the lines, and their legend */
	for (uint32_t l = 0; l <= LINES && l < nl; l++) {
		fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			colour[l]);
		for (uint64_t q = 0; q < s->n; q++) {
			double x = LEFT + W * ((double)q + 0.5) / (double)s->n;
			fprintf(out, "%.1f,%.1f ", x, y0 + H - H * line[l * s->n + q] / max);
		}
		fputs("\"/>\n", out);
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" fill=\"%s\">", LEFT + W + 10,
			y0 + 12 + 14.0 * l, colour[l]);
		if (l < LINES)
			xml(out, node_name(order[l]));
		else
			fputs("other", out);
		fputs("</text>\n", out);
	}
	free(order);
	free(line);
}

int put_plot(FILE *out, struct proc *ps, int n)
{
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"font-family=\"Helvetica, sans-serif\">\n", LEFT + W + 200, TOP + PANEL * n);
	fputs("<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", out);
	for (int k = 0; k < n; k++)
		if (ps[k].have_slices)
			panel(out, &ps[k], TOP + PANEL * k);
	fputs("</svg>\n", out);
	return ferror(out) ? -1 : 0;
}
