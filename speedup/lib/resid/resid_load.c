/* resid_load.c - a process's events for the residency simulation (resid.h): its trace's
 * depth-0 calls (function, thread, start by slot) and its TRACE.flow's records, clipped
 * to their blocks' sizes and put in simulation order (by seq; at one seq the life and
 * host events in file order, then the reads, then the writes).  Arrays are sized by
 * what was read (rows, records: resid_seqs.c), never by a count or an id in a file. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flow_file.h"
#include "func_names.h"
#include "grow.h"
#include "input.h"
#include "resid.h"
#include "resid_seqs.h"
#include "rows.h"

/* seqs beyond this are not believed (the CSV reader's own limit is larger) */
#define MAX_SEQ (UINT64_C(1) << 32)

/* A depth-0 row, kept until the slots are known. */
struct top_call {
	uint64_t seq, tid;
	int64_t t_start;
	int32_t func;
};

/* The loader's state. */
struct loader {
	struct resid_events *ev;
	uint64_t nseq;		/* seqs are below it: the .flow head's, or the rows' */
	struct top_call *top;	/* the depth-0 rows, in file order */
	size_t ntop, top_room;
	uint64_t *size;		/* by block: its size now (UINT64_MAX: not known) */
	size_t size_room;
	unsigned char *scalar;	/* by block: a static or stack object of at most 16 bytes */
	char why[120];		/* a bad record's message */
};

static int read_rows(struct loader *l, const char *trace)
{
	struct trace_src src;
	struct trace_row r;
	int rc;

	if (rows_open(&src, trace) != 0)
		return -1;
	while ((rc = rows_next(&src, &r)) == 1) {
		if (r.seq >= MAX_SEQ) {
			input_error(trace, rows_line_of(&src, r.pos), "seq %llu too large",
				    (unsigned long long)r.seq);
			rc = -1;
			break;
		}
		if (r.seq + 1 > l->nseq)
			l->nseq = r.seq + 1;
		if (resid_seqs_add(l->ev, r.seq) != 0 ||
		    (r.depth == 0 &&
		     grow(&l->top, sizeof(*l->top), l->ntop, &l->top_room, 1024) != 0)) {
			input_error(trace, 0, "out of memory");
			rc = -1;
			break;
		}
		if (r.depth == 0)
			l->top[l->ntop++] = (struct top_call){ r.seq, r.tid, r.t_start,
							       (int32_t)r.func };
	}
	rows_close(&src);
	return rc;
}

/* The arrays by slot, from the seqs read (the rows', the records', the end): EV's events
 * get their slots.  0, or -1 out of memory. */
static int place(struct loader *l)
{
	struct resid_events *ev = l->ev;
	uint64_t slots;

	for (size_t i = 0; i < ev->n; i++)
		if ((i == 0 || ev->ev[i].seq != ev->ev[i - 1].seq) &&
		    resid_seqs_add(ev, ev->ev[i].seq) != 0)
			return -1;
	if (resid_seqs_add(ev, l->nseq) != 0)
		return -1;
	slots = resid_seqs_finish(ev);
	ev->nseq = resid_index(ev, l->nseq);
	/* (one more than the slots: an empty trace still gets arrays) */
	if (!(ev->func = malloc((size_t)slots * sizeof(*ev->func) + 1)) ||
	    !(ev->tid = malloc((size_t)slots * sizeof(*ev->tid) + 1)) ||
	    !(ev->t_start = malloc((size_t)slots * sizeof(*ev->t_start) + 1)))
		return -1;
	for (uint64_t i = 0; i < slots; i++) {
		ev->func[i] = -1;
		ev->tid[i] = 0;
		ev->t_start[i] = -1;
	}
	for (size_t i = 0; i < l->ntop; i++) {
		uint64_t k = resid_index(ev, l->top[i].seq);
		ev->func[k] = l->top[i].func;
		ev->tid[k] = l->top[i].tid;
		ev->t_start[k] = l->top[i].t_start;
	}
	for (size_t i = 0; i < ev->n; i++)
		ev->ev[i].seq = resid_index(ev, ev->ev[i].seq);
	return 0;
}

static int add(struct loader *l, struct resid_ev e)
{
	struct resid_events *ev = l->ev;

	if (grow(&ev->ev, sizeof(*ev->ev), ev->n, &ev->room, 1024) != 0)
		return -1;
	ev->ev[ev->n++] = e;
	return 0;
}

/* Block ID known to the size table (sizes not known until its OBJECT).  0, or -1. */
static int cover_block(struct loader *l, uint64_t id)
{
	size_t old = l->size_room, room = old;

	if (id < old)
		return 0;
	if (grow_to(&l->size, sizeof(*l->size), (size_t)id + 1, &room, 64) != 0)
		return -1;
	room = old;
	if (grow_to(&l->scalar, 1, (size_t)id + 1, &room, 64) != 0)
		return -1;
	for (size_t i = old; i < room; i++) {
		l->size[i] = UINT64_MAX;
		l->scalar[i] = 0;
	}
	l->size_room = room;
	return 0;
}

/* One record into events.  0; -1 with WHY set (a message for flow_file_error), or
 * -2 out of memory. */
static int record(struct loader *l, const struct flow_rec *r, uint64_t nobjects,
		  const char **why)
{
	struct resid_events *ev = l->ev;
	struct resid_ev e = { .seq = r->seq, .block = (uint32_t)r->id };
	char *buf = l->why;

	/* before any array by block grows to it: ids come from the file */
	if (r->type >= DYL_FR_RESIZE && r->type <= DYL_FR_HOST_READ && r->id >= nobjects) {
		snprintf(buf, sizeof(l->why), "object %llu not defined", (unsigned long long)r->id);
		*why = buf;
		return -1;
	}
	switch (r->type) {
	case DYL_FR_OBJECT:
		if (cover_block(l, r->id) != 0)
			return -2;
		l->size[r->id] = r->size;
		l->scalar[r->id] = (r->kind == DYL_OBJ_STATIC || r->kind == DYL_OBJ_STACK) &&
				   r->size <= 16;
		break;
	case DYL_FR_RESIZE:
		e.kind = RESID_RESIZE;
		e.lo = r->size;
		e.hi = r->rw;
		if (cover_block(l, r->id) != 0)
			return -2;
		l->size[r->id] = r->size;
		break;
	case DYL_FR_FREE:
		e.kind = RESID_FREE;
		break;
	case DYL_FR_ACCESS:
	case DYL_FR_HOST_WRITE:
	case DYL_FR_HOST_READ:
		e.kind = r->type == DYL_FR_HOST_WRITE ? RESID_HOST_WRITE :
			 r->type == DYL_FR_HOST_READ ? RESID_HOST_READ :
			 r->rw == DYL_ACC_W ? RESID_WRITE : RESID_READ;
		e.lo = r->lo;
		e.hi = r->hi;
		e.how = (uint8_t)(r->type == DYL_FR_HOST_READ ? r->rw : 0);
		if (e.hi < e.lo) {
			snprintf(buf, sizeof(l->why), "range %llu-%llu ends before it starts",
				 (unsigned long long)e.lo, (unsigned long long)e.hi);
			*why = buf;
			return -1;
		}
		if (cover_block(l, r->id) != 0)
			return -2;
		/* beyond the block's size: cut there, as the flow engine does */
		if (e.hi > l->size[r->id])
			e.hi = l->size[r->id];
		if (e.lo > e.hi)
			e.lo = e.hi;
		if (r->type == DYL_FR_HOST_READ) {
			ev->host_read_events++;
			ev->assumed_reads += e.how == DYL_HR_ASSUMED;
			ev->libio_reads += e.how == DYL_HR_LIBIO;
		}
		break;
	default:
		return 0;
	}
	if (r->type == DYL_FR_OBJECT)
		return 0;
	if (e.seq > l->nseq || (e.seq == l->nseq && r->type == DYL_FR_ACCESS)) {
		snprintf(buf, sizeof(l->why), "seq %llu is no call of the trace (it has %llu)",
			 (unsigned long long)e.seq, (unsigned long long)l->nseq);
		*why = buf;
		return -1;
	}
	/* a scalar a call reads by reference (n, alpha, a Fortran BLAS's 'N'): a device
	 * library takes it by value, in the launch: no transfer (doc/residency.md) */
	if (e.kind == RESID_READ && l->scalar[r->id])
		return 0;
	if (r->id + 1 > ev->nblocks)
		ev->nblocks = (uint32_t)r->id + 1;
	return add(l, e) != 0 ? -2 : 0;
}

static int order_class(const struct resid_ev *e)
{
	return e->kind == RESID_READ ? 1 : e->kind == RESID_WRITE ? 2 : 0;
}

static int before(const struct resid_ev *a, const struct resid_ev *b)
{
	return a->seq != b->seq ? a->seq < b->seq : order_class(a) < order_class(b);
}

/* A stable merge sort of EV's events by (seq, class): file order kept within a class. */
static int sort_events(struct resid_events *ev)
{
	struct resid_ev *tmp;
	size_t n = ev->n;

	for (size_t i = 1; i < n; i++)
		if (before(&ev->ev[i], &ev->ev[i - 1]))
			goto unsorted;
	return 0;
unsorted:
	if (!(tmp = malloc(n * sizeof(*tmp))))
		return -1;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = before(&ev->ev[j], &ev->ev[i]) ? ev->ev[j++] : ev->ev[i++];
			while (i < mid)
				tmp[k++] = ev->ev[i++];
			while (j < hi)
				tmp[k++] = ev->ev[j++];
		}
		memcpy(ev->ev, tmp, n * sizeof(*tmp));
	}
	free(tmp);
	return 0;
}

int resid_load(struct resid_events *ev, const char *trace)
{
	struct loader l = { .ev = ev };
	struct flow_file ff;
	struct flow_rec r;
	char *flow_path;
	int rc;

	resid_events_init(ev);
	if (asprintf(&flow_path, "%s%s", trace, DYL_FLOW_SUFFIX) < 0) {
		input_error(trace, 0, "out of memory");
		return -1;
	}
	rc = flow_file_open(&ff, flow_path, trace);
	if (rc != 0) {
		free(flow_path);
		return rc;
	}
	ev->host_reads = (ff.flags & DYL_FLOW_F_HOST_READS) != 0;
	ev->flow_flags = ff.flags;
	/* a number from the file: it bounds the records' seqs, and sizes nothing */
	l.nseq = ff.nseq < MAX_SEQ ? ff.nseq : 0;
	rc = read_rows(&l, trace) != 0 ? -1 : 0;
	while (rc == 0 && (rc = flow_file_next(&ff, &r)) == 1) {
		const char *why = NULL;
		int e = record(&l, &r, ff.nobjects, &why);
		rc = 0;
		if (e == -1) {
			flow_file_error(&ff, why);
			rc = -1;
		} else if (e == -2) {
			input_error(flow_path, 0, "out of memory");
			rc = -1;
		}
	}
	ev->nfuncs = funcs_count();
	if (rc == 0 && (sort_events(ev) != 0 || place(&l) != 0)) {
		input_error(flow_path, 0, "out of memory");
		rc = -1;
	}
	flow_file_close(&ff);
	free(flow_path);
	free(l.size);
	free(l.scalar);
	free(l.top);
	if (rc != 0)
		resid_events_free(ev);
	return rc;
}
