/* load.c - one process: its trace's calls (rows.h: any form the runtime keeps), then
 * TRACE.flow's records (runtime/format/dyl_flow.h, doc/specs/flow.md) fed to the engine
 * in file order.  A bad record is one message "dyl-flow: FILE: record N (offset X):
 * what", exit 2. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dyl_flow.h"
#include "flowtool.h"
#include "shown.h"
#include "funcs.h"
#include "grow.h"
#include "rows.h"

const char *node_name(uint32_t node)
{
	return node == FLOW_HOST ? "host" : funcs_get((int)node - 1)->name;
}

static int read_calls(struct proc *p)
{
	struct trace_src src;
	struct trace_row r;
	int rc;

	if (rows_open(&src, p->trace) != 0)
		return -1;
	p->pid = src.pid;
	if (src.cmdline && !(p->cmdline = strdup(src.cmdline))) {
		rows_close(&src);
		return -1;
	}
	while ((rc = rows_next(&src, &r)) == 1)
		if (flow_call(&p->f, r.seq, r.func + 1, r.depth, r.tid, r.t_start, r.t_ns) != 0) {
			input_error(p->trace, rows_line_of(&src, r.pos), "%s", p->f.err);
			rc = -1;
			break;
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

/* --- TRACE.flow --- */

static uint64_t rd64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t rd32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* The bytes after a record's header that each type needs at least. */
static const uint32_t min_len[] = {
	[DYL_FR_SITE] = 16, [DYL_FR_OBJECT] = 48, [DYL_FR_RESIZE] = 32, [DYL_FR_FREE] = 16,
	[DYL_FR_ACCESS] = 40, [DYL_FR_HOST_WRITE] = 32, [DYL_FR_HOST_READ] = 32,
};

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

/* One record (TYPE, its BODY of LEN bytes) into the engine.  0, or -1 (f->err). */
static int record(struct proc *p, const struct opts *o, uint32_t type, const char *b,
		  uint32_t len, uint64_t *cur_seq)
{
	struct flow *f = &p->f;
	uint64_t seq;

	if (type < sizeof(min_len) / sizeof(min_len[0]) && len < min_len[type] && min_len[type]) {
		snprintf(f->err, sizeof(f->err), "type %u: %u bytes, needs %u", type, len,
			 min_len[type]);
		return -1;
	}
	if (o->calls_out && npend && (type != DYL_FR_ACCESS || rd64(b) != *cur_seq))
		calls_flush(p, o, *cur_seq);
	switch (type) {
	case DYL_FR_SITE: {
		uint64_t id = rd64(b);
		uint32_t npc = rd32(b + 8), tlen = rd32(b + 12);
		if ((uint64_t)npc * 8 + tlen > len - 16) {
			snprintf(f->err, sizeof(f->err), "SITE: %u pcs and %u bytes of text do "
				 "not fit its %u bytes", npc, tlen, len);
			return -1;
		}
		if (id != p->nsites) {	/* the Nth SITE is site N (doc/specs/flow.md) */
			snprintf(f->err, sizeof(f->err), "SITE %llu out of order (site %llu "
				 "expected)", (unsigned long long)id, (unsigned long long)p->nsites);
			return -1;
		}
		p->nsites++;
		return flow_site(f, (uint32_t)id, b + 16 + (size_t)npc * 8, tlen);
	}
	case DYL_FR_OBJECT: {
		uint64_t id = rd64(b), size = rd64(b + 16), site = rd64(b + 24);
		uint32_t kind = rd32(b + 8), nlen = rd32(b + 12);
		const char *name;
		size_t len2;
		if (nlen > len - 48) {
			snprintf(f->err, sizeof(f->err), "OBJECT: a name of %u bytes does not "
				 "fit its %u bytes", nlen, len);
			return -1;
		}
		if (id != p->nobjects) {	/* the Nth OBJECT is object N */
			snprintf(f->err, sizeof(f->err), "OBJECT %llu out of order (object %llu "
				 "expected)", (unsigned long long)id, (unsigned long long)p->nobjects);
			return -1;
		}
		p->nobjects++;
		if (kind < DYL_OBJ_HEAP || kind > DYL_OBJ_MAPPING) {
			snprintf(f->err, sizeof(f->err), "OBJECT %llu: kind %u unknown",
				 (unsigned long long)id, kind);
			return -1;
		}
		if (object_name(p, kind, b + 48, nlen, site, &name, &len2) != 0)
			return -1;
		return flow_object(f, (uint32_t)id, kind - 1, size, 0, name, len2);
	}
	case DYL_FR_RESIZE:
		if (rd64(b) >= UINT32_MAX)
			goto bad_id;
		return flow_resize(f, (uint32_t)rd64(b), rd64(b + 8), rd32(b + 24) != 0);
	case DYL_FR_FREE:
		if (rd64(b) >= UINT32_MAX)
			goto bad_id;
		return flow_release(f, (uint32_t)rd64(b));
	case DYL_FR_ACCESS: {
		uint64_t id = rd64(b + 8), lo = rd64(b + 16), hi = rd64(b + 24);
		uint32_t rw = rd32(b + 32);
		seq = rd64(b);
		if (id >= UINT32_MAX)
			goto bad_id;
		if (rw > DYL_ACC_W) {
			snprintf(f->err, sizeof(f->err), "ACCESS: rw %u is neither 0 nor 1", rw);
			return -1;
		}
		if (o->calls_out) {
			if (grow(&pend, sizeof(*pend), npend, &pend_room, 16) != 0)
				return -1;
			pend[npend++] = (struct acc){ (uint32_t)id, rw, lo, hi };
			*cur_seq = seq;
		}
		return flow_access(f, seq, (uint32_t)id, rw == DYL_ACC_W, lo, hi);
	}
	case DYL_FR_HOST_WRITE:
	case DYL_FR_HOST_READ:
		if (rd64(b + 8) >= UINT32_MAX)
			goto bad_id;
		return flow_host(f, (uint32_t)rd64(b + 8), type == DYL_FR_HOST_WRITE,
				 rd64(b + 16), rd64(b + 24));
	default:
		return 0;	/* a type from a later version: skipped */
	}
bad_id:
	snprintf(f->err, sizeof(f->err), "object id %llu too large", (unsigned long long)rd64(b));
	return -1;
}

static int read_flow(struct proc *p, const struct opts *o)
{
	struct input_file in;
	const struct dyl_flow_head *h;
	size_t off = sizeof(*h);
	uint64_t cur_seq = 0;
	int rc = 0;

	if (input_open(&in, p->flow_path) != 0)
		return -1;
	h = (const void *)in.data;
	if (in.size < sizeof(*h) || memcmp(in.data, DYL_FLOW_MAGIC, 8) != 0) {
		input_error(p->flow_path, 0, "not a flow file (no %s at its start)", DYL_FLOW_MAGIC);
		input_close(&in);
		return -1;
	}
	if (rd32(in.data + 8) != DYL_FLOW_VERSION) {
		input_error(p->flow_path, 0, "version %u (this dyl-flow reads %u)",
			    rd32(in.data + 8), DYL_FLOW_VERSION);
		input_close(&in);
		return -1;
	}
	p->flags = rd32(in.data + 12);
	while (off < in.size) {
		uint32_t type, len;
		p->records++;
		if (in.size - off < 8 || (len = rd32(in.data + off + 4)) % 8 ||
		    len > in.size - off - 8) {
			input_error(p->flow_path, 0, "record %llu (offset %zu): cut short or its "
				    "length does not fit", (unsigned long long)p->records, off);
			rc = -1;
			break;
		}
		type = rd32(in.data + off);
		if (record(p, o, type, in.data + off + 8, len, &cur_seq) != 0) {
			input_error(p->flow_path, 0, "record %llu (offset %zu): %s",
				    (unsigned long long)p->records, off, p->f.err);
			rc = -1;
			break;
		}
		off += 8 + (size_t)len;
	}
	if (rc == 0 && o->calls_out && npend)
		calls_flush(p, o, cur_seq);
	npend = 0;
	if (rc == 0 && flow_finish(&p->f) != 0) {
		input_error(p->flow_path, 0, "%s", p->f.err);
		rc = -1;
	}
	(void)h;
	input_close(&in);
	return rc;
}

static uint64_t trace_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Room for the calls the head announces, at once (no copies as the array grows). */
static int reserve(struct proc *p)
{
	struct input_file in;
	int rc = 0;

	if (input_open(&in, p->flow_path) != 0)
		return -1;
	/* a row of any trace takes 8 bytes or more: a head that says more calls than that
	 * is wrong, and no reason to ask for the memory */
	if (in.size >= sizeof(struct dyl_flow_head) && memcmp(in.data, DYL_FLOW_MAGIC, 8) == 0 &&
	    rd64(in.data + 24) <= trace_size(p->trace) / 8 &&
	    flow_reserve(&p->f, rd64(in.data + 24)) != 0) {
		input_error(p->flow_path, 0, "%s", p->f.err);
		rc = -1;
	}
	input_close(&in);
	return rc;
}

int proc_read(struct proc *p, const char *trace, const struct opts *o)
{
	size_t n = strlen(trace), sl = strlen(DYL_FLOW_SUFFIX);

	memset(p, 0, sizeof(*p));
	flow_init(&p->f);
	p->trace = trace;
	p->pid = -1;
	if (n > sl && strcmp(trace + n - sl, DYL_FLOW_SUFFIX) == 0) {
		/* the .flow file was named: its trace is beside it */
		p->flow_path = strdup(trace);
		p->trace = p->own_trace = strndup(trace, n - sl);
	} else if (asprintf(&p->flow_path, "%s%s", trace, DYL_FLOW_SUFFIX) < 0) {
		p->flow_path = NULL;
	}
	if (!p->flow_path || !p->trace) {
		input_error(trace, 0, "out of memory");
		return -1;
	}
	if (access(p->flow_path, R_OK) != 0) {
		input_error(p->flow_path, 0, "cannot read it: was the wrapper built with -g "
			    "std.flow?  (the runtime writes it at exit; a killed run leaves none)");
		return -1;
	}
	if (reserve(p) != 0 || read_calls(p) != 0 || read_flow(p, o) != 0)
		return -1;
	if (p->f.nested_events)
		input_warning(p->flow_path, 0, "%llu events of nested calls skipped",
			      (unsigned long long)p->f.nested_events);
	if (p->flags & DYL_FLOW_F_CUT)
		input_warning(p->flow_path, 0, "from a run cut short: events may be missing");
	return 0;
}

void proc_free(struct proc *p)
{
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
