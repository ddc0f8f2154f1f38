/* load.c - one process: its trace's calls (rows.h: any form the runtime keeps), then
 * TRACE.flow's records (runtime/format/dyl_flow.h, doc/specs/flow.md) fed to the engine
 * in file order (speedup/lib/flow/flow_file.h reads and checks them).  A bad record is one
 * message "dyl-flow: FILE: record N (offset X): what", exit 2. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dyl_flow.h"
#include "flow_file.h"
#include "flowtool.h"
#include "shown.h"
#include "filter.h"
#include "func_names.h"
#include "grow.h"
#include "rows.h"

const char *node_name(uint32_t node)
{
	return node == FLOW_HOST ? "host" : funcs_get((int)node - 1)->name;
}

/* Is R a call --func or --time-range leaves out (marked in P->dropped)?  1 yes, 0 no,
 * -1 out of memory.  Such a call goes to the engine as a nested one (no node of its
 * own) and its accesses are skipped: as if it had not been recorded, so what it wrote
 * counts to the writer before it. */
static int drop_call(struct proc *p, const struct opts *o, const struct trace_row *r)
{
	if (!o->filter || !filter_active(o->filter) || filter_keep(o->filter, r->func, r->t_start))
		return 0;
	if (r->seq >= SIZE_MAX / 2 ||
	    grow_to(&p->dropped, 1, (size_t)r->seq + 1, &p->dropped_room, 1024) != 0)
		return -1;
	p->dropped[r->seq] = 1;
	return 1;
}

static int dropped(const struct proc *p, uint64_t seq)
{
	return seq < p->dropped_room && p->dropped[seq];
}

static int read_calls(struct proc *p, const struct opts *o)
{
	struct trace_src src;
	struct trace_row r;
	int rc, drop;

	/* a trace found beside a named .flow is never read through a symbolic link */
	if ((p->own_trace ? rows_open_beside : rows_open)(&src, p->trace) != 0)
		return -1;
	p->pid = src.pid;
	if (src.cmdline && !(p->cmdline = strdup(src.cmdline))) {
		rows_close(&src);
		return -1;
	}
	while ((rc = rows_next(&src, &r)) == 1) {
		if ((drop = drop_call(p, o, &r)) < 0) {
			input_error(p->trace, 0, "out of memory");
			rc = -1;
			break;
		}
		if (flow_call(&p->f, r.seq, r.func + 1, drop && !r.depth ? 1 : r.depth, r.tid,
			      r.t_start, r.t_ns) != 0) {
			input_error(p->trace, rows_line_of(&src, r.pos), "%s", p->f.err);
			rc = -1;
			break;
		}
	}
	p->total_ns = src.total_ns;
	if (rc == 0)
		rows_warn_truncated(&src);
	rows_close(&src);
	return rc;
}

/* --- --calls: one row per (call, object), from the ACCESS records of one seq --- */

struct acc {
	uint32_t obj, rw;
	uint64_t lo, hi;
};

static struct acc *pend;
static size_t npend, pend_room;

static int by_obj(const void *a, const void *b)
{
	const struct acc *x = a, *y = b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->rw != y->rw)
		return x->rw < y->rw ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void put_ranges(FILE *out, const struct acc *a, size_t n, uint32_t rw)
{
	int first = 1;

	for (size_t i = 0; i < n; i++)
		if (a[i].rw == rw) {
			fprintf(out, "%s%llu-%llu", first ? "" : " ", (unsigned long long)a[i].lo,
				(unsigned long long)a[i].hi);
			first = 0;
		}
}

static void calls_flush(struct proc *p, const struct opts *o, uint64_t seq)
{
	FILE *out = o->calls_out;

	qsort(pend, npend, sizeof(*pend), by_obj);
	for (size_t i = 0, j; i < npend; i = j) {
		uint64_t r = 0, w = 0;
		const struct flow_call *c = &p->f.call[seq];
		for (j = i; j < npend && pend[j].obj == pend[i].obj; j++)
			*(pend[j].rw ? &w : &r) += pend[j].hi - pend[j].lo;
		if (c->depth)
			continue;
		{
			if (o->multi)
				fprintf(out, "%s,%lld,", p->trace, (long long)p->pid);
			fprintf(out, "%llu,", (unsigned long long)seq);
			csv_str(out, node_name(c->node));
			fprintf(out, ",%u,", pend[i].obj);
			csv_str(out, p->f.object[p->f.block[pend[i].obj].object].name);
			fprintf(out, ",%llu,%llu,", (unsigned long long)r, (unsigned long long)w);
			put_ranges(out, pend + i, j - i, DYL_ACC_R);
			fputc(',', out);
			put_ranges(out, pend + i, j - i, DYL_ACC_W);
			fputc('\n', out);
		}
	}
	npend = 0;
}

/* --- TRACE.flow (read through flow_file.h) --- */

/* An object's name: heap: its site's text; mapping: its name, else its site's text. */
static int object_name(struct proc *p, uint32_t kind, const char *name, uint32_t name_len,
		       uint64_t site, const char **s, size_t *len)
{
	struct flow *f = &p->f;

	*s = name;
	*len = name_len;
	if ((kind == DYL_OBJ_HEAP || kind == DYL_OBJ_MAPPING) && site != DYL_FLOW_NONE &&
	    (kind == DYL_OBJ_HEAP || name_len == 0)) {
		if (site >= f->site_room || !f->site[site]) {
			snprintf(f->err, sizeof(f->err), "site %llu not defined",
				 (unsigned long long)site);
			return -1;
		}
		*s = f->site[site];
		*len = strlen(*s);
	} else if (kind == DYL_OBJ_HEAP) {
		*s = "(site not known)";
		*len = strlen(*s);
	} else if (name_len == 0) {
		*s = kind == DYL_OBJ_MAPPING ? "(mapping)" : "(no name)";
		*len = strlen(*s);
	}
	return 0;
}

/* One record R (checked by flow_file.c) into the engine.  0, or -1 (f->err). */
static int record(struct proc *p, const struct opts *o, const struct flow_rec *r,
		  uint64_t *cur_seq)
{
	struct flow *f = &p->f;

	if (o->calls_out && npend && (r->type != DYL_FR_ACCESS || r->seq != *cur_seq))
		calls_flush(p, o, *cur_seq);
	switch (r->type) {
	case DYL_FR_SITE:
		return flow_site(f, (uint32_t)r->id, r->text, r->text_len);
	case DYL_FR_OBJECT: {
		const char *name;
		size_t len;
		if (object_name(p, r->kind, r->text, r->text_len, r->site, &name, &len) != 0)
			return -1;
		return flow_object(f, (uint32_t)r->id, r->kind - 1, r->size, 0, name, len);
	}
	case DYL_FR_RESIZE:
		return flow_resize(f, (uint32_t)r->id, r->size, r->rw != 0);
	case DYL_FR_FREE:
		return flow_release(f, (uint32_t)r->id);
	case DYL_FR_ACCESS:
		if (dropped(p, r->seq))
			return 0;
		if (o->calls_out) {
			if (grow(&pend, sizeof(*pend), npend, &pend_room, 16) != 0)
				return -1;
			pend[npend++] = (struct acc){ (uint32_t)r->id, r->rw, r->lo, r->hi };
			*cur_seq = r->seq;
		}
		return flow_access(f, r->seq, (uint32_t)r->id, r->rw == DYL_ACC_W, r->lo, r->hi);
	case DYL_FR_HOST_WRITE:
	case DYL_FR_HOST_READ:	/* seen or assumed alike: the program read them */
		return flow_host(f, (uint32_t)r->id, r->type == DYL_FR_HOST_WRITE, r->lo, r->hi);
	default:
		return 0;	/* a type from a later version: skipped */
	}
}

static int read_flow(struct proc *p, const struct opts *o, struct flow_file *ff)
{
	struct flow_rec r;
	uint64_t cur_seq = 0;
	int rc;

	while ((rc = flow_file_next(ff, &r)) == 1)
		if (record(p, o, &r, &cur_seq) != 0) {
			flow_file_error(ff, p->f.err);
			rc = -1;
			break;
		}
	p->records = ff->records;
	if (rc == 0 && o->calls_out && npend)
		calls_flush(p, o, cur_seq);
	npend = 0;
	if (rc == 0 && flow_finish(&p->f) != 0) {
		input_error(p->flow_path, 0, "%s", p->f.err);
		rc = -1;
	}
	return rc;
}

static uint64_t trace_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Room for the calls the head announces, at once (no copies as the array grows). */
static int reserve(struct proc *p, const struct flow_file *ff)
{
	/* a row of any trace takes 8 bytes or more: a head that says more calls than that
	 * is wrong, and no reason to ask for the memory */
	if (ff->nseq <= trace_size(p->trace) / 8 && flow_reserve(&p->f, ff->nseq) != 0) {
		input_error(p->flow_path, 0, "%s", p->f.err);
		return -1;
	}
	return 0;
}

int proc_read(struct proc *p, const char *trace, const struct opts *o)
{
	size_t n = strlen(trace), sl = strlen(DYL_FLOW_SUFFIX);
	struct flow_file ff;
	int rc;

	memset(p, 0, sizeof(*p));
	flow_init(&p->f);
	p->trace = trace;
	p->pid = -1;
	if (n > sl && strcmp(trace + n - sl, DYL_FLOW_SUFFIX) == 0) {
		/* the .flow file was named (a symbolic link, maybe: flow_file_open follows
		 * none, so it gets the file's own path); its trace is beside the name */
		struct stat st;
		if (lstat(trace, &st) != 0 || !S_ISLNK(st.st_mode) ||
		    !(p->flow_path = realpath(trace, NULL)))
			p->flow_path = strdup(trace);
		p->trace = p->own_trace = strndup(trace, n - sl);
	} else if (asprintf(&p->flow_path, "%s%s", trace, DYL_FLOW_SUFFIX) < 0) {
		p->flow_path = NULL;
	}
	if (!p->flow_path || !p->trace) {
		input_error(trace, 0, "out of memory");
		return -1;
	}
	rc = flow_file_open(&ff, p->flow_path, p->trace);
	if (rc > 0)
		input_error(p->flow_path, 0, "cannot read it: was the wrapper built with -g "
			    "std.flow?  (the runtime writes it at exit; a killed run's is read from its "
			    "spool, and there is none here)");
	if (rc != 0)
		return -1;
	p->flags = ff.flags;
	ff.names = 1;
	rc = reserve(p, &ff) != 0 || read_calls(p, o) != 0 || read_flow(p, o, &ff) != 0 ? -1 : 0;
	flow_file_close(&ff);
	if (rc != 0)
		return -1;
	if (p->f.nested_events)
		input_warning(p->flow_path, 0, "%llu events of nested calls skipped",
			      (unsigned long long)p->f.nested_events);
	if (p->flags & DYL_FLOW_F_CUT)
		input_warning(p->flow_path, 0, "from a run cut short: events may be missing");
	return 0;
}

int put_names(FILE *out, const char *trace)
{
	size_t n = strlen(trace), sl = strlen(DYL_FLOW_SUFFIX);
	int named = n > sl && !strcmp(trace + n - sl, DYL_FLOW_SUFFIX);
	char *path = named ? strdup(trace) : NULL, *tr = named ? strndup(trace, n - sl) : NULL;
	struct flow_file ff;
	struct flow_rec r;
	int rc;

	if (!named && asprintf(&path, "%s%s", trace, DYL_FLOW_SUFFIX) < 0)
		path = NULL;
	if (!path || (named && !tr)) {
		input_error(trace, 0, "out of memory");
		free(path), free(tr);
		return -1;
	}
	rc = flow_file_open(&ff, path, named ? tr : trace);
	if (rc > 0)
		input_error(path, 0, "cannot read it: was the wrapper built with -g std.flow?");
	if (rc == 0) {
		ff.file_ids = ff.names = 1;
		while ((rc = flow_file_next(&ff, &r)) == 1) {
			if (r.type != DYL_FR_SITE && r.type != DYL_FR_OBJECT)
				continue;
			char *s = strndup(r.text, r.text_len);
			if (!s) {
				rc = -1;
				break;
			}
			fprintf(out, "%s,%llu,", r.type == DYL_FR_SITE ? "site" : "object",
				(unsigned long long)r.id);
			csv_str(out, s);
			fputc('\n', out);
			free(s);
		}
		flow_file_close(&ff);
	}
	free(path), free(tr);
	return rc == 0 ? 0 : -1;
}

void proc_free(struct proc *p)
{
	free(p->dropped);
	if (p->label)
		for (size_t i = 0; i < p->f.nobjects; i++)
			free(p->label[i]);
	free(p->label);
	if (p->have_slices)
		flow_slices_free(&p->slices);
	flow_free_all(&p->f);
	free(p->own_trace);
	free(p->flow_path);
	free(p->cmdline);
	free(pend);
	pend = NULL;
	pend_room = 0;
}
