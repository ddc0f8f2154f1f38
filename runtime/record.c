/* record.c - binary call records: appended by the per-call path, turned into CSV rows
 * at write-out.
 *
 * The per-call path stores a 16-byte struct dyl_rec.  A call with more to tell sets
 * DYL_REC_EXT and appends a payload, in 8-byte words:
 *   header: u8 words (the payload's, this one included), u8 DYL_X_*, u16 0, u32 depth
 *   u64 t_end (or the duration in ns, DYL_REC_DUR_NS), u64 function id
 *   DYL_X_SEQ:   u64 seq
 *   DYL_X_SIZES: i64 in_bytes, out_bytes, work
 *   DYL_X_EXTRA: u16 args_len, u8 ncounters, u8 counter_base, u32 0,
 *                ncounters x i64, then args_len bytes of text (padded to 8)
 * (the full-width depth, end and id make any value fit; the seq is at word 3, where
 * dyl_rec_seq finds it.)
 *
 * Numbering (seq): a thread's buffer holds its calls in end order (a call ends after
 * the calls it made).  Each write-out (spool.c) takes one block of numbers from
 * dyl_rt.seq with one atomic add; conversion sorts the block's records by start (outer
 * before inner at equal start) and numbers them in that order.  A call still open at a
 * write-out (the owner writes out from inside nested calls) started before some of the
 * rows written: it is numbered in that block too, and carries its number to its record
 * when it ends.  So seq is start order within a thread, unique and without gaps in the
 * process; across threads it follows the order of write-outs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include "internal.h"

/* Makes R an extended record with its payload from C (SEQ1: reserved seq + 1, or 0;
 * DUR: the duration or end, ID and DEPTH at full width); returns the payload bytes. */
uint32_t dyl_rec_put(struct dyl_rec *r, const struct dyl_call *c, uint64_t seq1,
		     uint64_t dur, uint32_t id, uint32_t depth)
{
	uint64_t *w = (uint64_t *)(r + 1);
	uint32_t n = 3, x = 0;

	r->meta |= DYL_REC_EXT << 28;
	w[1] = (c->flags & DYL_CALL_DUR_NS) ? dur : c->t_end;
	w[2] = id;
	if (seq1) {
		x |= DYL_X_SEQ;
		w[n++] = seq1 - 1;
	}
	if (c->in_bytes != DYL_NONE || c->out_bytes != DYL_NONE || c->work != DYL_NONE) {
		x |= DYL_X_SIZES;
		w[n++] = (uint64_t)c->in_bytes;
		w[n++] = (uint64_t)c->out_bytes;
		w[n++] = (uint64_t)c->work;
	}
	if (c->args || c->ncounters) {
		uint32_t nc = c->ncounters <= DYL_MAX_COUNTERS ? c->ncounters : DYL_MAX_COUNTERS;
		size_t al = c->args ? strnlen(c->args, DYL_ARGS_MAX) : 0;
		x |= DYL_X_EXTRA;
		w[n++] = (uint64_t)al | (uint64_t)nc << 16 | (uint64_t)(c->counter_base & 0xff) << 24;
		memcpy(&w[n], c->counters, nc * sizeof(int64_t));
		n += nc;
		memcpy(&w[n], c->args, al);
		n += (uint32_t)(al + 7) / 8;
	}
	w[0] = (uint64_t)n | (uint64_t)x << 8 | (uint64_t)depth << 32;
	return n * 8;
}

/* --- from records to rows --- */

/* A row to be numbered: a record (at OFF in the buffer) or an open call (LEVEL). */
struct item {
	uint64_t start;
	uint32_t off;		/* UINT32_MAX: open call */
	uint16_t depth;
	uint16_t level;
};

#define MAX_ITEMS (DYL_THREAD_BUF / sizeof(struct dyl_rec) + DYL_MAX_FRAMES)
#define OUT_SIZE (64 * 1024)
/* Scratch for one write-out at a time: used with dyl_rt.io held. */
static struct item items[MAX_ITEMS], tmp[MAX_ITEMS];
static char out[OUT_SIZE];

static int before(const struct item *a, const struct item *b)
{
	return dyl_rec_before(a->start, a->depth, b->start, b->depth);
}

/* Stable merge sort: the buffer is nearly sorted already, but a call that made many
 * calls would cost an insertion sort one pass over them all. */
static void sort_items(size_t n)
{
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			if (mid == hi || !before(&items[mid], &items[mid - 1]))
				continue;	/* already in order */
			while (i < mid && j < hi)
				tmp[k++] = before(&items[j], &items[i]) ? items[j++] : items[i++];
			while (i < mid)
				tmp[k++] = items[i++];
			while (j < hi)
				tmp[k++] = items[j++];
			memcpy(&items[lo], &tmp[lo], (hi - lo) * sizeof(items[0]));
		}
	}
}

static void decode(struct dyl_row *row, const struct dyl_rec *r, uint64_t t0_ns)
{
	const uint64_t *w = (const uint64_t *)(r + 1);
	uint32_t flags = r->meta >> 28, x = 0;
	uint32_t id = r->meta & ((1u << DYL_REC_FUNC_BITS) - 1);
	uint64_t end_or_dur = r->dur;	/* a duration unless EXT says otherwise */
	int is_end = 0;

	row->depth = r->meta >> 20 & 0xff;
	if (flags & DYL_REC_EXT) {
		x = w[0] >> 8 & 0xff;
		row->depth = (uint32_t)(w[0] >> 32);
		end_or_dur = w[1];
		is_end = !(flags & DYL_REC_DUR_NS);
		id = (uint32_t)w[2];
		w += 3;
	}
	row->func = dyl_func_name(id);
	row->timed = r->t_start != 0;
	if (row->timed) {
		uint64_t s = dyl_ticks_to_ns(r->t_start);
		row->t_start_ns = s > t0_ns ? s - t0_ns : 0;
		if (flags & DYL_REC_DUR_NS) {
			row->t_ns = end_or_dur;
		} else {
			uint64_t e = dyl_ticks_to_ns(is_end ? end_or_dur : r->t_start + end_or_dur);
			row->t_ns = e > s ? e - s : 0;
		}
	}
	row->in_bytes = row->out_bytes = row->work = DYL_NONE;
	row->args = NULL;
	row->ncounters = row->counter_base = 0;
	if (x & DYL_X_SEQ)
		w++;
	if (x & DYL_X_SIZES) {
		row->in_bytes = (int64_t)w[0];
		row->out_bytes = (int64_t)w[1];
		row->work = (int64_t)w[2];
		w += 3;
	}
	if (x & DYL_X_EXTRA) {
		uint64_t h = *w++;
		uint32_t al = h & 0xffff;
		row->ncounters = (h >> 16) & 0xff;
		row->counter_base = (h >> 24) & 0xff;
		row->counters = (const int64_t *)w;
		row->args = (const char *)(w + row->ncounters);
		row->args_len = al;
	}
}

/* Does open call O start before record-or-call X (the order write-out numbers in)? */
int dyl_rec_before(uint64_t start_a, uint32_t depth_a, uint64_t start_b, uint32_t depth_b)
{
	return start_a < start_b || (start_a == start_b && depth_a < depth_b);
}

/* Numbers the records of one write-out block (RECS, LEN bytes, of thread TID) with
 * the OPEN calls it reserved numbers for, from BASE, in start order, and writes them
 * as CSV rows.  dyl_rt.io held.  The same order as dyl_spool_out's reservations. */
void dyl_rec_convert(pid_t tid, const char *recs, uint32_t len, const struct dyl_open *open,
		     uint32_t nopen, uint64_t base)
{
	size_t n = 0, o = 0;

	for (uint32_t off = 0; off + sizeof(struct dyl_rec) <= len && n < MAX_ITEMS;) {
		const struct dyl_rec *r = (const struct dyl_rec *)(recs + off);
		uint32_t d = dyl_rec_depth(r);
		items[n++] = (struct item){ r->t_start, off, (uint16_t)(d < 0xffff ? d : 0xffff), 0 };
		off += dyl_rec_size(r);
	}
	for (uint32_t l = 0; l < nopen && n < MAX_ITEMS; l++)
		items[n++] = (struct item){ open[l].start, UINT32_MAX, open[l].level, open[l].level };
	sort_items(n);
	uint64_t seq = base, t0_ns = dyl_ticks_to_ns(dyl_rt.t0);
	struct dyl_row row;
	row.tid = tid;
	for (size_t i = 0; i < n; i++) {
		if (items[i].off == UINT32_MAX) {
			seq++;	/* the open call's number: its row comes in a later block */
			continue;
		}
		const struct dyl_rec *r = (const struct dyl_rec *)(recs + items[i].off);
		if (!dyl_rec_seq(r, &row.seq))
			row.seq = seq++;
		decode(&row, r, t0_ns);
		if (o + DYL_ROW_MAX > sizeof(out)) {
			dyl_trace_put(out, o);
			o = 0;
		}
		o += dyl_format_row(out + o, DYL_ROW_MAX, &row);
	}
	dyl_trace_put(out, o);
}
