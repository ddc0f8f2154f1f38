/* mpi_read.c - one MPI rank's trace (std.mpi's rows and notes) into struct mj_rank:
 * its MPI calls on the main thread, what its kernels save between them (mpi_ranks.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "func_names.h"
#include "grow.h"
#include "input.h"
#include "model.h"
#include "model2d.h"
#include "dyl_keys.h"
#include "mpi_ranks.h"
#include "rows.h"

/* std.mpi's columns, in order (microgens/std.mpi/README.md) */
static const char *const col_names[] = { "mpi_comm", "mpi_peer", "mpi_tag", "mpi_seq", "mpi_req" };
#define NCOL 5

/* A kernel call: its thread, start, saving (t - f) */
struct kcall {
	uint64_t tid;
	int64_t s;
	double save;
};

/* What reading a trace keeps besides the rank */
struct reader {
	int col[NCOL];		/* the columns' index among the extra fields (-1: none) */
	int args;		/* the args field's index among them */
	struct kcall *k;
	size_t nk, kroom;
};

static enum mj_kind kind_of(const char *f)
{
	static const char *const coll[] = { "Barrier", "Bcast", "Reduce", "Allreduce",
		"Allgather", "Allgatherv", "Alltoall", "Alltoallv", "Gather", "Gatherv",
		"Scatter", "Scatterv", "Reduce_scatter", "Reduce_scatter_block", NULL };
	static const char *const send[] = { "Send", "Ssend", "Bsend", "Rsend", NULL };

	if (strncmp(f, "MPI_", 4) != 0)
		return MJ_OTHER;
	f += 4;
	for (int i = 0; coll[i]; i++) {
		if (!strcmp(f, coll[i]))
			return MJ_COLL;
		if (f[0] == 'I' && !strcasecmp(f + 1, coll[i]))
			return MJ_ICOLL;
	}
	for (int i = 0; send[i]; i++) {
		if (!strcmp(f, send[i]))
			return MJ_SEND;
		if (f[0] == 'I' && !strcasecmp(f + 1, send[i]))
			return MJ_ISEND;
	}
	if (!strcmp(f, "Recv"))
		return MJ_RECV;
	if (!strcmp(f, "Irecv"))
		return MJ_IRECV;
	if (!strcmp(f, "Sendrecv"))
		return MJ_SENDRECV;
	if (!strncmp(f, "Wait", 4) || !strncmp(f, "Test", 4))
		return MJ_WAIT;
	if (!strncmp(f, "Init", 4))
		return MJ_INIT;
	return MJ_OTHER;
}

/* The rank's notes: 1 when it is a rank ('# mpi_rank='), else 0 */
static int read_notes(struct mj_rank *r, const struct trace_src *src)
{
	int is_rank = 0;

	r->size = -1;
	strcpy(r->host, "?");
	for (size_t i = 0; i < src->nnotes; i++) {
		const char *t = src->notes[i].text;
		size_t len = src->notes[i].len;
		const size_t k = DYL_KEY_LEN(DYL_KEY_MPI_RANK "=");	/* all three alike */
		if (len <= k || t[k - 1] != '=')
			continue;
		if (!strncmp(t, DYL_KEY_MPI_RANK "=", k))
			r->rank = atoi(t + k), is_rank = 1;
		else if (!strncmp(t, DYL_KEY_MPI_SIZE "=", k))
			r->size = atoi(t + k);
		else if (!strncmp(t, DYL_KEY_MPI_HOST "=", k)) {
			size_t n = len - k < sizeof(r->host) - 1 ? len - k : sizeof(r->host) - 1;
			memcpy(r->host, t + k, n);
			r->host[n] = '\0';
		}
	}
	return is_rank;
}

/* The extra fields' indices of std.mpi's columns and args, from the header */
static void read_header(struct reader *rd, const struct trace_src *src)
{
	const char *p = src->header, *end = p + src->header_len;
	int i = 0, depth = -1;

	for (int c = 0; c < NCOL; c++)
		rd->col[c] = -1;
	rd->args = -1;
	while (p < end) {
		const char *q = memchr(p, ',', (size_t)(end - p));
		size_t n = (size_t)((q ? q : end) - p);
		if (n == 5 && !strncmp(p, "depth", 5))
			depth = i;
		if (depth >= 0 && n == 4 && !strncmp(p, "args", 4))
			rd->args = i - depth;
		for (int c = 0; c < NCOL && depth >= 0; c++)
			if (n == strlen(col_names[c]) && !strncmp(p, col_names[c], n))
				rd->col[c] = i - depth;
		i++;
		p = q ? q + 1 : end;
	}
}

/* The extra fields of a row: each one's start and length in F (at most MAX) */
static int split_extra(const char *x, size_t len, const char **f, size_t *fl, int max)
{
	const char *p = x, *end = x + len;
	int n = 0;

	while (n < max) {
		const char *s = p;
		int quoted = p < end && *p == '"';
		if (quoted) {
			for (p++; p < end && !(*p == '"' && (p + 1 == end || p[1] != '"')); p += 1 + (*p == '"'))
				;
			p = p < end ? p + 1 : end;
		}
		while (p < end && *p != ',')
			p++;
		f[n] = s + quoted, fl[n] = (size_t)(p - s) - (quoted ? 2u : 0u);
		n++;
		if (p >= end)
			break;
		p++;
	}
	return n;
}

static int64_t field_num(const char *f, size_t len)
{
	char b[32];
	if (len == 0 || len >= sizeof(b))
		return -1;
	memcpy(b, f, len);
	b[len] = '\0';
	return strtoll(b, NULL, 10);
}

/* A Wait's or a Sendrecv's args: its items */
static int read_items(struct mj_event *e, const char *a, size_t len)
{
	char b[4096];
	char *save = NULL;

	if (len >= sizeof(b))
		len = sizeof(b) - 1;
	memcpy(b, a, len);
	b[len] = '\0';
	for (char *t = strtok_r(b, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		struct mj_item it = { 0 };
		long long v[6];
		if (sscanf(t, "%c:%lld:%lld:%lld:%lld:%lld:%lld", &it.kind, &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5]) != 7)
			continue;
		it.req = v[0], it.comm = v[1], it.peer = v[2], it.tag = v[3], it.bytes = v[4];
		it.seq = v[5];
		struct mj_item *n = realloc(e->items, (e->nitems + 1) * sizeof(*n));
		if (!n)
			return -1;
		e->items = n;
		e->items[e->nitems++] = it;
	}
	return 0;
}

/* The row's MPI call on the main thread, appended to R */
static int add_event(struct mj_rank *r, const struct reader *rd, const struct trace_row *row,
		     enum mj_kind kind)
{
	const char *f[24];
	size_t fl[24];
	int nf = split_extra(row->extra, row->extra_len, f, fl, 24);
	struct mj_event *e;
	int64_t v[NCOL];

	if (grow(&r->ev, sizeof(*r->ev), r->nev, &r->room, 64) != 0)
		return -1;
	e = &r->ev[r->nev++];
	memset(e, 0, sizeof(*e));
	for (int c = 0; c < NCOL; c++)
		v[c] = rd->col[c] >= 0 && rd->col[c] < nf ? field_num(f[rd->col[c]], fl[rd->col[c]]) : -1;
	e->s = row->t_start, e->e = row->t_start + row->t_ns;
	e->func = row->func, e->kind = kind;
	e->comm = v[0], e->peer = v[1], e->tag = v[2], e->seq = v[3], e->req = v[4];
	e->in_bytes = row->in_bytes, e->out_bytes = row->out_bytes;
	e->bound = -1;
	if ((kind == MJ_WAIT || kind == MJ_SENDRECV) && rd->args >= 0 && rd->args < nf &&
	    read_items(e, f[rd->args], fl[rd->args]) != 0)
		return -1;
	if (v[0] < 0 && kind != MJ_INIT && kind != MJ_WAIT)
		e->kind = MJ_OTHER;	/* no columns: nothing to match it with */
	return 0;
}

/* A kernel call: what the model saves on it (t - f), kept for its segment */
static int add_kernel(struct mj_rank *r, struct reader *rd, const struct trace_row *row,
		      struct models *ms)
{
	int m = ms ? funcs_get((int)row->func)->model : -1, oor = 0;
	struct model *md;
	double f;

	if (m < 0 || row->work < 0)
		return 0;
	md = &ms->m[m];
	if (md->link || md->n == 0)
		return 0;	/* (a link's: not a kernel) */
	if (md->b) {	/* keyed on bytes too (--device's): f of the call's shape */
		int64_t bytes = rows_call_bytes(row), shape;
		if (bytes == ROWS_NONE)
			return 0;	/* not replaced (predict.c) */
		if ((shape = model2d_shape(md, row->work, bytes)) < 0)
			return -1;
		f = model2d_f(md, shape, &oor);
	} else
		f = model_eval(md, (double)row->work, &oor);
	if (grow(&rd->k, sizeof(*rd->k), rd->nk, &rd->kroom, 64) != 0)
		return -1;
	rd->k[rd->nk++] = (struct kcall){ row->tid, row->t_start, (double)row->t_ns - f };
	r->kernels++;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct kcall *x = a, *y = b;
	return x->s < y->s ? -1 : x->s > y->s;
}

/* Each segment's saving (the segment before event I, or the tail): the thread that saves
 * most in it (threads that call kernels at once save at once) */
static void assign_saves(struct mj_rank *r, struct reader *rd)
{
	size_t i = 0;

	qsort(rd->k, rd->nk, sizeof(*rd->k), by_start);
	for (size_t j = 0; j < rd->nk;) {
		while (i < r->nev && r->ev[i].e <= rd->k[j].s)
			i++;	/* the kernel starts after event i-1's end: segment i */
		size_t j0 = j;
		double best = 0;
		while (j < rd->nk && (i == r->nev || rd->k[j].s < r->ev[i].e))
			j++;
		for (size_t a = j0; a < j; a++) {	/* per thread: its sum */
			double sum = 0;
			int first = 1;
			for (size_t b = j0; b < a && first; b++)
				first = rd->k[b].tid != rd->k[a].tid;
			if (!first)
				continue;
			for (size_t b = a; b < j; b++)
				if (rd->k[b].tid == rd->k[a].tid)
					sum += rd->k[b].save;
			if (sum > best)
				best = sum;
		}
		if (i == r->nev)
			r->tail_save += best;
		else
			r->ev[i].save += best;
	}
}

/* The rows of SRC into R and RD */
static int read_rows(struct mj_rank *r, struct reader *rd, struct trace_src *src,
		     struct models *ms)
{
	struct trace_row row;
	int got;

	while ((got = rows_next(src, &row)) == 1) {
		const char *name;
		enum mj_kind kind;
		for (; ms && ms->matched < funcs_count(); ms->matched++)
			funcs_get(ms->matched)->model = models_match(ms, funcs_get(ms->matched)->name);
		if (row.depth > 0 || row.t_start < 0 || row.t_ns < 0)
			continue;
		name = funcs_get((int)row.func)->name;
		kind = kind_of(name);
		if (!strncmp(name, "MPI_", 4)) {
			if ((int64_t)row.tid == r->pid && add_event(r, rd, &row, kind) != 0)
				return -1;
		}
		else if (add_kernel(r, rd, &row, ms) != 0)
			return -1;
	}
	return got;
}

int mj_read(struct mj_rank *r, const char *path, struct models *ms)
{
	struct trace_src src;
	struct reader rd = { .k = NULL };
	int rc;

	if (rows_open(&src, path) != 0)
		return -1;
	r->path = path;
	r->pid = src.pid;
	r->start_ns = src.start_ns;
	if (!read_notes(r, &src)) {
		rows_close(&src);
		return 0;
	}
	read_header(&rd, &src);
	rc = read_rows(r, &rd, &src, ms);
	r->total_ns = src.total_ns;
	if (rc == 0) {
		int64_t last = r->nev ? r->ev[r->nev - 1].e : 0;
		if (r->total_ns < last)
			r->total_ns = last;	/* (a trace cut short) */
		assign_saves(r, &rd);
	}
	free(rd.k);
	rows_close(&src);
	return rc == 0 ? 1 : -1;
}

void mj_rank_free(struct mj_rank *r)
{
	for (size_t i = 0; i < r->nev; i++) {
		free(r->ev[i].items);
		free(r->ev[i].deps);
	}
	free(r->ev);
	memset(r, 0, sizeof(*r));
}
