/* graph.c - the flow graph: DOT in MCPROF's drawing conventions (functions as ovals with
 * their share of the run's time and their calls, objects as boxes with their size, edges
 * labelled with bytes and coloured on a log scale), gprof2dot's JSON, and SVG through
 * Graphviz's dot. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "flowtool.h"
#include "outfile.h"
#include "shown.h"

/* BYTES for people: 512 B, 3.2 KiB, 41 MiB. */
static const char *human(uint64_t bytes, char *buf, size_t room)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 4)
		v /= 1024, u++;
	snprintf(buf, room, u == 0 ? "%.0f %s" : v < 10 ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

/* A DOT string: its lines joined by DOT's \n, quotes and backslashes escaped, control
 * bytes shown as \xHH. */
static void dot_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (;;) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char buf[512];
		const char *t = shown(s, len, buf, sizeof(buf));
		for (; *t; t++) {
			if (*t == '"' || *t == '\\')
				fputc('\\', out);
			fputc(*t, out);
		}
		if (!nl)
			break;
		fputs("\\n", out);
		s = nl + 1;
	}
	fputc('"', out);
}

/* MCPROF's colours: blue for the smallest edge, red for the largest, on log(bytes). */
static void edge_style(FILE *out, uint64_t bytes, uint64_t max)
{
	double t = max > 1 ? log((double)bytes) / log((double)max) : 1;
	char h[32];

	if (t < 0)
		t = 0;
	fprintf(out, "label=\"%s\", color=\"%.3f 0.9 0.8\", fontcolor=\"%.3f 0.9 0.6\", "
		"penwidth=%.1f", human(bytes, h, sizeof(h)), 0.66 * (1 - t), 0.66 * (1 - t),
		1 + 3 * t);
}

struct drawn {
	uint8_t *node, *object;	/* 1: has a drawn edge */
};

/* The edges of P kept by the threshold, and which nodes they touch. */
static int mark(const struct proc *p, const struct opts *o, struct drawn *d, uint64_t *max)
{
	const struct flow *f = &p->f;

	d->node = calloc(f->nnodes + 1, 1);
	d->object = calloc(f->nobjects + 1, 1);
	if (!d->node || !d->object)
		return -1;
	*max = 1;
	if (o->via_objects) {
		for (size_t i = 0; i < f->nlinks; i++) {
			const struct flow_link *l = &f->link[i];
			uint64_t b = l->read > l->written ? l->read : l->written;
			if (l->read >= o->threshold && l->read)
				d->node[l->node] = d->object[l->object] = 1;
			if (l->written >= o->threshold && l->written)
				d->node[l->node] = d->object[l->object] = 1;
			if (b > *max)
				*max = b;
		}
		return 0;
	}
	for (size_t i = 0; i < f->nedges; i++) {
		const struct flow_edge *e = &f->edge[i];
		if (!e->bytes || e->bytes < o->threshold)
			continue;
		d->node[e->from] = d->node[e->to] = 1;
		if (e->bytes > *max)
			*max = e->bytes;
	}
	return 0;
}

static void dot_proc(FILE *out, const struct proc *p, int k, int n, const struct opts *o,
		     const struct drawn *d, uint64_t max)
{
	const struct flow *f = &p->f;
	char h[32];
	const char *in = n > 1 ? "    " : "  ";

	if (n > 1) {
		fprintf(out, "  subgraph cluster_%d {\n    label=", k);
		char lab[600];
		snprintf(lab, sizeof(lab), "pid %lld: %s", (long long)p->pid,
			 p->cmdline ? p->cmdline : p->trace);
		dot_str(out, lab);
		fputs(";\n", out);
	}
	for (uint32_t i = 0; i < f->nnodes; i++) {
		char lab[600];
		if (!d->node[i])
			continue;
		if (i == FLOW_HOST)
			snprintf(lab, sizeof(lab), "host\n(the program)");
		else if (p->total_ns > 0)
			snprintf(lab, sizeof(lab), "%s\n%.1f%% time\n%llu calls", node_name(i),
				 100.0 * (double)f->node[i].time_ns / (double)p->total_ns,
				 (unsigned long long)f->node[i].calls);
		else
			snprintf(lab, sizeof(lab), "%s\n%llu calls", node_name(i),
				 (unsigned long long)f->node[i].calls);
		fprintf(out, "%sp%d_n%u [shape=ellipse, label=", in, k, i);
		dot_str(out, lab);
		fputs(i == FLOW_HOST ? ", style=dashed];\n" : "];\n", out);
	}
	if (o->via_objects) {
		for (size_t i = 0; i < f->nobjects; i++) {
			char lab[600];
			if (!d->object[i])
				continue;
			snprintf(lab, sizeof(lab), "%s\n%s, %s", p->label[i],
				 flow_kind_name[f->object[i].kind], human(f->object[i].size, h, sizeof(h)));
			fprintf(out, "%sp%d_o%zu [shape=box, label=", in, k, i);
			dot_str(out, lab);
			fputs("];\n", out);
		}
		for (size_t i = 0; i < f->nlinks; i++) {
			const struct flow_link *l = &f->link[i];
			if (l->written && l->written >= o->threshold) {
				fprintf(out, "%sp%d_n%u -> p%d_o%u [", in, k, l->node, k, l->object);
				edge_style(out, l->written, max);
				fputs("];\n", out);
			}
			if (l->read && l->read >= o->threshold) {
				fprintf(out, "%sp%d_o%u -> p%d_n%u [", in, k, l->object, k, l->node);
				edge_style(out, l->read, max);
				fputs("];\n", out);
			}
		}
	} else {
		for (size_t i = 0; i < f->nedges; i++) {
			const struct flow_edge *e = &f->edge[i];
			if (!e->bytes || e->bytes < o->threshold)
				continue;
			fprintf(out, "%sp%d_n%u -> p%d_n%u [", in, k, e->from, k, e->to);
			edge_style(out, e->bytes, max);
			fputs("];\n", out);
		}
	}
	if (n > 1)
		fputs("  }\n", out);
}

int put_dot(FILE *out, struct proc *ps, int n, const struct opts *o)
{
	fputs("digraph flow {\n  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=10];\n"
	      "  edge [fontname=\"Helvetica\", fontsize=9];\n", out);
	for (int k = 0; k < n; k++) {
		struct drawn d;
		uint64_t max;
		int r = mark(&ps[k], o, &d, &max);
		if (r == 0)
			dot_proc(out, &ps[k], k, n, o, &d, max);
		free(d.node);
		free(d.object);
		if (r != 0)
			return -1;
	}
	fputs("}\n", out);
	return 0;
}

int put_gprof2dot(FILE *out, struct proc *ps, int n)
{
	uint32_t base = 0;
	int first = 1;

	/* functions are numbered across the traces: each process its own functions */
	fputs("{\"version\": 0,\n \"functions\": [", out);
	for (int k = 0; k < n; k++)
		for (uint32_t i = 0; i < ps[k].f.nnodes; i++) {
			char proc[64];
			fputs(first ? "\n  {\"name\": " : ",\n  {\"name\": ", out);
			json_str(out, node_name(i), strlen(node_name(i)));
			snprintf(proc, sizeof(proc), "%lld", (long long)ps[k].pid);
			fputs(", \"process\": ", out);
			json_str(out, proc, strlen(proc));
			fputs("}", out);
			first = 0;
		}
	fputs("],\n \"events\": [", out);
	first = 1;
	for (int k = 0; k < n; k++) {
		const struct flow *f = &ps[k].f;
		for (size_t i = 0; i < f->nedges; i++) {
			const struct flow_edge *e = &f->edge[i];
			if (!e->bytes)
				continue;
			fprintf(out, "%s\n  {\"callchain\": [%u, %u], \"cost\": [%llu]}",
				first ? "" : ",", base + e->to, base + e->from,
				(unsigned long long)e->bytes);
			first = 0;
		}
		base += (uint32_t)f->nnodes;
	}
	fputs("]}\n", out);
	return 0;
}

int write_svg(const char *path, struct proc *ps, int n, const struct opts *o,
	      char *const *inputs, int ninputs)
{
	char tmp[] = "/tmp/dyl-flow-XXXXXX";
	int fd = mkstemp(tmp), status = 0, ok;
	FILE *dot;
	struct outfile of;
	pid_t pid;

	if (fd < 0 || !(dot = fdopen(fd, "w"))) {
		fprintf(stderr, "dyl-flow: --svg: cannot make a file in /tmp\n");
		return -1;
	}
	ok = put_dot(dot, ps, n, o) == 0;
	if (fclose(dot) != 0 || !ok || outfile_open(&of, path, inputs, ninputs) != 0) {
		unlink(tmp);
		return -1;
	}
	fflush(of.f);
	pid = fork();
	if (pid == 0) {
		dup2(fileno(of.f), 1);
		execlp("dot", "dot", "-Tsvg", tmp, (char *)NULL);
		_exit(127);
	}
	ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	     WEXITSTATUS(status) == 0;
	unlink(tmp);
	if (!ok)
		fprintf(stderr, "dyl-flow: %s: Graphviz's dot %s\n", path,
			pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
			"is not installed (Debian: apt-get install graphviz)" : "failed");
	return outfile_close(&of, ok) == 0 && ok ? 0 : -1;
}
