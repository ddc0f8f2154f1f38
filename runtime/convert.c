/* convert.c - the spool (dyl_spool.h) back into rows, numbered in start order.
 *
 * Runs in two places: inside the profiled process when its image ends (the runtime
 * converts its own spool into the trace) and in dyl-trace after a crash.  So it takes
 * no lock, calls no malloc (memory comes from mmap: the runtime may be running inside
 * a wrapper of malloc) and no stdio.
 *
 * Numbering: each thread's blocks, in file order, form a stream; a block's records and
 * open calls are sorted by start (outer first at equal start) when the stream reaches
 * it.  The streams are merged by their next start (then tid), and seq is handed out in
 * that order.  An open call takes its number where it stands; its record, in a later
 * block, carries DYL_X_SEQ and gets that number when it comes.  Memory: one block's
 * items per thread whose blocks overlap in time, whatever the run's length.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include "dyl_spool.h"

#define MAX_LEVELS 64	/* the runtime's DYL_MAX_FRAMES: deeper calls are never open calls */
#define NONE UINT32_MAX

/* --- memory: mmap'd arrays that grow --- */

static void *grow(void *p, size_t *cap, size_t need, size_t elsize)
{
	if (need <= *cap)
		return p;
	size_t ncap = *cap ? *cap : 64;
	while (ncap < need)
		ncap *= 2;
	size_t old = *cap * elsize, sz = ncap * elsize;
	void *q = p ? mremap(p, old, sz, MREMAP_MAYMOVE)
		    : mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		return NULL;
	*cap = ncap;
	return q;
}

static void release(void *p, size_t cap, size_t elsize)
{
	if (p)
		munmap(p, cap * elsize);
}

/* --- the state --- */

struct item {		/* a record (at OFF in its block) or an open call (OFF == NONE) */
	uint64_t start;
	uint32_t off;
	uint16_t depth;
	uint16_t level;
};

struct blk {
	const char *recs;
	uint32_t len;
	uint32_t nopen;
	const struct dyl_open *open;
	uint64_t min_start;
	int32_t tid;
	uint32_t next;		/* the stream's next block */
};

struct stream {
	int32_t tid;
	uint32_t first, last, cur;	/* blocks */
	int loaded;
	struct item *items, *tmp;
	size_t nitems, pos, cap;
	uint64_t reserved[MAX_LEVELS];	/* seq + 1 given to the open call at each level */
};

struct dyl_conv {
	const char *data;
	size_t size, valid;	/* VALID: the end of the last whole chunk */
	int cut_short;
	const char *header;	/* the last META chunk */
	uint32_t header_len, ncolumns;
	const struct dyl_spool_clock *clock;
	const struct dyl_knot *knots;
	uint32_t nknots;
	struct dyl_knot two[2];	/* the first knot and the provisional pair */
	/* names by id */
	const char **names;
	size_t nnames, names_cap;
	/* windows by id, and how much of each blocks cover */
	const struct dyl_window **windows;
	uint32_t *covered;
	size_t nwindows, windows_cap, covered_cap;
	struct blk *blks;
	size_t nblks, blks_cap;
	struct stream *streams;
	size_t nstreams, streams_cap;
	uint32_t *heap;
	size_t nheap, heap_cap;
	uint64_t seq, t0_ns, last_end_ns;
	/* the knot segment of the last conversion, its slope in 24.40 fixed point */
	uint32_t seg;
	unsigned __int128 seg_mult;
};

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
	return 0;
}

static uint64_t to_ns(struct dyl_conv *c, uint64_t t)
{
	const struct dyl_knot *k = c->knots;

	if (!c->clock || !c->clock->tsc || c->nknots < 2)
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

/* --- reading the chunks --- */

static int add_names(struct dyl_conv *c, const char *p, uint32_t len)
{
	if (len < 8)
		return -1;
	uint32_t first, count;
	memcpy(&first, p, 4);
	memcpy(&count, p + 4, 4);
	const char *s = p + 8, *end = p + len;
	if (!(c->names = grow(c->names, &c->names_cap, (size_t)first + count, sizeof(char *))))
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		const char *z = memchr(s, '\0', (size_t)(end - s));
		if (!z)
			return -1;
		c->names[first + i] = s;
		s = z + 1;
	}
	if (first + count > c->nnames) {
		for (size_t i = c->nnames; i < first; i++)
			c->names[i] = NULL;
		c->nnames = first + count;
	}
	return 0;
}

static int add_window(struct dyl_conv *c, const struct dyl_window *w, uint32_t len)
{
	if (len + sizeof(struct dyl_chunk) < sizeof(*w) ||
	    w->size > len + sizeof(struct dyl_chunk) - sizeof(*w) || w->id > (1u << 24))
		return -1;
	size_t need = (size_t)w->id + 1;
	if (!(c->windows = grow(c->windows, &c->windows_cap, need, sizeof(*c->windows))) ||
	    !(c->covered = grow(c->covered, &c->covered_cap, need, sizeof(*c->covered))))
		return -1;
	for (size_t i = c->nwindows; i < need; i++)
		c->windows[i] = NULL, c->covered[i] = 0;
	if (need > c->nwindows)
		c->nwindows = need;
	c->windows[w->id] = w;
	return 0;
}

static struct blk *new_blk(struct dyl_conv *c)
{
	if (!(c->blks = grow(c->blks, &c->blks_cap, c->nblks + 1, sizeof(struct blk))))
		return NULL;
	return &c->blks[c->nblks++];
}

static int add_block(struct dyl_conv *c, const struct dyl_block *b, uint32_t len)
{
	size_t head = sizeof(*b) - sizeof(struct dyl_chunk);
	if (len < head || b->to < b->from || b->nopen > MAX_LEVELS ||
	    head + b->nopen * sizeof(struct dyl_open) + (b->to - b->from) > len)
		return -1;
	struct blk *k = new_blk(c);
	if (!k)
		return -1;
	k->open = (const struct dyl_open *)(b + 1);
	k->nopen = b->nopen;
	k->recs = (const char *)(k->open + b->nopen);
	k->len = b->to - b->from;
	k->min_start = b->min_start;
	k->tid = b->tid;
	k->next = NONE;
	return 0;
}

/* Blocks copy out windows: a window's records after the last block of its current
 * generation are in it only. */
static void cover(struct dyl_conv *c)
{
	/* a second pass over the blocks: windows may come after blocks naming them */
	for (size_t off = sizeof(struct dyl_spool_head); off < c->valid;) {
		const struct dyl_chunk *ch = (const struct dyl_chunk *)(c->data + off);
		if (ch->kind == DYL_CH_BLOCK) {
			const struct dyl_block *b = (const struct dyl_block *)ch;
			if (b->window < c->nwindows && c->windows[b->window] &&
			    b->gen == c->windows[b->window]->gen && b->to > c->covered[b->window])
				c->covered[b->window] = b->to;
		}
		off += sizeof(*ch) + ch->len;
	}
}

static int window_blocks(struct dyl_conv *c)
{
	for (size_t i = 0; i < c->nwindows; i++) {
		const struct dyl_window *w = c->windows[i];
		if (!w)
			continue;
		uint32_t len = w->len <= w->size ? w->len : w->size;
		if (len <= c->covered[i])
			continue;
		struct blk *k = new_blk(c);
		if (!k)
			return -1;
		k->recs = w->data + c->covered[i];
		k->len = len - c->covered[i];
		k->open = NULL;
		k->nopen = 0;
		k->tid = w->tid;
		k->next = NONE;
		k->min_start = UINT64_MAX;
		for (uint32_t off = 0; off + sizeof(struct dyl_rec) <= k->len;) {
			const struct dyl_rec *r = (const struct dyl_rec *)(k->recs + off);
			if (r->t_start < k->min_start)
				k->min_start = r->t_start;
			off += dyl_rec_size(r);
		}
	}
	return 0;
}

static int read_chunks(struct dyl_conv *c, int windows)
{
	size_t off = sizeof(struct dyl_spool_head);

	while (off + sizeof(struct dyl_chunk) <= c->size) {
		const struct dyl_chunk *ch = (const struct dyl_chunk *)(c->data + off);
		const char *body = (const char *)(ch + 1);
		int bad = 0;
		if ((ch->len & 7) || ch->len > c->size - off - sizeof(*ch))
			break;
		switch (ch->kind) {
		case DYL_CH_META: {
			uint32_t n[2];
			if (ch->len < 8)
				break;
			memcpy(n, body, 8);
			if (n[1] > ch->len - 8) {
				bad = 1;
				break;
			}
			c->ncolumns = n[0];
			c->header = body + 8;
			c->header_len = n[1];
			break;
		}
		case DYL_CH_NAMES:
			bad = add_names(c, body, ch->len) != 0;
			break;
		case DYL_CH_CLOCK: {
			const struct dyl_spool_clock *k = (const struct dyl_spool_clock *)body;
			if (ch->len < sizeof(*k) || k->nknots > (ch->len - sizeof(*k)) / sizeof(struct dyl_knot)) {
				bad = 1;
				break;
			}
			c->clock = k;
			c->knots = (const struct dyl_knot *)(k + 1);
			c->nknots = k->nknots;
			break;
		}
		case DYL_CH_WINDOW:
			bad = add_window(c, (const struct dyl_window *)ch, ch->len) != 0;
			break;
		case DYL_CH_BLOCK:
			bad = add_block(c, (const struct dyl_block *)ch, ch->len) != 0;
			break;
		case DYL_CH_PAD:
			break;
		default:
			bad = 1;
		}
		if (bad)
			break;
		off += sizeof(*ch) + ch->len;
	}
	c->valid = off;
	/* whatever follows the last whole chunk: a write cut short, or the zeros of space
	 * reserved ahead */
	for (size_t i = off; i < c->size; i++)
		if (c->data[i]) {
			c->cut_short = 1;
			break;
		}
	cover(c);
	if (windows && window_blocks(c) != 0)
		return -1;
	/* a provisional slope when the process died before a second knot */
	if (c->clock && c->clock->tsc && c->nknots == 1 && c->clock->prov_tsc) {
		c->two[0] = c->knots[0];
		c->two[1] = (struct dyl_knot){ c->clock->prov_tsc, c->clock->prov_ns };
		if (c->two[1].tsc > c->two[0].tsc) {
			c->knots = c->two;
			c->nknots = 2;
		}
	}
	return 0;
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
			if (!(c->streams = grow(c->streams, &c->streams_cap, s + 1, sizeof(struct stream))))
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

/* Stable merge sort: a block is nearly sorted already (a thread's calls end in order;
 * only callers come after their callees). */
static void sort_items(struct item *items, struct item *tmp, size_t n)
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

/* Sorts the stream's current block into items. */
static int load(struct stream *s, const struct blk *b)
{
	size_t n = b->len / sizeof(struct dyl_rec) + b->nopen, cap = s->cap;

	if (n > s->cap) {
		release(s->items, s->cap, sizeof(struct item));
		release(s->tmp, s->cap, sizeof(struct item));
		s->items = s->tmp = NULL;
		s->cap = 0;
		cap = 0;
		if (!(s->items = grow(NULL, &cap, n, sizeof(struct item))))
			return -1;
		size_t cap2 = 0;
		if (!(s->tmp = grow(NULL, &cap2, n, sizeof(struct item))))
			return -1;
		s->cap = cap < cap2 ? cap : cap2;
	}
	n = 0;
	for (uint32_t off = 0; off + sizeof(struct dyl_rec) <= b->len;) {
		const struct dyl_rec *r = (const struct dyl_rec *)(b->recs + off);
		uint32_t size = dyl_rec_size(r), d = dyl_rec_depth(r);
		if (size > b->len - off)
			break;	/* a damaged record: the rest of the block is not readable */
		s->items[n++] = (struct item){ r->t_start, off, (uint16_t)(d < 0xffff ? d : 0xffff), 0 };
		off += size;
	}
	for (uint32_t l = 0; l < b->nopen; l++)
		s->items[n++] = (struct item){ b->open[l].start, NONE, b->open[l].level, b->open[l].level };
	sort_items(s->items, s->tmp, n);
	s->nitems = n;
	s->pos = 0;
	s->loaded = 1;
	return 0;
}

/* The key a stream sorts on in the merge. */
static void key(const struct dyl_conv *c, const struct stream *s, uint64_t *start, uint32_t *depth)
{
	if (s->loaded) {
		*start = s->items[s->pos].start;
		*depth = s->items[s->pos].depth;
	} else {
		*start = c->blks[s->cur].min_start;
		*depth = 0;
	}
}

static int stream_before(const struct dyl_conv *c, uint32_t a, uint32_t b)
{
	uint64_t sa, sb;
	uint32_t da, db;

	key(c, &c->streams[a], &sa, &da);
	key(c, &c->streams[b], &sb, &db);
	if (sa != sb)
		return sa < sb;
	if (da != db)
		return da < db;
	return c->streams[a].tid < c->streams[b].tid;
}

static void sift_down(struct dyl_conv *c, size_t i)
{
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

/* The top stream moved on: past its block's last item, to its next block (unloaded),
 * or out of the heap. */
static void advance(struct dyl_conv *c)
{
	struct stream *s = &c->streams[c->heap[0]];

	if (s->loaded && ++s->pos < s->nitems) {
		sift_down(c, 0);
		return;
	}
	s->loaded = 0;
	s->cur = c->blks[s->cur].next;
	if (s->cur == NONE) {
		release(s->items, s->cap, sizeof(struct item));
		release(s->tmp, s->cap, sizeof(struct item));
		s->items = s->tmp = NULL;
		s->cap = 0;
		c->heap[0] = c->heap[--c->nheap];
	}
	sift_down(c, 0);
}

struct dyl_conv *dyl_conv_open(const char *data, size_t size, int windows, const char **why)
{
	struct dyl_conv *c;
	const struct dyl_spool_head *h = (const struct dyl_spool_head *)data;

	*why = NULL;
	if (size < sizeof(*h) || memcmp(h->magic, DYL_SPOOL_MAGIC, 8) != 0) {
		*why = "not a dyliberator spool";
		return NULL;
	}
	if (h->version != DYL_SPOOL_VERSION) {
		*why = "a spool of another dyliberator version";
		return NULL;
	}
	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED) {
		*why = "out of memory";
		return NULL;
	}
	memset(c, 0, sizeof(*c));
	c->data = data;
	c->size = size;
	c->seg = NONE;
	if (read_chunks(c, windows) != 0 || group_streams(c) != 0 ||
	    !(c->heap = grow(NULL, &c->heap_cap, c->nstreams + 1, sizeof(uint32_t)))) {
		dyl_conv_close(c);
		*why = "out of memory";
		return NULL;
	}
	c->t0_ns = c->clock ? to_ns(c, c->clock->t0) : 0;
	for (uint32_t i = 0; i < c->nstreams; i++)
		c->heap[c->nheap++] = i;
	for (size_t i = c->nheap / 2 + 1; i-- > 0;)
		sift_down(c, i);
	return c;
}

static void decode(struct dyl_conv *c, struct dyl_row *row, const struct dyl_rec *r)
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
	row->func = id < c->nnames && c->names[id] ? c->names[id] : "?";
	row->timed = r->t_start != 0;
	if (row->timed) {
		uint64_t s = to_ns(c, r->t_start);
		row->t_start_ns = s > c->t0_ns ? s - c->t0_ns : 0;
		if (flags & DYL_REC_DUR_NS) {
			row->t_ns = end_or_dur;
		} else {
			uint64_t e = to_ns(c, is_end ? end_or_dur : r->t_start + end_or_dur);
			row->t_ns = e > s ? e - s : 0;
		}
		if (row->t_start_ns + row->t_ns > c->last_end_ns)
			c->last_end_ns = row->t_start_ns + row->t_ns;
	}
	row->in_bytes = row->out_bytes = row->work = DYL_NONE_I64;
	row->args = NULL;
	row->args_len = row->ncounters = row->counter_base = 0;
	row->counters = NULL;
	if (x & DYL_X_SIZES) {
		row->in_bytes = (int64_t)w[0];
		row->out_bytes = (int64_t)w[1];
		row->work = (int64_t)w[2];
		w += 3;
	}
	if (x & DYL_X_EXTRA) {
		uint64_t h = *w++;
		row->args_len = h & 0xffff;
		row->ncounters = (h >> 16) & 0xff;
		row->counter_base = (h >> 24) & 0xff;
		row->counters = (const int64_t *)w;
		row->args = row->args_len ? (const char *)(w + row->ncounters) : NULL;
	}
}

int dyl_conv_next(struct dyl_conv *c, struct dyl_row *row)
{
	while (c->nheap) {
		struct stream *s = &c->streams[c->heap[0]];
		const struct blk *b = &c->blks[s->cur];
		if (!s->loaded) {
			if (load(s, b) != 0)
				return 0;	/* no memory for it: the rows so far */
			if (s->nitems == 0)
				advance(c);
			else
				sift_down(c, 0);
			continue;
		}
		const struct item *it = &s->items[s->pos];
		if (it->off == NONE) {
			/* an open call: its number here, its row when its record comes */
			if (it->level < MAX_LEVELS)
				s->reserved[it->level] = ++c->seq;
			else
				c->seq++;
			advance(c);
			continue;
		}
		const struct dyl_rec *r = (const struct dyl_rec *)(b->recs + it->off);
		const uint64_t *w = (const uint64_t *)(r + 1);
		uint32_t d = it->depth;
		if ((r->meta >> 28 & DYL_REC_EXT) && (w[0] >> 8 & DYL_X_SEQ) && d < MAX_LEVELS &&
		    s->reserved[d]) {
			row->seq = s->reserved[d] - 1;
			s->reserved[d] = 0;
		} else {
			row->seq = c->seq++;
		}
		row->tid = s->tid;
		decode(c, row, r);
		advance(c);
		return 1;
	}
	return 0;
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
	return c->header;
}

unsigned dyl_conv_ncolumns(const struct dyl_conv *c)
{
	return c->ncolumns;
}

uint64_t dyl_conv_last_end_ns(const struct dyl_conv *c)
{
	return c->last_end_ns;
}

int dyl_conv_cut_short(const struct dyl_conv *c)
{
	return c->cut_short;
}

void dyl_conv_close(struct dyl_conv *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nstreams; i++) {
		release(c->streams[i].items, c->streams[i].cap, sizeof(struct item));
		release(c->streams[i].tmp, c->streams[i].cap, sizeof(struct item));
	}
	release(c->names, c->names_cap, sizeof(char *));
	release(c->windows, c->windows_cap, sizeof(*c->windows));
	release(c->covered, c->covered_cap, sizeof(*c->covered));
	release(c->blks, c->blks_cap, sizeof(struct blk));
	release(c->streams, c->streams_cap, sizeof(struct stream));
	release(c->heap, c->heap_cap, sizeof(uint32_t));
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

/* --- row formatting (no stdio) --- */

/* Two digits per division: the rows' numbers (seq, times) have 6 to 12 digits and
 * formatting them is most of converting a record. */
static const char DIGITS2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static char *put_u64(char *p, uint64_t v)
{
	char tmp[24], *e = tmp + sizeof(tmp), *b = e;
	size_t n;

	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;
		v /= 100;
		*--b = DIGITS2[d + 1];
		*--b = DIGITS2[d];
	}
	if (v >= 10) {
		*--b = DIGITS2[v * 2 + 1];
		*--b = DIGITS2[v * 2];
	} else {
		*--b = (char)('0' + v);
	}
	n = (size_t)(e - b);
	memcpy(p, b, n);
	return p + n;
}

static char *put_i64_opt(char *p, int64_t v)
{
	if (v == DYL_NONE_I64)
		return p;
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* A CSV field, quoted when it holds a comma, quote or newline. */
static char *put_field(char *p, char *end, const char *s, size_t n)
{
	const char *e = s + n;
	int quote = 0;

	for (const char *q = s; q < e; q++)
		if (*q == ',' || *q == '"' || *q == '\n' || *q == '\r')
			quote = 1;
	if (quote)
		*p++ = '"';
	for (; s < e && p < end - 3; s++) {
		if (*s == '"')
			*p++ = '"';
		*p++ = (*s == '\n' || *s == '\r') ? ' ' : *s;
	}
	if (quote)
		*p++ = '"';
	return p;
}

size_t dyl_format_row(char *out, size_t room, const struct dyl_row *r, unsigned ncolumns)
{
	/* 16 columns of 21 characters at most after args */
	char *p = out, *end = out + room - 24 * 24;
	int64_t work = r->work;

	if (ncolumns > 16)
		ncolumns = 16;
	if (work == DYL_NONE_I64 && (r->in_bytes != DYL_NONE_I64 || r->out_bytes != DYL_NONE_I64))
		work = (r->in_bytes == DYL_NONE_I64 ? 0 : r->in_bytes) +
		       (r->out_bytes == DYL_NONE_I64 ? 0 : r->out_bytes);
	p = put_u64(p, r->seq);
	*p++ = ',';
	p = put_u64(p, (uint64_t)(uint32_t)r->tid);
	*p++ = ',';
	p = put_field(p, end, r->func, strnlen(r->func, 512));
	*p++ = ',';
	if (r->timed) {
		p = put_u64(p, r->t_start_ns);
		*p++ = ',';
		p = put_u64(p, r->t_ns);
	} else {
		*p++ = ',';
	}
	*p++ = ',';
	p = put_i64_opt(p, r->in_bytes);
	*p++ = ',';
	p = put_i64_opt(p, r->out_bytes);
	*p++ = ',';
	p = put_i64_opt(p, work);
	*p++ = ',';
	p = put_u64(p, r->depth);
	*p++ = ',';
	if (r->args)
		p = put_field(p, end, r->args, r->args_len);
	for (unsigned i = 0; i < ncolumns; i++) {
		*p++ = ',';
		if (i >= r->counter_base && i < r->counter_base + r->ncounters)
			p = put_i64_opt(p, r->counters[i - r->counter_base]);
	}
	*p++ = '\n';
	return (size_t)(p - out);
}
