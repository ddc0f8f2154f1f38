/* report_svg.c - the timelines as SVG (report_svg.h).
 *
 * Each thread gets two tracks: the measured one (its life, and its replaced calls where
 * the trace has them) and the predicted one (the timeline's, timeline.h: each call ends
 * at call_end and took f, its transfers first).  Below the threads, the device (the
 * replaced calls' compute, on the predicted clock) and the link (h2d charged to a call
 * before it; d2h: a transfer's own call).  A run can hold millions of calls: rectangles
 * closer than half a pixel to the one before of the same colour are merged, so a track
 * never holds more rectangles than it has pixels. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "func_names.h"
#include "report_fmt.h"
#include "report_svg.h"
#include "timeline.h"

#define W 1200		/* the drawing's width (it scales with the page) */
#define LABEL 130	/* the lanes' names */
#define TRACK 14	/* one track's height */
#define GAP 6		/* between lanes */
#define COLOURS 8	/* kernels with a colour of their own; the rest share k8 */

void html_text(FILE *out, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*s, out);
		}
}

int svg_colour(const struct page *pg, int id)
{
	for (int i = 0; i < pg->nkern && i < COLOURS; i++)
		if (pg->kern[i] == id)
			return i;
	return COLOURS;
}

/* The window of time a drawing shows (ns from the wrapper's start), and its px per ns. */
struct view {
	double t0, t1, scale;
};

/* One track's rectangles, merged while they touch (within half a pixel). */
struct track {
	FILE *out;
	const struct view *v;
	double y;
	int cls;	/* -1: none pending */
	const char *kind;	/* the class prefix: "k" (a kernel's colour), or a whole class */
	double x0, x1;
};

static void flush(struct track *t)
{
	if (t->cls < 0)
		return;
	double w = t->x1 - t->x0 < 0.5 ? 0.5 : t->x1 - t->x0;
	fprintf(t->out, "<rect class=\"%s%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\"/>",
		t->kind, t->cls, LABEL + t->x0, t->y, w, TRACK);
	t->cls = -1;
}

static void add(struct track *t, int cls, double from_ns, double to_ns)
{
	const struct view *v = t->v;
	double a = from_ns > v->t0 ? from_ns : v->t0, b = to_ns < v->t1 ? to_ns : v->t1;
	double x0 = (a - v->t0) * v->scale, x1 = (b - v->t0) * v->scale;

	if (!(x1 >= x0) || !isfinite(x0))	/* outside the window too */
		return;
	/* (the device's track gathers the threads' calls: not in time order) */
	if (t->cls == cls && x0 <= t->x1 + 0.5 && x0 >= t->x0 - 0.5) {
		t->x1 = x1 > t->x1 ? x1 : t->x1;
		return;
	}
	flush(t);
	*t = (struct track){ t->out, t->v, t->y, cls, t->kind, x0, x1 };
}

/* A time axis at Y over V's window: ticks at 1, 2 or 5 times a power of ten. */
static void axis(FILE *out, const struct view *v, double y)
{
	double span = v->t1 - v->t0, step = pow(10, floor(log10(span > 0 ? span / 8 : 1)));
	char a[32];

	step *= span / step > 40 ? 5 : span / step > 16 ? 2 : 1;
	fprintf(out, "<line class=\"ax\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", LABEL, y, W,
		y);
	for (double t = ceil(v->t0 / step) * step; t <= v->t1 + span * 1e-4; t += step) {
		double x = LABEL + (t - v->t0) * v->scale;
		fprintf(out, "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\"%s x=\"%.1f\" y=\"%.1f\">%s</text>", x, y, x, y + 4,
			x > LABEL + 30 ? "" : " style=\"text-anchor:start\"", x, y + 16,
			t > 0 ? fmt_ns(a, sizeof(a), t) : "0");
	}
	fprintf(out, "<text class=\"lbl\" x=\"4\" y=\"%.1f\">time from the start</text>", y + 16);
}

/* The measured track of thread I: its life and its replaced calls, on the trace's clock. */
static void measured(struct track *tk, const struct prediction *p, int i, const struct page *pg)
{
	const struct tl_thread *th = &p->tl->th[i];
	double end = th->end_ns != TL_UNKNOWN ? (double)th->end_ns : (double)p->tl_clock_total_ns;

	tk->kind = "life";
	add(tk, 0, (double)th->start_ns, end);
	flush(tk);
	tk->kind = "k";
	for (size_t j = 0; j < th->ncalls; j++) {
		const struct tl_call *c = &th->calls[j];
		if (c->func >= 0)
			add(tk, svg_colour(pg, c->func), (double)c->start,
			    (double)c->start + (c->t > 0 ? (double)c->t : 0));
	}
	flush(tk);
}

/* The predicted track of thread I, and its calls on the device and link tracks. */
static void predicted(struct track *tk, struct track *dev, struct track *link,
		      const struct prediction *p, int i, const struct page *pg)
{
	const struct tl_thread *th = &p->tl->th[i];

	if (th->state == TL_ABSORBED || !th->call_end)
		return;
	tk->kind = "life";
	add(tk, 1, th->pstart, isfinite(th->pend) ? th->pend : th->plast);
	flush(tk);
	tk->kind = "k";
	for (size_t j = 0; j < th->ncalls; j++) {
		const struct tl_call *c = &th->calls[j];
		double end = th->call_end[j], begin = end - c->f;
		if (c->func < 0) {	/* a transfer of its own: d2h */
			add(link, 1, begin, end);
			continue;
		}
		add(tk, svg_colour(pg, c->func), begin, end);
		if (c->link > 0)
			add(link, 0, begin, begin + c->link);
		add(dev, svg_colour(pg, c->func), begin + c->link, end);
	}
	flush(tk);
}

static void lane_label(FILE *out, double y, const char *text, const char *sub)
{
	fprintf(out, "<text class=\"lbl\" x=\"4\" y=\"%.1f\">", y + TRACK - 3);
	html_text(out, text);
	fprintf(out, "<tspan class=\"sub\"> %s</tspan></text>", sub);
}

static void legend(FILE *out, const struct page *pg, double y)
{
	double x = LABEL;

	for (int i = 0; i < pg->nkern && i < COLOURS; i++, x += 150) {
		fprintf(out, "<rect class=\"k%d\" x=\"%.0f\" y=\"%.1f\" width=\"12\" height=\"12\"/>"
			"<text class=\"lbl\" x=\"%.0f\" y=\"%.1f\">", i, x, y, x + 16, y + 10);
		html_text(out, funcs_get(pg->kern[i])->shown);
		fputs("</text>", out);
	}
	fprintf(out, "<rect class=\"life0\" x=\"%.0f\" y=\"%.1f\" width=\"12\" height=\"12\"/>"
		"<text class=\"lbl\" x=\"%.0f\" y=\"%.1f\">thread alive</text>", x, y, x + 16, y + 10);
	x += 120;
	fprintf(out, "<rect class=\"link0\" x=\"%.0f\" y=\"%.1f\" width=\"12\" height=\"12\"/>"
		"<text class=\"lbl\" x=\"%.0f\" y=\"%.1f\">transfers charged to a call (h2d)</text>", x, y, x + 16, y + 10);
	x += 230;
	fprintf(out, "<rect class=\"link1\" x=\"%.0f\" y=\"%.1f\" width=\"12\" height=\"12\"/>"
		"<text class=\"lbl\" x=\"%.0f\" y=\"%.1f\">d2h to the host</text>", x, y, x + 16, y + 10);
}

/* The end of the drawing's clock: the later of the measured and predicted ends. */
static double clock_end(const struct prediction *p)
{
	double end = (double)p->tl_clock_total_ns;

	for (int i = 0; i < p->tl->n; i++) {
		const struct tl_thread *th = &p->tl->th[i];
		if (th->state != TL_ABSORBED && isfinite(th->pend) && th->pend > end)
			end = th->pend;
	}
	return end > 0 ? end : 1;
}

/* The device's and the link's tracks, gathered over the threads (in memory: the lanes
 * come first in the drawing). */
struct shared_tracks {
	char *buf[2];
	size_t len[2];
	struct track dev, link;
};

/* Process P's drawing of the window V; LANE: the class of a thread's group. */
static void process_svg(FILE *out, const struct prediction *p, const struct page *pg,
			const struct view *v, const char *lane)
{
	const struct timeline *tl = p->tl;
	double h = 10 + tl->n * (2 * TRACK + GAP) + 2 * (TRACK + GAP) + 26 + 20, y = 10;
	double ydev = y + tl->n * (2 * TRACK + GAP);
	struct shared_tracks sh = { .dev = { open_memstream(&sh.buf[0], &sh.len[0]), v, ydev,
					     -1, "k", 0, 0 },
				    .link = { open_memstream(&sh.buf[1], &sh.len[1]), v,
					      ydev + TRACK + GAP, -1, "link", 0, 0 } };
	char tid[40];

	if (!sh.dev.out || !sh.link.out)
		return;
	fprintf(out, "<svg class=\"tl\" viewBox=\"0 0 %d %.0f\" data-trace=\"", W, h);
	html_text(out, p->path);
	fputs("\">", out);
	for (int i = 0; i < tl->n; i++, y += 2 * TRACK + GAP) {
		struct track m = { out, v, y, -1, "k", 0, 0 }, pr = m;
		pr.y = y + TRACK;
		fprintf(out, "<g class=\"%s\" data-tid=\"%llu\">", lane,
			(unsigned long long)tl->th[i].tid);
		snprintf(tid, sizeof(tid), "%llu%s", (unsigned long long)tl->th[i].tid,
			 i ? "" : " main");
		lane_label(out, y, tid, "measured");
		lane_label(out, y + TRACK, "", "predicted");
		measured(&m, p, i, pg);
		predicted(&pr, &sh.dev, &sh.link, p, i, pg);
		fputs("</g>\n", out);
	}
	flush(&sh.dev);
	flush(&sh.link);
	fclose(sh.dev.out);
	fclose(sh.link.out);
	lane_label(out, ydev, "device", "queue");
	lane_label(out, ydev + TRACK + GAP, "link", "h2d/d2h");
	fwrite(sh.buf[0], 1, sh.len[0], out);
	fwrite(sh.buf[1], 1, sh.len[1], out);
	free(sh.buf[0]);
	free(sh.buf[1]);
	axis(out, v, ydev + 2 * (TRACK + GAP));
	legend(out, pg, ydev + 2 * (TRACK + GAP) + 26);
	fputs("</svg>\n", out);
}

/* The span of P's replaced calls, measured and predicted: [*FROM, *TO].  0 when none. */
static int calls_span(const struct prediction *p, double *from, double *to)
{
	*from = INFINITY;
	*to = -INFINITY;
	for (int i = 0; i < p->tl->n; i++) {
		const struct tl_thread *th = &p->tl->th[i];
		for (size_t j = 0; j < th->ncalls && th->call_end && th->state != TL_ABSORBED; j++) {
			const struct tl_call *c = &th->calls[j];
			double pe = th->call_end[j], ps = pe - c->f, me = (double)c->start + (double)c->t;
			*from = fmin(*from, fmin((double)c->start, ps));
			*to = fmax(*to, fmax(me, pe));
		}
	}
	return *to > *from;
}

/* The whole run; and where the calls fill under a quarter of it, their span enlarged
 * beside it (a short burst in a long run is a line otherwise). */
static void draw_process(FILE *out, const struct prediction *p, const struct page *pg)
{
	double end = clock_end(p), from, to;
	struct view whole = { 0, end, (W - LABEL - 10) / end };

	process_svg(out, p, pg, &whole, "lane");
	if (!calls_span(p, &from, &to) || to - from > end / 4)
		return;
	double margin = (to - from) * 0.03 + 1;
	struct view zoom = { fmax(0, from - margin), fmin(end, to + margin), 0 };
	char a[32], b[32];
	zoom.scale = (W - LABEL - 10) / (zoom.t1 - zoom.t0);
	fprintf(out, "<p class=\"muted\">The replaced calls, enlarged: %s to %s.</p>\n",
		fmt_ns(a, sizeof(a), zoom.t0), fmt_ns(b, sizeof(b), zoom.t1));
	process_svg(out, p, pg, &zoom, "lane-zoom");
}

int svg_timelines(FILE *out, const struct page *pg)
{
	int drawn = 0;

	for (int i = 0; i < pg->r->nprocs; i++) {
		const struct prediction *p = &pg->r->procs[i];
		fputs("<h3>", out);
		html_text(out, p->path);
		fputs("</h3>\n", out);
		if (!p->timeline || !p->tl) {
			fputs("<p class=\"muted\">No timeline: ", out);
			html_text(out, p->no_timeline ? p->no_timeline : "its threads were not recorded");
			fputs(".</p>\n", out);
			continue;
		}
		draw_process(out, p, pg);
		drawn++;
	}
	return drawn;
}
