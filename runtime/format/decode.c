/* decode.c - the spool (dyl_spool.h) back into rows, numbered in start order.
 *
 * Runs in two places (dyl_decode.h): inside the profiled process when its image ends,
 * and in the tools after a crash.  So it takes no lock, calls no malloc (memory comes
 * from mmap) and no stdio.
 *
 * Numbering: each thread's blocks, in file order, form a stream; a block's records and
 * open calls are sorted by start (outer first at equal start) when the stream reaches
 * it.  The streams are merged by their next start (then tid), and seq is handed out in
 * that order.  An open call takes its number where it stands; its record, in a later
 * block, carries DYL_X_SEQ and gets that number when it comes.  Memory: one block's
 * items per thread whose blocks overlap in time, whatever the run's length.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "dyl_decode.h"
#include "dyl_flow.h"
#include "dyl_fmtmem.h"

#define NONE UINT32_MAX


/* --- the state --- */

struct item {		/* a record (at OFF in its stream's bytes) or an open call (OFF == NONE) */
	uint64_t start;
	uint32_t off;
	uint16_t depth;
	uint16_t level;
};

struct blk {
	uint64_t at;		/* file offset of its open calls, then its records */
	uint32_t nopen, len;	/* open calls, bytes of records */
	uint64_t min_start;
	int32_t tid;
	uint32_t next;		/* the stream's next block */
	uint32_t window, gen, to;	/* what it copied out (DYL_NO_WINDOW: nothing) */
};

struct window {
	int32_t tid;
	uint32_t gen, len, present;
	uint64_t data;		/* file offset of its records */
};

struct stream {
	int32_t tid;
	uint32_t first, last, cur;	/* blocks */
	int loaded;
	int direct;		/* its block's records in order, plain, no open calls: no items */
	char *bytes;		/* the current block, read */
	size_t bytes_cap;
	struct item *items, *tmp;
	size_t nitems, pos, cap;
	uint64_t reserved[DYL_SPOOL_LEVELS];	/* seq + 1 given to the open call at each level */
	uint64_t key_start;	/* its place in the merge (set_key) */
	uint32_t key_depth;
};

struct dyl_conv {
	int fd;
	uint64_t size;
	int cut_short;
	/* the first place found damaged (a byte offset; 0: none) and what was lost there */
	uint64_t damage_at;
	const char *damage_what;
	/* the small chunks, kept: META text, names, knots (offsets into KEEP) */
	char *keep;
	size_t kept, keep_cap;
	size_t header, header_len;
	size_t footer, footer_len;	/* FOOT: the process finished (footer_len 0: not) */
	int finished;
	uint32_t ncolumns;
	int have_clock;
	struct dyl_spool_clock clock;
	struct dyl_knot *knots;
	size_t knots_cap;
	uint32_t nknots;
	size_t *names;		/* offset in KEEP + 1; 0: none */
	uint32_t *name_len;	/* its length (at most DYL_NAME_MAX) */
	size_t name_len_cap;
	size_t nnames, names_cap;
	struct window *windows;
	uint32_t *covered;
	size_t nwindows, windows_cap, covered_cap;
	uint32_t windows_seen;	/* window chunks read so far */
	struct blk *blks;
	size_t nblks, blks_cap;
	struct stream *streams;
	size_t nstreams, streams_cap;
	uint32_t *heap;
	size_t nheap, heap_cap;
	uint32_t runner_up;	/* the first of the heap's other streams (NONE: not known) */
	uint64_t seq, t0_ns, last_end_ns;
	int advance_due;	/* the last row's stream moves on at the next call */
	/* the knot segment of the last conversion, its slope in 24.40 fixed point; the
	 * ticks it serves are SEG_TSC .. SEG_TSC + SEG_SPAN - 1 (span 0: none), from ns SEG_NS */
	uint32_t seg;
	unsigned __int128 seg_mult;
	uint64_t seg_tsc, seg_span, seg_ns;
};

/* The first damage found is the one reported (dyl_conv_damage). */
static void damaged(struct dyl_conv *c, uint64_t at, const char *what)
{
	if (!c->damage_at) {
		c->damage_at = at;
		c->damage_what = what;
	}
}

static int read_at(const struct dyl_conv *c, void *buf, size_t n, uint64_t off)
{
	char *p = buf;
	while (n > 0) {
		ssize_t r = pread(c->fd, p, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r, off += (uint64_t)r, n -= (size_t)r;
	}
	return 0;
}

/* --- ticks to ns: the piecewise linear map of the knots (clock.c takes them) --- */

static int set_segment(struct dyl_conv *c, uint64_t t)
{
	const struct dyl_knot *k = c->knots;
	uint32_t n = c->nknots, lo = 0, hi = n - 1;

	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;
		if (k[mid].tsc <= t)
			lo = mid;
		else
			hi = mid;
	}
	if (k[hi].tsc <= k[lo].tsc)
		return -1;
	c->seg = lo;
	c->seg_mult = ((unsigned __int128)(k[hi].ns - k[lo].ns) << 40) / (k[hi].tsc - k[lo].tsc);
	/* the last segment goes on past its end knot (to_ns_slow's test) */
	c->seg_tsc = k[lo].tsc;
	c->seg_span = (lo + 2 < n ? k[lo + 1].tsc : UINT64_MAX) - k[lo].tsc;
	c->seg_ns = k[lo].ns;
	return 0;
}

static uint64_t to_ns_slow(struct dyl_conv *c, uint64_t t)
{
	const struct dyl_knot *k = c->knots;

	if (!c->have_clock || !c->clock.tsc || c->nknots < 2)
		return t;
	if (c->seg >= c->nknots - 1 || t < k[c->seg].tsc ||
	    (t >= k[c->seg + 1].tsc && c->seg + 2 < c->nknots)) {
		if (set_segment(c, t) != 0)
			return t;
	}
	const struct dyl_knot *a = &k[c->seg];
	if (t < a->tsc) {	/* before the first knot */
		uint64_t back = (uint64_t)(((unsigned __int128)(a->tsc - t) * c->seg_mult) >> 40);
		return back < a->ns ? a->ns - back : 0;
	}
	return a->ns + (uint64_t)(((unsigned __int128)(t - a->tsc) * c->seg_mult) >> 40);
}

/* Ticks to ns: in the last segment's range (nearly every time: a run's knots are
 * seconds apart), one multiplication; the same value as to_ns_slow's. */
static inline uint64_t to_ns(struct dyl_conv *c, uint64_t t)
{
	if (t - c->seg_tsc < c->seg_span)
		return c->seg_ns + (uint64_t)(((unsigned __int128)(t - c->seg_tsc) * c->seg_mult) >> 40);
	return to_ns_slow(c, t);
}

/* --- reading the chunks (headers and small chunks only: blocks are read when their
 * turn comes, so that converting a spool of any size keeps a few blocks in memory) --- */

/* The body of a small chunk, into KEEP; its offset there, or -1. */
static ssize_t keep(struct dyl_conv *c, uint64_t at, uint32_t len)
{
	/* (32 bytes to spare: a name is copied in 16-byte steps) */
	if (!(c->keep = dyl_fmt_grow(c->keep, &c->keep_cap, c->kept + len + 1 + 32, 1)) ||
	    read_at(c, c->keep + c->kept, len, at) != 0)
		return -1;
	size_t o = c->kept;
	c->kept += len;
	c->keep[c->kept++] = '\0';
	return (ssize_t)o;
}

static int add_names(struct dyl_conv *c, uint64_t at, uint32_t len)
{
	ssize_t o = len >= 8 ? keep(c, at, len) : -1;
	if (o < 0)
		return -1;
	uint32_t first, count;
	const char *p = c->keep + o, *s = p + 8, *end = p + len;
	memcpy(&first, p, 4);
	memcpy(&count, p + 4, 4);
	if ((size_t)first + count > (1u << 24) ||
	    !(c->names = dyl_fmt_grow(c->names, &c->names_cap, (size_t)first + count, sizeof(size_t))) ||
	    !(c->name_len = dyl_fmt_grow(c->name_len, &c->name_len_cap, (size_t)first + count, sizeof(uint32_t))))
		return -1;
	for (size_t i = c->nnames; i < (size_t)first + count; i++)
		c->names[i] = 0;
	for (uint32_t i = 0; i < count; i++) {
		const char *z = memchr(s, '\0', (size_t)(end - s));
		if (!z)
			return -1;
		c->names[first + i] = (size_t)(s - c->keep) + 1;
		c->name_len[first + i] = (uint32_t)(z - s < DYL_NAME_MAX ? z - s : DYL_NAME_MAX);
		s = z + 1;
	}
	if (first + count > c->nnames)
		c->nnames = first + count;
	return 0;
}

static int add_window(struct dyl_conv *c, uint64_t at, uint32_t len)
{
	struct dyl_window w;
	if (len + sizeof(struct dyl_chunk) < sizeof(w) || read_at(c, &w, sizeof(w), at) != 0 ||
	    w.size > len + sizeof(struct dyl_chunk) - sizeof(w) || w.size > DYL_WINDOW_DATA ||
	    w.id > c->windows_seen++)
		return -1;	/* (ids count the windows in file order: no more than came before) */
	size_t need = (size_t)w.id + 1;
	if (!(c->windows = dyl_fmt_grow(c->windows, &c->windows_cap, need, sizeof(*c->windows))) ||
	    !(c->covered = dyl_fmt_grow(c->covered, &c->covered_cap, need, sizeof(*c->covered))))
		return -1;
	for (size_t i = c->nwindows; i < need; i++)
		c->windows[i].present = 0, c->covered[i] = 0;
	if (need > c->nwindows)
		c->nwindows = need;
	c->windows[w.id] = (struct window){ w.tid, w.gen, w.len <= w.size ? w.len : w.size, 1,
					    at + sizeof(w) };
	return 0;
}

static struct blk *new_blk(struct dyl_conv *c)
{
	if (!(c->blks = dyl_fmt_grow(c->blks, &c->blks_cap, c->nblks + 1, sizeof(struct blk))))
		return NULL;
	return &c->blks[c->nblks++];
}

static int add_block(struct dyl_conv *c, uint64_t at, uint32_t len)
{
	struct dyl_block b;
	size_t head = sizeof(b) - sizeof(struct dyl_chunk);
	if (len < head || read_at(c, &b, sizeof(b), at) != 0 || b.to < b.from ||
	    b.nopen > DYL_SPOOL_LEVELS || b.to - b.from > DYL_WINDOW_SIZE ||
	    head + b.nopen * sizeof(struct dyl_open) + (b.to - b.from) > len)
		return -1;
	struct blk *k = new_blk(c);
	if (!k)
		return -1;
	*k = (struct blk){ at + sizeof(b), b.nopen, b.to - b.from, b.min_start, b.tid, NONE,
			   b.window, b.gen, b.to };
	return 0;
}

/* Blocks copy out windows: a window's records after the last block of its current
 * generation are in it only. */
static void cover(struct dyl_conv *c)
{
	for (size_t i = 0; i < c->nblks; i++) {
		const struct blk *k = &c->blks[i];
		if (k->window < c->nwindows && c->windows[k->window].present &&
		    k->gen == c->windows[k->window].gen && k->to > c->covered[k->window])
			c->covered[k->window] = k->to;
	}
}

static int window_blocks(struct dyl_conv *c)
{
	for (size_t i = 0; i < c->nwindows; i++) {
		const struct window *w = &c->windows[i];
		if (!w->present || w->len <= c->covered[i])
			continue;
		struct blk *k = new_blk(c);
		if (!k)
			return -1;
		/* min_start 0: read at once (a crash leaves one per thread at most) */
		*k = (struct blk){ w->data + c->covered[i], 0, w->len - c->covered[i], 0, w->tid,
				   NONE, DYL_NO_WINDOW, 0, 0 };
	}
	return 0;
}

/* a META chunk at BODY: the columns and the trace's header lines.  -1: damaged. */
static int add_meta(struct dyl_conv *c, uint64_t body, uint32_t len)
{
	ssize_t o = len >= 8 ? keep(c, body, len) : -1;
	uint32_t n[2];
	if (o < 0)
		return -1;
	memcpy(n, c->keep + o, 8);
	if (n[1] > len - 8)
		return -1;
	c->ncolumns = n[0];
	c->header = (size_t)o + 8;
	c->header_len = n[1];
	return 0;
}

/* the FOOTER chunk at BODY: the process finished.  -1: damaged. */
static int add_footer(struct dyl_conv *c, uint64_t body, uint32_t len)
{
	ssize_t o = len >= 8 ? keep(c, body, len) : -1;
	uint32_t n;
	if (o < 0 || (memcpy(&n, c->keep + o, 4), n > len - 8))
		return -1;
	c->finished = 1;
	c->footer = (size_t)o + 8;
	c->footer_len = n;
	return 0;
}

/* a CLOCK chunk at BODY: the clock's knots.  -1: damaged. */
static int add_clock(struct dyl_conv *c, uint64_t body, uint32_t len)
{
	struct dyl_spool_clock k;
	if (len < sizeof(k) || read_at(c, &k, sizeof(k), body) != 0 ||
	    k.nknots > (len - sizeof(k)) / sizeof(struct dyl_knot) || k.nknots > 4096 ||
	    !(c->knots = dyl_fmt_grow(c->knots, &c->knots_cap, k.nknots + 2, sizeof(struct dyl_knot))) ||
	    read_at(c, c->knots, k.nknots * sizeof(struct dyl_knot), body + sizeof(k)) != 0)
		return -1;
	c->clock = k;
	c->have_clock = 1;
	c->nknots = k.nknots;
	return 0;
}

/* the chunk CH at OFF taken in.  1: damaged (an unknown kind, or a bad body). */
static int add_chunk(struct dyl_conv *c, uint64_t off, const struct dyl_chunk *ch)
{
	uint64_t body = off + sizeof(*ch);

	switch (ch->kind) {
	case DYL_CH_META:
		return add_meta(c, body, ch->len) != 0;
	case DYL_CH_FOOTER:
		return add_footer(c, body, ch->len) != 0;
	case DYL_CH_NAMES:
		return add_names(c, body, ch->len) != 0;
	case DYL_CH_CLOCK:
		return add_clock(c, body, ch->len) != 0;
	case DYL_CH_WINDOW:
		return add_window(c, off, ch->len) != 0;
	case DYL_CH_BLOCK:
		return add_block(c, off, ch->len) != 0;
	case DYL_CH_PAD:
	case DYL_CH_EVENTS:	/* thread events: events.c reads them */
	case DYL_CH_FLOW:	/* std.flow's events (dyl_flow.h): runtime/format/flowconv.c's */
		return 0;
	default:
		return 1;
	}
}

/* after the chunks: the windows' records no block copied out, and the clock's slope */
static int end_chunks(struct dyl_conv *c, int windows)
{
	cover(c);
	/* a finished process copied every window out before its footer: what a window holds
	 * past that (a thread still running at exit) is not the trace's */
	if (windows && !c->finished && window_blocks(c) != 0)
		return -1;
	/* a provisional slope when the process died before a second knot */
	if (c->have_clock && c->clock.tsc && c->nknots == 1 && c->clock.prov_tsc > c->knots[0].tsc) {
		c->knots[1] = (struct dyl_knot){ c->clock.prov_tsc, c->clock.prov_ns };
		c->nknots = 2;
	}
	return 0;
}

static int read_chunks(struct dyl_conv *c, int windows)
{
	uint64_t off = sizeof(struct dyl_spool_head);

	while (off + sizeof(struct dyl_chunk) <= c->size) {
		struct dyl_chunk ch;
		uint64_t body = off + sizeof(ch);
		if (read_at(c, &ch, sizeof(ch), off) != 0 || ch.len > c->size - body ||
		    (ch.kind == 0 && ch.len == 0))
			break;	/* cut short (zeros: space taken for a window not yet written) */
		if ((ch.len & 7) || add_chunk(c, off, &ch)) {
			damaged(c, off, "the rest of the spool is not read");
			break;
		}
		off += sizeof(ch) + ch.len;
	}
	/* whatever follows the last whole chunk: a write cut short (the zeros of space
	 * reserved ahead are not in SIZE) */
	c->cut_short = off < c->size && !c->damage_at;
	return end_chunks(c, windows);
}

/* --- streams --- */

static int group_streams(struct dyl_conv *c)
{
	size_t last = 0;

	for (uint32_t i = 0; i < c->nblks; i++) {
		struct blk *b = &c->blks[i];
		size_t s = last;
		if (s >= c->nstreams || c->streams[s].tid != b->tid)
			for (s = 0; s < c->nstreams && c->streams[s].tid != b->tid; s++)
				;
		if (s == c->nstreams) {
			if (!(c->streams = dyl_fmt_grow(c->streams, &c->streams_cap, s + 1, sizeof(struct stream))))
				return -1;
			memset(&c->streams[s], 0, sizeof(struct stream));
			c->streams[s].tid = b->tid;
			c->streams[s].first = c->streams[s].cur = i;
			c->nstreams++;
		} else {
			c->blks[c->streams[s].last].next = i;
		}
		c->streams[s].last = i;
		last = s;
	}
	return 0;
}

static int item_before(const struct item *a, const struct item *b)
{
	return a->start < b->start || (a->start == b->start && a->depth < b->depth);
}

/* Stable merge sort (see sort_items). */
static void merge_sort(struct item *items, struct item *tmp, size_t n)
{
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			if (mid == hi || !item_before(&items[mid], &items[mid - 1]))
				continue;	/* already in order */
			while (i < mid && j < hi)
				tmp[k++] = item_before(&items[j], &items[i]) ? items[j++] : items[i++];
			while (i < mid)
				tmp[k++] = items[i++];
			while (j < hi)
				tmp[k++] = items[j++];
			memcpy(&items[lo], &tmp[lo], (hi - lo) * sizeof(items[0]));
		}
	}
}

/* A block is nearly sorted already: a thread's calls end in order, only a caller comes
 * after its callees, as many places back as it has callees.  Insertion sort moves each
 * caller back that far and the rest not at all (the merge sort's merges copied whole
 * runs for each caller at their edge); past 8 moves an item on average (deep nests:
 * the block reversed) it gives up for the merge sort.  Both are stable: the same order. */
static void sort_items(struct item *items, struct item *tmp, size_t n)
{
	size_t budget = 8 * n;

	for (size_t i = 1; i < n; i++) {
		if (!item_before(&items[i], &items[i - 1]))
			continue;
		struct item x = items[i];
		size_t j = i;
		do {
			items[j] = items[j - 1];
			j--;
		} while (j > 0 && item_before(&x, &items[j - 1]));
		items[j] = x;
		if (i - j > budget) {
			merge_sort(items, tmp, n);
			return;
		}
		budget -= i - j;
	}
}

/* The size of the record R, with ROOM bytes from R on in its block; 0 when it is
 * damaged: it does not fit in ROOM, or its payload's fields (dyl_spool.h) do not add up
 * to the words it says it has, as dyl_rec_put() writes them.  Every record is checked
 * here before anything else reads it: decode() then stays within the record. */
static uint32_t rec_check(const struct dyl_rec *r, uint32_t room)
{
	if (room < sizeof(*r) || (r->meta >> 28) & ~(DYL_REC_DUR_NS | DYL_REC_EXT))
		return 0;
	if (!(r->meta >> 28 & DYL_REC_EXT))
		return sizeof(*r);
	if (room < sizeof(*r) + 8)
		return 0;
	uint64_t h = *(const uint64_t *)(r + 1);
	uint32_t words = h & 0xff, x = h >> 8 & 0xff, nc = h >> 16 & 0xff;
	uint64_t n = (x & DYL_X_NARROW) ? 4 : 8;
	uint64_t bytes = 8 + ((x & DYL_X_WIDE) ? 16 : 0) + ((x & DYL_X_SIZES) ? 3 * n : 0) +
			 nc * n + (h >> 32);
	if ((x & ~(DYL_X_SEQ | DYL_X_SIZES | DYL_X_WIDE | DYL_X_NARROW)) ||
	    nc > DYL_MAX_COUNTERS || words != (bytes + 7) / 8 || 8 * words > room - sizeof(*r))
		return 0;
	return (uint32_t)sizeof(*r) + 8 * words;
}

static void set_key(const struct dyl_conv *c, struct stream *s);

/* A block of plain records (no extension: 16 bytes each) already in start order, with
 * no open calls, as a thread's calls that do not nest write it: read in place, no items
 * made or sorted (the rows are the same).  0 when the block is not such. */
static int load_direct(struct dyl_conv *c, struct stream *s, const struct blk *b)
{
	const struct dyl_rec *r = (const struct dyl_rec *)s->bytes;
	size_t n = b->len / sizeof(*r);	/* (bytes after the last whole one: load skips them too) */
	uint64_t start = 0;
	uint32_t depth = 0;

	for (size_t i = 0; i < n; i++) {
		if (r[i].meta >> 28 & ~DYL_REC_DUR_NS)
			return 0;	/* an extension (or damage: load finds it) */
		uint32_t d = dyl_rec_depth(&r[i]);
		if (r[i].t_start < start || (r[i].t_start == start && d < depth))
			return 0;
		start = r[i].t_start;
		depth = d;
	}
	s->direct = 1;
	s->nitems = n;
	if (n)
		set_key(c, s);
	return 1;
}

/* Reads the stream's current block and sorts its records and open calls.  A damaged
 * record ends the block: the records after it cannot be found. */
static int load(struct dyl_conv *c, struct stream *s, const struct blk *b)
{
	size_t n = b->len / sizeof(struct dyl_rec) + b->nopen;
	size_t opens = b->nopen * sizeof(struct dyl_open);

	if (!(s->bytes = dyl_fmt_grow(s->bytes, &s->bytes_cap, opens + b->len, 1)) ||
	    read_at(c, s->bytes, opens + b->len, b->at) != 0)
		return -1;
	s->pos = 0;
	s->loaded = 1;
	if (!b->nopen && load_direct(c, s, b))
		return 0;
	s->direct = 0;
	if (n > s->cap) {
		size_t cap = s->cap;
		if (!(s->items = dyl_fmt_grow(s->items, &cap, n, sizeof(struct item))))
			return -1;
		cap = s->cap;
		if (!(s->tmp = dyl_fmt_grow(s->tmp, &cap, n, sizeof(struct item))))
			return -1;
		s->cap = cap;
	}
	const char *recs = s->bytes + opens;
	n = 0;
	for (uint32_t off = 0; off + sizeof(struct dyl_rec) <= b->len;) {
		const struct dyl_rec *r = (const struct dyl_rec *)(recs + off);
		uint32_t size = rec_check(r, b->len - off);
		if (!size) {
			damaged(c, b->at + opens + off, "the rest of its block is skipped");
			break;
		}
		uint32_t d = dyl_rec_depth(r);
		s->items[n++] = (struct item){ r->t_start, (uint32_t)opens + off,
					       (uint16_t)(d < 0xffff ? d : 0xffff), 0 };
		off += size;
	}
	const struct dyl_open *open = (const struct dyl_open *)s->bytes;
	for (uint32_t l = 0; l < b->nopen; l++)
		s->items[n++] = (struct item){ open[l].start, NONE, open[l].level, open[l].level };
	sort_items(s->items, s->tmp, n);
	s->nitems = n;
	if (n)
		set_key(c, s);
	return 0;
}

/* The key a stream sorts on in the merge, kept in it: its next item's start and depth,
 * or its next block's least start while that is not read. */
static void set_key(const struct dyl_conv *c, struct stream *s)
{
	if (s->loaded && s->direct) {
		const struct dyl_rec *r = (const struct dyl_rec *)s->bytes + s->pos;
		s->key_start = r->t_start;
		s->key_depth = dyl_rec_depth(r);
	} else if (s->loaded) {
		s->key_start = s->items[s->pos].start;
		s->key_depth = s->items[s->pos].depth;
	} else {
		s->key_start = c->blks[s->cur].min_start;
		s->key_depth = 0;
	}
}

static int stream_before(const struct dyl_conv *c, uint32_t a, uint32_t b)
{
	const struct stream *x = &c->streams[a], *y = &c->streams[b];

	if (x->key_start != y->key_start)
		return x->key_start < y->key_start;
	if (x->key_depth != y->key_depth)
		return x->key_depth < y->key_depth;
	return x->tid < y->tid;
}

static void sift_down(struct dyl_conv *c, size_t i)
{
	c->runner_up = NONE;	/* (the heap's order below the top may change) */
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < c->nheap && stream_before(c, c->heap[l], c->heap[m]))
			m = l;
		if (l + 1 < c->nheap && stream_before(c, c->heap[l + 1], c->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		uint32_t t = c->heap[i];
		c->heap[i] = c->heap[m];
		c->heap[m] = t;
		i = m;
	}
}

/* The top stream, its key moved on, stays before all others: the heap as it is (a
 * thread's calls come in runs, while the others wait).  Only the top's key changes while
 * it is on top: the runner-up, once found, stays until the heap is sifted. */
static int top_stays(struct dyl_conv *c)
{
	if (c->runner_up == NONE)
		c->runner_up = c->nheap > 2 && stream_before(c, c->heap[2], c->heap[1]) ? c->heap[2]
											 : c->heap[1];
	return stream_before(c, c->heap[0], c->runner_up);
}

static void free_stream(struct stream *s)
{
	dyl_fmt_release(s->items, s->cap, sizeof(struct item));
	dyl_fmt_release(s->tmp, s->cap, sizeof(struct item));
	dyl_fmt_release(s->bytes, s->bytes_cap, 1);
	s->items = s->tmp = NULL;
	s->bytes = NULL;
	s->cap = s->bytes_cap = 0;
}

/* The top stream moved on: past its block's last item, to its next block (unloaded),
 * or out of the heap. */
static void advance(struct dyl_conv *c)
{
	struct stream *s = &c->streams[c->heap[0]];

	if (s->loaded && ++s->pos < s->nitems) {
		set_key(c, s);
		if (c->nheap > 1)
			sift_down(c, 0);
		return;
	}
	s->loaded = 0;
	s->cur = c->blks[s->cur].next;
	if (s->cur == NONE) {
		free_stream(s);
		c->heap[0] = c->heap[--c->nheap];
	} else {
		set_key(c, s);
	}
	sift_down(c, 0);
}

struct dyl_conv *dyl_conv_open(int fd, uint64_t size, int flags, const char **why)
{
	struct dyl_conv *c;
	struct dyl_spool_head h;

	*why = NULL;
	if (size < sizeof(h) || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, DYL_SPOOL_MAGIC, 8) != 0) {
		*why = "not a dyliberator spool";
		return NULL;
	}
	if (h.version != DYL_SPOOL_VERSION) {
		*why = "a spool of another dyliberator version";
		return NULL;
	}
	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED) {
		*why = "out of memory";
		return NULL;
	}
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->size = size;
	c->seg = NONE;
	c->runner_up = NONE;
	if (read_chunks(c, flags & DYL_CONV_WINDOWS) != 0 || group_streams(c) != 0 ||
	    !(c->heap = dyl_fmt_grow(NULL, &c->heap_cap, c->nstreams + 1, sizeof(uint32_t)))) {
		dyl_conv_close(c);
		*why = "out of memory, or the spool cannot be read";
		return NULL;
	}
	c->t0_ns = c->have_clock ? to_ns(c, c->clock.t0) : 0;
	for (uint32_t i = 0; i < c->nstreams; i++) {
		set_key(c, &c->streams[i]);
		c->heap[c->nheap++] = i;
	}
	for (size_t i = c->nheap / 2 + 1; i-- > 0;)
		sift_down(c, i);
	return c;
}

/* the record's packed payload fields (dyl_spool.h): unaligned, little-endian */
static uint64_t get(const unsigned char **p, unsigned n)
{
	uint64_t v = 0;

	memcpy(&v, *p, n);
	*p += n;
	return v;
}

/* What every record gives: the name of function ID, the times, and no sizes, arguments
 * or counters (the extension's, read after).  END_OR_DUR is the call's end in ticks
 * (IS_END), else its duration: in ns with DUR_NS, else in ticks. */
static inline void decode_head(struct dyl_conv *c, struct dyl_row *row, uint64_t t_start,
			       uint32_t id, uint64_t end_or_dur, int is_end, int dur_ns)
{
	row->func_id = id;
	if (id < c->nnames && c->names[id]) {
		row->func = c->keep + c->names[id] - 1;
		row->func_len = c->name_len[id];
	} else {
		row->func = "?";
		row->func_len = 1;
	}
	row->timed = t_start != 0;
	if (row->timed) {
		uint64_t s = to_ns(c, t_start);
		row->t_start_ns = s > c->t0_ns ? s - c->t0_ns : 0;
		if (dur_ns) {
			row->t_ns = end_or_dur;
		} else {
			uint64_t e = to_ns(c, is_end ? end_or_dur : t_start + end_or_dur);
			row->t_ns = e > s ? e - s : 0;
		}
		if (row->t_start_ns + row->t_ns > c->last_end_ns)
			c->last_end_ns = row->t_start_ns + row->t_ns;
	}
	row->in_bytes = row->out_bytes = row->work = DYL_NONE;
	row->args = NULL;
	row->args_len = row->ncounters = row->counter_base = 0;
	row->counters = NULL;
}

/* R passed rec_check() when its block was loaded: its payload's fields are within it. */
static void decode(struct dyl_conv *c, struct dyl_row *row, const struct dyl_rec *r)
{
	const uint64_t *w = (const uint64_t *)(r + 1);
	const unsigned char *p = (const unsigned char *)(w + 1);
	uint32_t flags = r->meta >> 28, x = 0;
	uint32_t id = r->meta & ((1u << DYL_REC_FUNC_BITS) - 1);
	uint64_t end_or_dur = r->dur;	/* a duration unless WIDE says otherwise */
	int is_end = 0;

	row->depth = dyl_rec_depth(r);
	if (flags & DYL_REC_EXT) {
		x = w[0] >> 8 & 0xff;
		if (x & DYL_X_WIDE) {
			end_or_dur = w[1];
			is_end = !(flags & DYL_REC_DUR_NS);
			id = (uint32_t)w[2];
			p += 16;
		}
	}
	decode_head(c, row, r->t_start, id, end_or_dur, is_end, flags & DYL_REC_DUR_NS);
	if (!(flags & DYL_REC_EXT))
		return;
	unsigned n = (x & DYL_X_NARROW) ? 4 : 8;
	if (x & DYL_X_SIZES) {
		int64_t *sz[3] = { &row->in_bytes, &row->out_bytes, &row->work };
		for (int i = 0; i < 3; i++) {
			uint64_t v = get(&p, n);
			*sz[i] = n == 8 ? (int64_t)v : v == UINT32_MAX ? DYL_NONE : (int64_t)v;
		}
	}
	uint32_t nc = w[0] >> 16 & 0xff;
	row->ncounters = nc <= DYL_MAX_COUNTERS ? nc : DYL_MAX_COUNTERS;
	row->counter_base = w[0] >> 24 & 0xff;
	for (uint32_t i = 0; i < nc; i++) {
		uint64_t v = get(&p, n);
		if (i < DYL_MAX_COUNTERS)
			row->counter_buf[i] = n == 8 ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;
	}
	row->counters = nc ? row->counter_buf : NULL;
	row->args_len = (uint32_t)(w[0] >> 32);
	row->args = row->args_len ? (const char *)p : NULL;
}

/* A plain record (no extension: a direct block's), as decode() reads it. */
static inline void decode_plain(struct dyl_conv *c, struct dyl_row *row, const struct dyl_rec *r)
{
	row->depth = r->meta >> 20 & 0xff;
	decode_head(c, row, r->t_start, r->meta & ((1u << DYL_REC_FUNC_BITS) - 1), r->dur, 0,
		    r->meta >> 28 & DYL_REC_DUR_NS);
}

/* The last row's stream moved on (advance_due), then blocks loaded and open calls
 * numbered until the top stream's next item is a row: 1, or 0 at the end.  Within its
 * block, the top stream stays on top when it is the only one left (a single thread's run:
 * no key, no heap) or its next call still comes first (a run of the thread's calls). */
static int settle(struct dyl_conv *c)
{
	if (c->advance_due) {
		struct stream *s = &c->streams[c->heap[0]];
		c->advance_due = 0;
		if (s->loaded && s->pos + 1 < s->nitems) {
			s->pos++;
			if (c->nheap > 1) {
				set_key(c, s);
				if (!top_stays(c))
					sift_down(c, 0);
			}
		} else {
			advance(c);
		}
	}
	while (c->nheap) {
		struct stream *s = &c->streams[c->heap[0]];
		if (!s->loaded) {
			if (load(c, s, &c->blks[s->cur]) != 0)
				return 0;	/* no memory for it: the rows so far */
			if (s->nitems == 0)
				advance(c);
			else
				sift_down(c, 0);
			continue;
		}
		if (s->direct)
			return 1;
		const struct item *it = &s->items[s->pos];
		if (it->off != NONE)
			return 1;
		/* an open call: its number here, its row when its record comes */
		if (it->level < DYL_SPOOL_LEVELS)
			s->reserved[it->level] = ++c->seq;
		else
			c->seq++;
		advance(c);
	}
	return 0;
}

int dyl_conv_next(struct dyl_conv *c, struct dyl_row *row)
{
	if (!settle(c))
		return 0;
	struct stream *s = &c->streams[c->heap[0]];
	row->tid = s->tid;
	c->advance_due = 1;	/* the row points into the block: moved on next time */
	if (s->direct) {
		row->seq = c->seq++;
		decode_plain(c, row, (const struct dyl_rec *)s->bytes + s->pos);
		return 1;
	}
	const struct item *it = &s->items[s->pos];
	const struct dyl_rec *r = (const struct dyl_rec *)(s->bytes + it->off);
	const uint64_t *w = (const uint64_t *)(r + 1);
	uint32_t d = it->depth;
	if ((r->meta >> 28 & DYL_REC_EXT) && (w[0] >> 8 & DYL_X_SEQ) && d < DYL_SPOOL_LEVELS &&
	    s->reserved[d]) {
		row->seq = s->reserved[d] - 1;
		s->reserved[d] = 0;
	} else {
		row->seq = c->seq++;
	}
	decode(c, row, r);
	return 1;
}

size_t dyl_conv_plain(struct dyl_conv *c, struct dyl_plain *out, size_t max, int32_t *tid,
		      uint64_t *seq)
{
	if (!max || !settle(c))
		return 0;
	struct stream *s = &c->streams[c->heap[0]];
	if (!s->direct)
		return 0;
	const struct dyl_rec *r = (const struct dyl_rec *)s->bytes + s->pos;
	size_t n = s->nitems - s->pos < max ? s->nitems - s->pos : max, i;
	/* the other streams' first (top_stays): the rows before it are this run's */
	const struct stream *o = NULL;
	if (c->nheap > 1) {
		top_stays(c);
		o = &c->streams[c->runner_up];
	}
	uint64_t t0 = c->t0_ns, last = c->last_end_ns;
	for (i = 0; i < n; i++, r++) {
		/* untimed or in ns: rows for dyl_conv_next */
		if (!r->t_start || r->meta >> 28)
			break;
		uint32_t depth = r->meta >> 20 & 0xff;
		if (i && o && !(r->t_start < o->key_start ||
				(r->t_start == o->key_start &&
				 (depth < o->key_depth || (depth == o->key_depth && s->tid < o->tid)))))
			break;
		/* decode_head's values */
		uint64_t a = to_ns(c, r->t_start), e = to_ns(c, r->t_start + r->dur);
		struct dyl_plain *p = &out[i];
		p->t_start_ns = a > t0 ? a - t0 : 0;
		p->t_ns = e > a ? e - a : 0;
		p->func_id = r->meta & ((1u << DYL_REC_FUNC_BITS) - 1);
		p->depth = depth;
		if (p->t_start_ns + p->t_ns > last)
			last = p->t_start_ns + p->t_ns;
	}
	if (!i)
		return 0;
	c->last_end_ns = last;
	*tid = s->tid;
	*seq = c->seq;
	c->seq += i;
	s->pos += i - 1;	/* the last of them: moved on at the next call */
	if (o)
		set_key(c, s);
	c->advance_due = 1;
	return i;
}

void dyl_conv_set_seq(struct dyl_conv *c, uint64_t seq)
{
	c->seq = seq;
}

uint64_t dyl_conv_seq(const struct dyl_conv *c)
{
	return c->seq;
}

const char *dyl_conv_header(const struct dyl_conv *c, size_t *len)
{
	*len = c->header_len;
	return c->header_len ? c->keep + c->header : NULL;
}

const char *dyl_conv_footer(const struct dyl_conv *c, size_t *len)
{
	*len = c->footer_len;
	return c->finished ? c->keep + c->footer : NULL;
}

unsigned dyl_conv_ncolumns(const struct dyl_conv *c)
{
	return c->ncolumns;
}

uint32_t dyl_conv_nnames(const struct dyl_conv *c)
{
	return (uint32_t)c->nnames;
}

const char *dyl_conv_name(const struct dyl_conv *c, uint32_t id, uint32_t *len)
{
	if (id < c->nnames && c->names[id]) {
		*len = c->name_len[id];
		return c->keep + c->names[id] - 1;
	}
	*len = 1;
	return "?";
}

uint64_t dyl_conv_last_end_ns(const struct dyl_conv *c)
{
	return c->last_end_ns;
}

int dyl_conv_cut_short(const struct dyl_conv *c)
{
	return c->cut_short;
}

uint64_t dyl_conv_damage(const struct dyl_conv *c, const char **what)
{
	*what = c->damage_what;
	return c->damage_at;
}

uint64_t dyl_conv_ns(struct dyl_conv *c, uint64_t ticks)
{
	uint64_t s = to_ns(c, ticks);
	return s > c->t0_ns ? s - c->t0_ns : 0;
}

void dyl_conv_close(struct dyl_conv *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nstreams; i++)
		free_stream(&c->streams[i]);
	dyl_fmt_release(c->keep, c->keep_cap, 1);
	dyl_fmt_release(c->knots, c->knots_cap, sizeof(struct dyl_knot));
	dyl_fmt_release(c->names, c->names_cap, sizeof(size_t));
	dyl_fmt_release(c->name_len, c->name_len_cap, sizeof(uint32_t));
	dyl_fmt_release(c->windows, c->windows_cap, sizeof(*c->windows));
	dyl_fmt_release(c->covered, c->covered_cap, sizeof(*c->covered));
	dyl_fmt_release(c->blks, c->blks_cap, sizeof(struct blk));
	dyl_fmt_release(c->streams, c->streams_cap, sizeof(struct stream));
	dyl_fmt_release(c->heap, c->heap_cap, sizeof(uint32_t));
	munmap(c, sizeof(*c));
}

int dyl_spool_name(char *out, size_t room, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0, n = strlen(path);

	if (n + 11 > room)
		return -1;
	memcpy(out, path, dir);
	out[dir] = '.';
	memcpy(out + dir + 1, path + dir, n - dir);
	memcpy(out + n + 1, ".dylspool", 10);
	return 0;
}
