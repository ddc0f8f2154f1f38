/* tables.c - dyl-flow's tables: --edges, --objects, --via-objects, --slices (cells,
 * --phases, --spans) as CSV, and --json with everything.  Rows are sorted, largest
 * first; with several traces every CSV row starts with trace,pid. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "flowtool.h"
#include "shown.h"

static void lead(FILE *out, const struct proc *p, int n)
{
	if (n > 1) {
		csv_str(out, p->trace);
		fprintf(out, ",%lld,", (long long)p->pid);
	}
}

static void lead_header(FILE *out, int n)
{
	if (n > 1)
		fputs("trace,pid,", out);
}

/* --- sorting: qsort has no context argument here, so one static pointer --- */

static const struct proc *sort_proc;

static int edge_cmp(const void *a, const void *b)
{
	const struct flow_edge *x = &sort_proc->f.edge[*(const uint32_t *)a];
	const struct flow_edge *y = &sort_proc->f.edge[*(const uint32_t *)b];

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* P's edges that carry bytes, largest first (*N of them). */
static uint32_t *edges_sorted(const struct proc *p, size_t *n)
{
	uint32_t *v = malloc((p->f.nedges + 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < p->f.nedges; i++)
		if (p->f.edge[i].bytes)
			v[(*n)++] = (uint32_t)i;
	sort_proc = p;
	qsort(v, *n, sizeof(*v), edge_cmp);
	return v;
}

static int object_cmp(const void *a, const void *b)
{
	const struct flow_object *x = &sort_proc->f.object[*(const uint32_t *)a];
	const struct flow_object *y = &sort_proc->f.object[*(const uint32_t *)b];
	uint64_t tx = flow_traffic(x), ty = flow_traffic(y);

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return strcmp(x->name, y->name);
}

uint32_t *objects_by_traffic(const struct proc *p)
{
	uint32_t *v = malloc((p->f.nobjects + 1) * sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < p->f.nobjects; i++)
		v[i] = (uint32_t)i;
	sort_proc = p;
	qsort(v, p->f.nobjects, sizeof(*v), object_cmp);
	return v;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

/* --- CSV --- */

int put_edges(FILE *out, struct proc *ps, int n)
{
	lead_header(out, n);
	fputs("producer,consumer,bytes,unique_bytes,fresh_bytes\n", out);
	for (int k = 0; k < n; k++) {
		size_t ne;
		uint32_t *v = edges_sorted(&ps[k], &ne);
		if (!v)
			return -1;
		for (size_t i = 0; i < ne; i++) {
			const struct flow_edge *e = &ps[k].f.edge[v[i]];
			lead(out, &ps[k], n);
			csv_str(out, node_name(e->from));
			fputc(',', out);
			csv_str(out, node_name(e->to));
			fprintf(out, ",%llu,%llu,%llu\n", (unsigned long long)e->bytes,
				(unsigned long long)e->unique, (unsigned long long)e->fresh);
		}
		free(v);
	}
	return 0;
}

int put_objects(FILE *out, struct proc *ps, int n, int all)
{
	uint64_t quiet = 0;

	lead_header(out, n);
	fputs("object,kind,size,site,blocks,max_block,call_read,call_written,host_read,"
	      "host_written,alloc_pct,prod_pct,moves\n", out);
	for (int k = 0; k < n; k++) {
		const struct flow *f = &ps[k].f;
		uint32_t *v = objects_by_traffic(&ps[k]);
		if (!v)
			return -1;
		for (size_t i = 0; i < f->nobjects; i++) {
			const struct flow_object *o = &f->object[v[i]];
			int sited = o->kind == FLOW_HEAP || o->kind == FLOW_MAPPING;
			if (!all && flow_traffic(o) == 0 && o->moves == 0) {
				quiet++;	/* sorted by traffic: the rest are too */
				continue;
			}
			lead(out, &ps[k], n);
			csv_str(out, ps[k].label[v[i]]);
			fprintf(out, ",%s,%llu,", flow_kind_name[o->kind], (unsigned long long)o->size);
			csv_str(out, sited ? o->name : "");
			fprintf(out, ",%llu,%llu,%llu,%llu,%llu,%llu,%.1f,%.1f,%llu\n",
				(unsigned long long)o->blocks, (unsigned long long)o->max_block,
				(unsigned long long)o->call_read, (unsigned long long)o->call_written,
				(unsigned long long)o->host_read, (unsigned long long)o->host_written,
				pct(o->ever_written, o->size), pct(o->used, o->produced),
				(unsigned long long)o->moves);
		}
		free(v);
	}
	if (quiet)
		fprintf(stderr, "dyl-flow: %llu object%s that no call or host access touched left out "
			"(--all-objects lists them)\n", (unsigned long long)quiet, quiet == 1 ? "" : "s");
	return 0;
}

int put_via(FILE *out, struct proc *ps, int n)
{
	lead_header(out, n);
	fputs("from,to,bytes,access\n", out);
	for (int k = 0; k < n; k++) {
		const struct flow *f = &ps[k].f;
		for (int pass = 0; pass < 2; pass++)	/* writes, then reads */
			for (size_t i = 0; i < f->nlinks; i++) {
				const struct flow_link *l = &f->link[i];
				const char *fn = node_name(l->node), *ob = ps[k].label[l->object];
				uint64_t b = pass ? l->read : l->written;
				if (!b)
					continue;
				lead(out, &ps[k], n);
				csv_str(out, pass ? ob : fn);
				fputc(',', out);
				csv_str(out, pass ? fn : ob);
				fprintf(out, ",%llu,%s\n", (unsigned long long)b, pass ? "read" : "write");
			}
	}
	return 0;
}

/* The functions of phase P (a tenth of its bytes or more), ' '-separated, to OUT. */
static void phase_funcs(FILE *out, const struct flow_slices *s, const struct flow_phase *p,
			int quoted_json)
{
	int first = 1;

	for (uint32_t i = 0; i < s->nnodes; i++)
		if (flow_phase_has(s, p, i)) {
			if (quoted_json) {
				fputs(first ? "" : ", ", out);
				json_str(out, node_name(i), strlen(node_name(i)));
			} else {
				fprintf(out, "%s%s", first ? "" : " ", node_name(i));
			}
			first = 0;
		}
}

int put_slices(FILE *out, struct proc *ps, int n, enum output which)
{
	lead_header(out, n);
	if (which == OUT_SLICES)
		fputs("slice,start_ns,end_ns,function,read_bytes,written_bytes,bytes_per_s\n", out);
	else if (which == OUT_SPANS)
		fputs("function,first_ns,last_ns,read_bytes,written_bytes,mean_bytes_per_s,"
		      "peak_bytes_per_s\n", out);
	else
		fputs("phase,start_ns,end_ns,share,bytes,functions\n", out);
	for (int k = 0; k < n; k++) {
		const struct flow_slices *s = &ps[k].slices;
		const struct flow *f = &ps[k].f;
		if (!ps[k].have_slices)
			continue;
		if (which == OUT_SLICES) {
			for (uint64_t q = 0; q < s->n; q++)
				for (uint32_t i = 0; i < s->nnodes; i++) {
					double r = s->read[q * s->nnodes + i], w = s->written[q * s->nnodes + i];
					if (r == 0 && w == 0)
						continue;
					lead(out, &ps[k], n);
					fprintf(out, "%llu,%lld,%lld,", (unsigned long long)q,
						(long long)(q * (uint64_t)s->ns), (long long)((q + 1) * (uint64_t)s->ns));
					csv_str(out, node_name(i));
					fprintf(out, ",%.0f,%.0f,%.0f\n", r, w, (r + w) * 1e9 / (double)s->ns);
				}
		} else if (which == OUT_SPANS) {
			for (uint32_t i = 1; i < s->nnodes; i++) {
				int64_t span = s->last_ns[i] - s->first_ns[i];
				uint64_t b = f->node[i].read + f->node[i].written;
				if (s->first_ns[i] < 0)
					continue;
				lead(out, &ps[k], n);
				csv_str(out, node_name(i));
				fprintf(out, ",%lld,%lld,%llu,%llu,%.0f,%.0f\n", (long long)s->first_ns[i],
					(long long)s->last_ns[i], (unsigned long long)f->node[i].read,
					(unsigned long long)f->node[i].written,
					span > 0 ? (double)b * 1e9 / (double)span : 0, s->peak[i]);
			}
		} else {
			for (size_t i = 0; i < s->nphases; i++) {
				const struct flow_phase *p = &s->phase[i];
				lead(out, &ps[k], n);
				fprintf(out, "%zu,%lld,%lld,%.3f,%.0f,", i + 1,
					(long long)(p->first * (uint64_t)s->ns),
					(long long)((p->last + 1) * (uint64_t)s->ns),
					(double)(p->last - p->first + 1) / (double)s->n, p->bytes);
				phase_funcs(out, s, p, 0);
				fputc('\n', out);
			}
		}
	}
	return 0;
}

/* --- JSON --- */

static void jstr(FILE *out, const char *s)
{
	json_str(out, s, strlen(s));
}

static void json_slices(FILE *out, const struct proc *p)
{
	const struct flow_slices *s = &p->slices;
	const struct flow *f = &p->f;

	fprintf(out, ",\n   \"slices\": {\"slice_ns\": %lld, \"t0_ns\": %lld, \"count\": %llu, "
		"\"untimed_calls\": %llu,\n    \"functions\": [", (long long)s->ns,
		(long long)s->t0, (unsigned long long)s->n, (unsigned long long)s->untimed);
	for (uint32_t i = 1, first = 1; i < s->nnodes; i++) {
		int64_t span = s->last_ns[i] - s->first_ns[i];
		uint64_t b = f->node[i].read + f->node[i].written;
		if (s->first_ns[i] < 0)
			continue;
		fprintf(out, "%s\n     {\"function\": ", first ? "" : ",");
		jstr(out, node_name(i));
		fprintf(out, ", \"first_ns\": %lld, \"last_ns\": %lld, \"mean_bytes_per_s\": %.0f, "
			"\"peak_bytes_per_s\": %.0f, \"read\": [", (long long)s->first_ns[i],
			(long long)s->last_ns[i], span > 0 ? (double)b * 1e9 / (double)span : 0,
			s->peak[i]);
		for (uint64_t q = 0; q < s->n; q++)
			fprintf(out, "%s%.0f", q ? ", " : "", s->read[q * s->nnodes + i]);
		fputs("], \"written\": [", out);
		for (uint64_t q = 0; q < s->n; q++)
			fprintf(out, "%s%.0f", q ? ", " : "", s->written[q * s->nnodes + i]);
		fputs("]}", out);
		first = 0;
	}
	fputs("],\n    \"phases\": [", out);
	for (size_t i = 0; i < s->nphases; i++) {
		const struct flow_phase *ph = &s->phase[i];
		fprintf(out, "%s\n     {\"start_ns\": %lld, \"end_ns\": %lld, \"share\": %.4f, "
			"\"bytes\": %.0f, \"functions\": [", i ? "," : "",
			(long long)(ph->first * (uint64_t)s->ns),
			(long long)((ph->last + 1) * (uint64_t)s->ns),
			(double)(ph->last - ph->first + 1) / (double)s->n, ph->bytes);
		phase_funcs(out, s, ph, 1);
		fputs("]}", out);
	}
	fputs("]}", out);
}

/* One trace's head: its files, process, run time and flags, up to its functions. */
static void json_head(FILE *out, const struct proc *p)
{
	const struct flow *f = &p->f;

	jstr(out, p->trace);
	fputs(", \"flow\": ", out);
	jstr(out, p->flow_path);
	fprintf(out, ", \"pid\": %lld, \"cmdline\": ", (long long)p->pid);
	if (p->cmdline)
		jstr(out, p->cmdline);
	else
		fputs("null", out);
	fputs(", \"total_ns\": ", out);
	if (p->total_ns >= 0)
		fprintf(out, "%lld", (long long)p->total_ns);
	else
		fputs("null", out);
	fprintf(out, ", \"diff\": %s, \"cut_short\": %s, \"nested_events_skipped\": %llu, "
		"\"clipped_bytes\": %llu,\n   \"functions\": [",
		p->flags & 1 ? "true" : "false", p->flags & 2 ? "true" : "false",
		(unsigned long long)f->nested_events, (unsigned long long)f->clipped_bytes);
}

static void json_functions(FILE *out, const struct proc *p)
{
	const struct flow *f = &p->f;

	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct flow_node *nd = &f->node[i];
		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
		jstr(out, node_name(i));
		fprintf(out, ", \"calls\": %llu, \"time_ns\": %lld, \"share\": ",
			(unsigned long long)nd->calls, (long long)nd->time_ns);
		if (i && p->total_ns > 0)
			fprintf(out, "%.4f", (double)nd->time_ns / (double)p->total_ns);
		else
			fputs("null", out);
		fprintf(out, ", \"read\": %llu, \"written\": %llu}",
			(unsigned long long)nd->read, (unsigned long long)nd->written);
	}
}

/* The edges EV (NE of them, largest first). */
static void json_edges(FILE *out, const struct proc *p, const uint32_t *ev, size_t ne)
{
	for (size_t i = 0; i < ne; i++) {
		const struct flow_edge *e = &p->f.edge[ev[i]];
		fputs(i ? ",\n    {\"producer\": " : "\n    {\"producer\": ", out);
		jstr(out, node_name(e->from));
		fputs(", \"consumer\": ", out);
		jstr(out, node_name(e->to));
		fprintf(out, ", \"bytes\": %llu, \"unique_bytes\": %llu, \"fresh_bytes\": %llu}",
			(unsigned long long)e->bytes, (unsigned long long)e->unique,
			(unsigned long long)e->fresh);
	}
}

/* The objects in the order OV (by traffic). */
static void json_objects(FILE *out, const struct proc *p, const uint32_t *ov)
{
	for (size_t i = 0; i < p->f.nobjects; i++) {
		const struct flow_object *ob = &p->f.object[ov[i]];
		fputs(i ? ",\n    {\"object\": " : "\n    {\"object\": ", out);
		jstr(out, p->label[ov[i]]);
		fprintf(out, ", \"kind\": \"%s\", \"name\": ", flow_kind_name[ob->kind]);
		jstr(out, ob->name);
		fprintf(out, ", \"size\": %llu, \"blocks\": %llu, \"max_block\": %llu, "
			"\"call_read\": %llu, \"call_written\": %llu, \"host_read\": %llu, "
			"\"host_written\": %llu, \"ever_written\": %llu, \"produced\": %llu, "
			"\"used\": %llu, \"alloc_pct\": %.1f, \"prod_pct\": %.1f, \"moves\": %llu}",
			(unsigned long long)ob->size, (unsigned long long)ob->blocks,
			(unsigned long long)ob->max_block, (unsigned long long)ob->call_read,
			(unsigned long long)ob->call_written, (unsigned long long)ob->host_read,
			(unsigned long long)ob->host_written, (unsigned long long)ob->ever_written,
			(unsigned long long)ob->produced, (unsigned long long)ob->used,
			pct(ob->ever_written, ob->size), pct(ob->used, ob->produced),
			(unsigned long long)ob->moves);
	}
}

/* The links function -> object (written) and object -> function (read). */
static void json_links(FILE *out, const struct proc *p)
{
	for (size_t i = 0; i < p->f.nlinks; i++) {
		const struct flow_link *l = &p->f.link[i];
		fputs(i ? ",\n    {\"function\": " : "\n    {\"function\": ", out);
		jstr(out, node_name(l->node));
		fputs(", \"object\": ", out);
		jstr(out, p->label[l->object]);
		fprintf(out, ", \"read\": %llu, \"written\": %llu}", (unsigned long long)l->read,
			(unsigned long long)l->written);
	}
}

int put_json(FILE *out, struct proc *ps, int n, const struct opts *o)
{
	fprintf(out, "{\"version\": \"%s\", \"traces\": [", cli_version);
	for (int k = 0; k < n; k++) {
		const struct proc *p = &ps[k];
		size_t ne;
		uint32_t *ev = edges_sorted(p, &ne), *ov = objects_by_traffic(p);
		if (!ev || !ov) {
			free(ev);
			free(ov);
			return -1;
		}
		fputs(k ? ",\n  {\"trace\": " : "\n  {\"trace\": ", out);
		json_head(out, p);
		json_functions(out, p);
		fputs("],\n   \"edges\": [", out);
		json_edges(out, p, ev, ne);
		fputs("],\n   \"objects\": [", out);
		json_objects(out, p, ov);
		fputs("],\n   \"via_objects\": [", out);
		json_links(out, p);
		fputs("]", out);
		if (p->have_slices)
			json_slices(out, p);
		fputs("}", out);
		free(ev);
		free(ov);
	}
	(void)o;
	fputs("\n]}\n", out);
	return 0;
}
