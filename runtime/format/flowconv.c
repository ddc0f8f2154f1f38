/* flowconv.c - the spool's FLOW chunks into TRACE.flow (dyl_flow.h, doc/specs/flow.md).
 *
 * The runtime keeps raw events per thread (region ids, addresses, a mark for each
 * depth-0 call); seq numbers exist only once the rows are numbered.  So:
 *   1. every FLOW chunk is read, by thread (tid), in file order;
 *   2. the rows are numbered by the decoder (dyl_decode.h), exactly as the trace's: a
 *      thread's Nth call is its Nth depth-0 row;
 *   3. life events (ALLOC, FREE, a realloc's FREE + ALLOC) get the seq of their
 *      thread's next call; a birth moves before the first access of its object; the
 *      program's reads (HOSTRD) carry their time: they go before the first depth-0 call
 *      of any thread that starts after it (at the latest the thread's next call);
 *   4. everything is sorted by seq (life events first at one seq, then the program's
 *      changes, then accesses, each in their order) and written out, objects and sites
 *      numbered at first use.
 * No malloc, no stdio: this runs in the process at its end, maybe in a wrapper of malloc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "dyl_decode.h"
#include "dyl_flowconv.h"
#include "dyl_spool.h"
#include "dyl_fmtmem.h"

/* --- the state of one conversion --- */

struct chunk {			/* a FLOW chunk's events: words [at, at + n) of ev */
	int32_t tid;
	uint32_t window, gen;	/* a window's copy: which, and its generation */
	size_t at, n;
};
struct row0 {			/* a depth-0 row */
	int64_t tid;
	uint64_t seq;
};
struct start0 {			/* a timed depth-0 row's start, in seq order (the HOSTRD times) */
	uint64_t seq, ns;	/* ns: the latest start up to this seq (a search needs it sorted) */
};
/* An event to write: life events (cls 0; the program's reads with them: a read comes
 * before the free that follows it), the program's changes (cls 1), accesses (cls 2),
 * each in the order they came. */
enum { IT_ALLOC, IT_FREE, IT_RESIZE, IT_ACC, IT_HOST, IT_HOSTRD };
struct item {
	uint64_t seq, order;
	uint32_t cls, type;
	const uint64_t *ev;	/* its raw event (in ev) */
	uint64_t old_id;	/* IT_RESIZE: the block the realloc took; IT_HOSTRD: the seq of
				 * the first call after it (DYL_FLOW_NONE: not known) */
};
struct site_raw {		/* the runtime's site id -> its pcs; the file's id once used */
	uint64_t pc[DYL_FLOW_SITE_PCS];
	uint32_t npc, seen;
	uint64_t file_id;
};
struct obj_ent {		/* a key -> an object of the file */
	uint64_t k1, k2, k3;	/* k1 0: empty */
	uint64_t obj, start;
	int live;
};

struct fc {
	int fd;
	uint64_t size;
	uint64_t *ev;
	size_t nev, ev_cap;
	struct chunk *ch;
	size_t nch, ch_cap;
	struct row0 *rows;
	size_t nrows, rows_cap;
	struct start0 *starts;
	size_t nstarts, starts_cap;
	size_t *pend;		/* a thread's life items waiting for its next call */
	size_t npend, pend_cap;
	/* a thread's last two calls' ACC items (not std.diff's), what a REPEAT repeats:
	 * rep[rcur] the last call's, rep[rcur ^ 1] the one before (DYL_REF_BEFORE) */
	size_t *rep[2];
	size_t nrep[2], rep_cap[2];
	unsigned rcur;
	struct item *it, *tmp;
	size_t nit, it_cap, tmp_cap;
	struct site_raw *sites;
	size_t sites_cap;
	struct obj_ent *map;
	size_t map_cap, map_used;
	uint64_t nobj, nsite;
	/* output */
	int out_fd;
	char *buf;
	size_t blen, buf_cap;
	int failed;
	const struct dyl_flow_names *names;
};

static int read_at(struct fc *c, void *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t r = pread(c->fd, p, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p = (char *)p + r, n -= (size_t)r, off += (uint64_t)r;
	}
	return 0;
}

/* A chunk's packed ACC and HOST events (DYL_REF_PACKED, 2 words) made the 4-word form
 * the rest of the converter reads, in place: the chunk of WORDS words at c->ev + AT is
 * the last one read.  Its new length, or (size_t)-1 out of memory. */
static size_t unpack(struct fc *c, size_t at, size_t words)
{
	size_t extra = 0, i;

	for (i = 0; i < words;) {
		uint64_t w = c->ev[at + i];
		uint32_t type = DYL_RE_TYPE(w), n = DYL_RE_WORDS(w);
		if (n == 0 || n > words - i)
			break;	/* damaged: the reader stops there too */
		if ((type == DYL_RE_ACC || type == DYL_RE_HOST) && (DYL_RE_FLAGS(w) & DYL_REF_PACKED))
			extra += 4 - n;
		i += n;
	}
	if (!extra)
		return words;
	size_t end = i;	/* the undamaged part: the rest is dropped */
	/* the events written out past the chunk, then moved back over it */
	if (!(c->ev = dyl_fmt_grow(c->ev, &c->ev_cap, at + 2 * end + extra, 8)))
		return (size_t)-1;
	uint64_t *e = c->ev + at, *out = e + end;
	size_t to = 0;
	for (i = 0; i < end; i += DYL_RE_WORDS(e[i])) {
		uint64_t w = e[i];
		uint32_t type = DYL_RE_TYPE(w), n = DYL_RE_WORDS(w), flags = DYL_RE_FLAGS(w);
		if ((type == DYL_RE_ACC || type == DYL_RE_HOST) && (flags & DYL_REF_PACKED)) {
			out[to] = DYL_RE_WORD(type, 4, flags & 0xff & ~DYL_REF_PACKED, flags >> 8);
			out[to + 1] = DYL_RE_SMALL(w);
			out[to + 2] = e[i + 1] & 0xffffffffu;
			out[to + 3] = e[i + 1] >> 32;
			to += 4;
		} else {
			memcpy(out + to, e + i, n * 8);
			to += n;
		}
	}
	memmove(e, out, to * 8);
	return to;
}

/* 1. the FLOW chunks, in file order, each thread's live window after them (unless a
 * copy of its generation exists); a chunk cut short ends the reading */
static int read_chunks(struct fc *c)
{
	struct dyl_spool_head h;
	uint64_t off = sizeof(h);
	struct { uint64_t body; struct dyl_flow_chunk fh; size_t words; } live[256];
	size_t nlive = 0;

	if (c->size < sizeof(h) || read_at(c, &h, sizeof(h), 0) != 0 || memcmp(h.magic, DYL_SPOOL_MAGIC, 8))
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t l = 0; pass == 1 && l < nlive; l++) {
			int copied = 0;
			for (size_t i = 0; i < c->nch && !copied; i++)
				copied = c->ch[i].window == (live[l].fh.window & ~DYL_FLOW_LIVE) &&
					 c->ch[i].gen == live[l].fh.gen;
			if (copied || !live[l].words)
				continue;
			size_t words = live[l].words;
			if (!(c->ev = dyl_fmt_grow(c->ev, &c->ev_cap, c->nev + words, 8)) ||
			    !(c->ch = dyl_fmt_grow(c->ch, &c->ch_cap, c->nch + 1, sizeof(*c->ch))) ||
			    read_at(c, c->ev + c->nev, words * 8, live[l].body + sizeof(struct dyl_flow_chunk)) != 0)
				return -1;
			if ((words = unpack(c, c->nev, words)) == (size_t)-1)
				return -1;
			c->ch[c->nch++] = (struct chunk){ live[l].fh.tid, UINT32_MAX, 0, c->nev, words };
			c->nev += words;
		}
		while (pass == 0 && off + sizeof(struct dyl_chunk) <= c->size) {
			struct dyl_chunk ch;
			uint64_t body = off + sizeof(ch);
			if (read_at(c, &ch, sizeof(ch), off) != 0 || ch.len > c->size - body ||
			    (ch.kind == 0 && ch.len == 0) || (ch.len & 7))
				break;
			off = body + ch.len;
			struct dyl_flow_chunk fh;
			if (ch.kind != DYL_CH_FLOW || ch.len < sizeof(fh))
				continue;
			size_t words = (ch.len - sizeof(fh)) / 8;
			if (read_at(c, &fh, sizeof(fh), body) != 0)
				return -1;
			if (fh.words < words)	/* (a window: the rest is room) */
				words = fh.words;
			if (fh.window != UINT32_MAX && (fh.window & DYL_FLOW_LIVE)) {
				if (nlive < sizeof(live) / sizeof(live[0]))
					live[nlive].body = body, live[nlive].fh = fh, live[nlive++].words = words;
				continue;
			}
			if (!(c->ev = dyl_fmt_grow(c->ev, &c->ev_cap, c->nev + words, 8)) ||
			    !(c->ch = dyl_fmt_grow(c->ch, &c->ch_cap, c->nch + 1, sizeof(*c->ch))) ||
			    read_at(c, c->ev + c->nev, words * 8, body + sizeof(fh)) != 0)
				return -1;
			if ((words = unpack(c, c->nev, words)) == (size_t)-1)
				return -1;
			c->ch[c->nch++] = (struct chunk){ fh.tid, fh.window, fh.gen, c->nev, words };
			c->nev += words;
		}
	}
	return 0;
}

/* the words of an ACC, HOST or HOSTRD event of object kind KIND (HOSTRD's time after) */
static uint32_t range_words(uint32_t kind)
{
	return (kind == DYL_OBJ_HEAP || kind == DYL_OBJ_MAPPING) ? 4u : kind == DYL_OBJ_STATIC ? 5u : 7u;
}

static int add_start(struct fc *c, uint64_t seq, uint64_t ns)
{
	if (!(c->starts = dyl_fmt_grow(c->starts, &c->starts_cap, c->nstarts + 1, sizeof(*c->starts))))
		return -1;
	c->starts[c->nstarts++] = (struct start0){ seq, ns };
	return 0;
}

/* every HOSTRD event's time (the trace clock's ticks) made ns as the rows' starts are */
static void hostrd_times(struct fc *c, struct dyl_conv *d)
{
	for (size_t i = 0; i < c->nch; i++) {
		uint64_t *e = c->ev + c->ch[i].at, *end = e + c->ch[i].n;
		while (e < end) {
			uint32_t words = DYL_RE_WORDS(e[0]);
			if (words == 0 || words > (size_t)(end - e))
				break;
			uint32_t base = range_words(DYL_RE_SMALL(e[0]));
			if (DYL_RE_TYPE(e[0]) == DYL_RE_HOSTRD && words > base)
				e[base] = dyl_conv_ns(d, e[base]);
			e += words;
		}
	}
}

/* 2. the depth-0 rows, (tid, seq) */
static int read_rows(struct fc *c, int conv_flags, uint64_t seq, uint64_t *nseq, const char **why)
{
	struct dyl_conv *d = dyl_conv_open(c->fd, c->size, conv_flags, why);
	struct dyl_row row;

	if (!d)
		return -1;
	dyl_conv_set_seq(d, seq);
	while (dyl_conv_next(d, &row)) {
		if (row.depth != 0)
			continue;
		if (!(c->rows = dyl_fmt_grow(c->rows, &c->rows_cap, c->nrows + 1, sizeof(*c->rows)))) {
			dyl_conv_close(d);
			*why = "no memory";
			return -1;
		}
		c->rows[c->nrows++] = (struct row0){ row.tid, row.seq };
		if (row.timed && add_start(c, row.seq, row.t_start_ns) != 0) {
			dyl_conv_close(d);
			*why = "no memory";
			return -1;
		}
	}
	*nseq = dyl_conv_seq(d);
	hostrd_times(c, d);
	dyl_conv_close(d);
	return 0;
}

/* --- sorting (merge sort, stable: no qsort, which may call malloc) --- */

static int row_less(const struct row0 *a, const struct row0 *b)
{
	return a->tid != b->tid ? a->tid < b->tid : a->seq < b->seq;
}
static int item_less(const struct item *a, const struct item *b)
{
	if (a->seq != b->seq)
		return a->seq < b->seq;
	if (a->cls != b->cls)
		return a->cls < b->cls;
	return a->order < b->order;
}

/* A natural merge sort: the runs already in order (a thread's events mostly are, and
 * one thread's are one run) are merged pairwise until one is left: O(n) for sorted
 * input, O(n log runs) else. */
#define MERGE_SORT(name, T, less)                                                    \
	static void name(T *a, T *t, size_t n)                                        \
	{                                                                             \
		for (;;) {                                                            \
			size_t lo = 0, merged = 0;                                    \
			while (lo < n) {                                              \
				size_t mid = lo + 1, hi;                              \
				while (mid < n && !less(&a[mid], &a[mid - 1]))        \
					mid++;                                        \
				hi = mid < n ? mid + 1 : n;                           \
				while (hi < n && !less(&a[hi], &a[hi - 1]))           \
					hi++;                                         \
				size_t i = lo, j = mid, k = lo;                       \
				while (i < mid && j < hi)                             \
					t[k++] = less(&a[j], &a[i]) ? a[j++] : a[i++]; \
				while (i < mid)                                       \
					t[k++] = a[i++];                              \
				while (j < hi)                                        \
					t[k++] = a[j++];                              \
				merged += mid < hi;                                   \
				lo = hi;                                              \
			}                                                             \
			if (!merged)	/* one run: in order */                       \
				return;                                               \
			memcpy(a, t, n * sizeof(T));                                  \
		}                                                                     \
	}
MERGE_SORT(sort_rows, struct row0, row_less)
static int start_less(const struct start0 *a, const struct start0 *b)
{
	return a->seq < b->seq;
}
MERGE_SORT(sort_starts, struct start0, start_less)

/* the starts in seq order, each the latest up to it (a call numbered before one that
 * started earlier keeps the search right: the first seq whose start is >= T) */
static int order_starts(struct fc *c)
{
	struct start0 *t = NULL;
	size_t tcap = 0;
	if (c->nstarts && !(t = dyl_fmt_grow(NULL, &tcap, c->nstarts, sizeof(*t))))
		return -1;
	sort_starts(c->starts, t, c->nstarts);
	dyl_fmt_release(t, tcap, sizeof(*t));
	for (size_t i = 1; i < c->nstarts; i++)
		if (c->starts[i].ns < c->starts[i - 1].ns)
			c->starts[i].ns = c->starts[i - 1].ns;
	return 0;
}

/* the seq of the first depth-0 call (any thread) that starts at or after NS; NSEQ: none */
static uint64_t first_call_after(const struct fc *c, uint64_t ns, uint64_t nseq)
{
	size_t lo = 0, hi = c->nstarts;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (c->starts[m].ns < ns)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < c->nstarts ? c->starts[lo].seq : nseq;
}
MERGE_SORT(sort_items, struct item, item_less)

static int add_item(struct fc *c, struct item it)
{
	if (!(c->it = dyl_fmt_grow(c->it, &c->it_cap, c->nit + 1, sizeof(*c->it))))
		return -1;
	c->it[c->nit++] = it;
	return 0;
}

/* the rows of TID: [*lo, *hi) of the sorted rows */
static void rows_of(const struct fc *c, int32_t tid, size_t *lo, size_t *hi)
{
	size_t a = 0, b = c->nrows;
	while (a < b) {
		size_t m = (a + b) / 2;
		if (c->rows[m].tid < tid)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	while (b < c->nrows && c->rows[b].tid == tid)
		b++;
	*hi = b < a ? a : b;
}

/* the thread's next call begins: its seq, given to the life items waiting for it */
static uint64_t next_call(struct fc *c, size_t rlo, size_t rhi, size_t *k, uint64_t nseq)
{
	uint64_t cur = rlo + *k < rhi ? c->rows[rlo + *k].seq : DYL_FLOW_NONE;
	(*k)++;
	for (size_t i = 0; i < c->npend; i++)
		c->it[c->pend[i]].seq = cur == DYL_FLOW_NONE ? nseq : cur;
	c->npend = 0;
	return cur;
}

static int add_life(struct fc *c, struct item it)
{
	if (add_item(c, it) != 0 || !(c->pend = dyl_fmt_grow(c->pend, &c->pend_cap, c->npend + 1, sizeof(*c->pend))))
		return -1;
	c->pend[c->npend++] = c->nit - 1;
	return 0;
}

/* 3. walk_threads: where one thread's walk through its events is */
struct walk {
	uint64_t nseq;		/* the seq that names no call (past the last row) */
	uint64_t order;		/* items made so far, all threads */
	size_t rlo, rhi, k;	/* the thread's rows, and its calls begun */
	uint64_t cur;		/* the seq of its current call (DYL_FLOW_NONE: none) */
	ssize_t last_free;	/* the item of this thread's last event, when a FREE */
};

/* a CALL: the thread's next call begins; a REPEAT's items copied to it */
static int walk_call(struct fc *c, struct walk *w, uint32_t flags)
{
	w->cur = next_call(c, w->rlo, w->rhi, &w->k, w->nseq);
	if (!(flags & DYL_REF_REPEAT))
		return 0;
	/* the last call's accesses again (or the one's before it, which
	 * becomes the last): copies at this seq */
	if (flags & DYL_REF_BEFORE)
		c->rcur ^= 1;
	for (size_t r = 0; r < c->nrep[c->rcur] && w->cur != DYL_FLOW_NONE; r++) {
		struct item it = c->it[c->rep[c->rcur][r]];
		it.seq = w->cur;
		it.order = w->order++;
		if (add_item(c, it) != 0)
			return -1;
	}
	return 0;
}

/* an ACC or HOST event E: an item of the current call (or of the next, a --defs
 * prefix's look), kept for a REPEAT when it is the call's own access */
static int walk_access(struct fc *c, struct walk *w, const uint64_t *e, uint32_t type, uint32_t words,
		       uint32_t flags, uint32_t kind)
{
	if (words < ((kind == DYL_OBJ_HEAP || kind == DYL_OBJ_MAPPING) ? 4u
		     : kind == DYL_OBJ_STATIC ? 5u : 7u))
		return 0;
	if (type == DYL_RE_ACC && (flags & DYL_REF_NEWCALL)) {
		w->cur = next_call(c, w->rlo, w->rhi, &w->k, w->nseq);
		/* a new call with accesses: the one a REPEAT repeats */
		c->rcur ^= 1;
		c->nrep[c->rcur] = 0;
	}
	if (type == DYL_RE_HOST && (flags & DYL_REF_AHEAD))
		/* a --defs prefix's look: before the next call */
		return add_life(c, (struct item){ w->nseq, w->order++, 1, IT_HOST, e, 0 });
	if (w->cur != DYL_FLOW_NONE &&
	    add_item(c, (struct item){ w->cur, w->order++, type == DYL_RE_ACC ? 2 : 1,
				       type == DYL_RE_ACC ? IT_ACC : IT_HOST, e, 0 }) != 0)
		return -1;
	if (w->cur != DYL_FLOW_NONE && type == DYL_RE_ACC && !(flags & (DYL_REF_DIFF | DYL_REF_FOLLOW))) {
		unsigned r = c->rcur;
		if (!(c->rep[r] = dyl_fmt_grow(c->rep[r], &c->rep_cap[r], c->nrep[r] + 1,
					       sizeof(*c->rep[r]))))
			return -1;
		c->rep[r][c->nrep[r]++] = c->nit - 1;
	}
	return 0;
}

/* an ALLOC event E: a life item, or the second half of a realloc (the FREE before it,
 * item WAS_FREE, becomes the resize) */
static int walk_alloc(struct fc *c, struct walk *w, const uint64_t *e, uint32_t words, uint32_t flags,
		      ssize_t was_free)
{
	if (words < 4)
		return 0;
	if ((flags & DYL_REF_REALLOC) && was_free >= 0) {
		struct item *f = &c->it[was_free];
		f->type = IT_RESIZE;
		f->old_id = f->ev[1];
		f->ev = e;
		return 0;
	}
	return add_life(c, (struct item){ w->nseq, w->order++, 0, IT_ALLOC, e, 0 });
}

/* a HOSTRD event E: before the thread's next call, as a life event, or before another
 * thread's call that came first */
static int walk_hostrd(struct fc *c, struct walk *w, const uint64_t *e, uint32_t words, uint32_t kind,
		       ssize_t was_free)
{
	uint32_t base = range_words(kind);
	if (words < base)
		return 0;
	w->last_free = was_free;	/* (a read does not part a realloc's two halves) */
	uint64_t at = words > base ? first_call_after(c, e[base], w->nseq) : DYL_FLOW_NONE;
	return add_life(c, (struct item){ w->nseq, w->order++, 0, IT_HOSTRD, e, at });
}

/* a FREE event E: a life item, remembered for a realloc's ALLOC right after it */
static int walk_free(struct fc *c, struct walk *w, const uint64_t *e, uint32_t words)
{
	if (words < 2)
		return 0;
	if (add_life(c, (struct item){ w->nseq, w->order++, 0, IT_FREE, e, 0 }) != 0)
		return -1;
	w->last_free = (ssize_t)c->nit - 1;
	return 0;
}

/* a SITE event E: the site's return addresses */
static int walk_site(struct fc *c, struct walk *w, const uint64_t *e, uint32_t words, ssize_t was_free)
{
	uint32_t npc = DYL_RE_SMALL(e[0]);
	w->last_free = was_free;	/* (a realloc's new site comes between) */
	if (words < 2 || npc > words - 2 || npc > DYL_FLOW_SITE_PCS || e[1] > (1u << 24))
		return 0;
	if (!(c->sites = dyl_fmt_grow(c->sites, &c->sites_cap, e[1] + 1, sizeof(*c->sites))))
		return -1;
	struct site_raw *s = &c->sites[e[1]];
	memcpy(s->pc, e + 2, npc * 8);
	s->npc = npc;
	s->seen = 1;
	s->file_id = DYL_FLOW_NONE;
	return 0;
}

/* one event E of WORDS words (whole, in its chunk) */
static int walk_event(struct fc *c, struct walk *w, const uint64_t *e, uint32_t words)
{
	uint32_t type = DYL_RE_TYPE(e[0]);
	uint32_t flags = DYL_RE_FLAGS(e[0]), kind = DYL_RE_SMALL(e[0]);
	ssize_t was_free = w->last_free;

	w->last_free = -1;
	switch (type) {
	case DYL_RE_CALL:
		return walk_call(c, w, flags);
	case DYL_RE_ACC:
	case DYL_RE_HOST:
		return walk_access(c, w, e, type, words, flags, kind);
	case DYL_RE_ALLOC:
		return walk_alloc(c, w, e, words, flags, was_free);
	case DYL_RE_HOSTRD:
		return walk_hostrd(c, w, e, words, kind, was_free);
	case DYL_RE_FREE:
		return walk_free(c, w, e, words);
	case DYL_RE_SITE:
		return walk_site(c, w, e, words, was_free);
	default:
		w->last_free = was_free;	/* unknown: skipped */
		return 0;
	}
}

/* the events of the thread of chunk I (its first), in its chunks' order */
static int walk_thread(struct fc *c, size_t i, struct walk *w)
{
	int32_t tid = c->ch[i].tid;

	w->k = 0;
	rows_of(c, tid, &w->rlo, &w->rhi);
	w->cur = DYL_FLOW_NONE;
	w->last_free = -1;
	c->npend = 0;
	c->nrep[0] = c->nrep[1] = 0;
	c->rcur = 0;
	for (size_t j = i; j < c->nch; j++) {
		if (c->ch[j].tid != tid)
			continue;
		const uint64_t *e = c->ev + c->ch[j].at, *end = e + c->ch[j].n;
		while (e < end) {
			uint32_t words = DYL_RE_WORDS(e[0]);
			if (words == 0 || words > (size_t)(end - e))
				break;	/* damaged: the rest of the chunk */
			if (walk_event(c, w, e, words) != 0)
				return -1;
			e += words;
		}
	}
	c->npend = 0;	/* (those left wait for no call: nseq, as made) */
	return 0;
}

/* 3. each thread's events in order: calls joined with rows, items made */
static int walk_threads(struct fc *c, uint64_t nseq)
{
	struct walk w = { .nseq = nseq, .order = 0 };

	for (size_t i = 0; i < c->nch; i++) {
		int32_t tid = c->ch[i].tid;
		int first = 1;
		for (size_t j = 0; j < i; j++)	/* (each tid walked once, at its first chunk) */
			if (c->ch[j].tid == tid) {
				first = 0;
				break;
			}
		if (first && walk_thread(c, i, &w) != 0)
			return -1;
	}
	/* a read goes where it happened among all threads' calls: before the first that
	 * started after it, when that comes before the thread's own next call (a thread that
	 * never calls again: not at the run's end) */
	for (size_t i = 0; i < c->nit; i++)
		if (c->it[i].type == IT_HOSTRD && c->it[i].old_id < c->it[i].seq)
			c->it[i].seq = c->it[i].old_id;
	return 0;
}

/* a heap block or mapping used by another thread before its maker's next call: its
 * birth moves before that use (the first access of its region id, any thread) */
#define KEY_FIRST 5
static struct obj_ent *map_find(struct fc *c, uint64_t k1, uint64_t k2, uint64_t k3, int make);
static int births_first(struct fc *c)
{
	for (size_t i = 0; i < c->nit; i++) {
		const struct item *it = &c->it[i];
		uint32_t kind = DYL_RE_SMALL(it->ev[0]);
		if (it->cls == 0 || (kind != DYL_OBJ_HEAP && kind != DYL_OBJ_MAPPING))
			continue;
		struct obj_ent *o = map_find(c, KEY_FIRST, it->ev[1], 0, 1);
		if (!o)
			return -1;
		if (!o->live || it->seq < o->obj)
			o->obj = it->seq, o->live = 1;
	}
	for (size_t i = 0; i < c->nit; i++) {
		struct item *it = &c->it[i];
		if (it->type != IT_ALLOC && it->type != IT_RESIZE)
			continue;
		struct obj_ent *o = map_find(c, KEY_FIRST, it->ev[1], 0, 0);
		if (o && o->live && o->obj < it->seq)
			it->seq = o->obj;
	}
	return 0;
}

/* --- output --- */

static void out_flush(struct fc *c)
{
	size_t o = 0;
	while (o < c->blen && !c->failed) {
		ssize_t w = write(c->out_fd, c->buf + o, c->blen - o);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			c->failed = 1;
		else
			o += (size_t)w;
	}
	c->blen = 0;
}

static void put(struct fc *c, const void *p, size_t n)
{
	if (c->blen + n > c->buf_cap)
		out_flush(c);
	if (n > c->buf_cap) {
		c->blen = 0;
		return;
	}
	memcpy(c->buf + c->blen, p, n);
	c->blen += n;
}

static void put_padded(struct fc *c, const void *p, size_t n)
{
	static const char zeros[8];
	put(c, p, n);
	put(c, zeros, (8 - n % 8) % 8);
}

static size_t hex(char *out, size_t room, uint64_t v)
{
	char t[19];
	int n = 0;
	t[n++] = '0', t[n++] = 'x';
	int d = 60;
	while (d > 0 && !(v >> d & 15))
		d -= 4;
	for (; d >= 0; d -= 4)
		t[n++] = "0123456789abcdef"[v >> d & 15];
	size_t m = (size_t)n < room ? (size_t)n : room;
	memcpy(out, t, m);
	return m;
}

#define TEXT_MAX 1024

static uint64_t site_of(struct fc *c, uint64_t raw)
{
	if (raw >= c->sites_cap || !c->sites[raw].seen)
		return DYL_FLOW_NONE;
	struct site_raw *s = &c->sites[raw];
	if (s->file_id != DYL_FLOW_NONE)
		return s->file_id;
	char text[TEXT_MAX];
	size_t n = 0;
	if (c->names && c->names->site) {
		n = c->names->site(c->names->ctx, s->pc, s->npc, text, sizeof(text));
	} else {
		for (unsigned i = 0; i < s->npc; i++) {
			if (i && n + 4 <= sizeof(text))
				memcpy(text + n, " <- ", 4), n += 4;
			n += hex(text + n, sizeof(text) - n, s->pc[i]);
		}
	}
	struct dyl_flow_site r = { { DYL_FR_SITE, 0 }, c->nsite, s->npc, (uint32_t)n };
	r.h.len = (uint32_t)(sizeof(r) - 8 + 8 * s->npc + (n + 7) / 8 * 8);
	put(c, &r, sizeof(r));
	put(c, s->pc, 8 * s->npc);
	put_padded(c, text, n);
	return s->file_id = c->nsite++;
}

static struct obj_ent *map_find(struct fc *c, uint64_t k1, uint64_t k2, uint64_t k3, int make)
{
	if (make && (c->map_used + 1) * 2 > c->map_cap) {
		size_t ncap = c->map_cap ? c->map_cap * 2 : 4096, tcap = 0;
		struct obj_ent *n = dyl_fmt_grow(NULL, &tcap, ncap, sizeof(*n));
		if (!n)
			return NULL;
		for (size_t i = 0; i < c->map_cap; i++) {
			if (!c->map[i].k1)
				continue;
			uint64_t h = (c->map[i].k1 * 0x9E3779B97F4A7C15ull) ^ (c->map[i].k2 * 0xC2B2AE3D27D4EB4Full) ^ c->map[i].k3;
			size_t j = (size_t)(h >> 20) & (tcap - 1);
			while (n[j].k1)
				j = (j + 1) & (tcap - 1);
			n[j] = c->map[i];
		}
		dyl_fmt_release(c->map, c->map_cap, sizeof(*c->map));
		c->map = n;
		c->map_cap = tcap;
	}
	if (!c->map_cap)
		return NULL;
	uint64_t h = (k1 * 0x9E3779B97F4A7C15ull) ^ (k2 * 0xC2B2AE3D27D4EB4Full) ^ k3;
	size_t j = (size_t)(h >> 20) & (c->map_cap - 1);
	while (c->map[j].k1) {
		if (c->map[j].k1 == k1 && c->map[j].k2 == k2 && c->map[j].k3 == k3)
			return &c->map[j];
		j = (j + 1) & (c->map_cap - 1);
	}
	if (!make)
		return NULL;
	c->map_used++;
	c->map[j] = (struct obj_ent){ k1, k2, k3, 0, 0, 0 };
	return &c->map[j];
}

/* a new object of the file */
static uint64_t put_object(struct fc *c, uint32_t kind, uint64_t size, uint64_t site, uint64_t birth,
			   uint64_t addr, const char *name, size_t name_len)
{
	struct dyl_flow_object r = { { DYL_FR_OBJECT, 0 }, c->nobj, kind, (uint32_t)name_len, size, site,
				     birth, addr };
	r.h.len = (uint32_t)(sizeof(r) - 8 + (name_len + 7) / 8 * 8);
	if (kind == DYL_OBJ_STACK && c->names && c->names->module)
		r.h.len += 16;	/* ip and cfa follow the name (event_obj) */
	put(c, &r, sizeof(r));
	put_padded(c, name, name_len);
	return c->nobj++;
}

/* keys: heap blocks and mappings by region id; statics by extent; stack objects by
 * extent and frame (the function's return address in k1 above the tag) */
#define KEY_REGION 1
#define KEY_STATIC 2
#define KEY_STACK 3
#define KEY_NAMED 4

static struct obj_ent *region_obj(struct fc *c, uint64_t id)
{
	return map_find(c, KEY_REGION, id, 0, 0);
}

static void emit_alloc(struct fc *c, const struct item *it)
{
	const uint64_t *e = it->ev;
	uint32_t kind = DYL_RE_FLAGS(e[0]) >> 8, raw = DYL_RE_SMALL(e[0]);
	uint64_t site = raw == UINT32_MAX ? DYL_FLOW_NONE : site_of(c, raw);
	struct obj_ent *o = map_find(c, KEY_REGION, e[1], 0, 1);
	char name[TEXT_MAX];
	size_t n = 0;
	if (!o)
		return;
	if (kind == DYL_OBJ_MAPPING && c->names && c->names->mapping)
		n = c->names->mapping(c->names->ctx, e[1], e[2], e[3], name, sizeof(name));
	o->obj = put_object(c, kind, e[3], site, it->seq, e[2], name, n);
	o->start = e[2];
	o->live = 1;
}

static void emit_free(struct fc *c, const struct item *it)
{
	struct obj_ent *o = region_obj(c, it->ev[1]);
	if (!o || !o->live)
		return;	/* a block from before std.flow began */
	struct dyl_flow_free r = { { DYL_FR_FREE, sizeof(r) - 8 }, o->obj, it->seq };
	put(c, &r, sizeof(r));
	o->live = 0;
}

static void emit_resize(struct fc *c, const struct item *it)
{
	const uint64_t *e = it->ev;
	struct obj_ent *o = region_obj(c, it->old_id);
	if (!o || !o->live) {	/* the old block is not known: a new object */
		emit_alloc(c, it);
		return;
	}
	uint64_t obj = o->obj, old_start = o->start;
	o->live = 0;
	struct obj_ent *n = map_find(c, KEY_REGION, e[1], 0, 1);
	if (!n)
		return;
	*n = (struct obj_ent){ KEY_REGION, e[1], 0, obj, e[2], 1 };
	struct dyl_flow_resize r = { { DYL_FR_RESIZE, sizeof(r) - 8 }, obj, e[3], it->seq, e[2] != old_start, 0 };
	put(c, &r, sizeof(r));
}

/* an ACC or HOST event's object (made at its first mention) and range */
static struct obj_ent *event_obj(struct fc *c, const struct item *it, uint64_t *lo, uint64_t *hi)
{
	const uint64_t *e = it->ev;
	uint32_t kind = DYL_RE_SMALL(e[0]);
	struct obj_ent *o;
	char name[TEXT_MAX];
	size_t n = 0;

	if (kind == DYL_OBJ_HEAP || kind == DYL_OBJ_MAPPING) {
		*lo = e[2], *hi = e[3];
		o = map_find(c, KEY_REGION, e[1], 0, 1);
		if (o && !o->live) {	/* born before std.flow began (or its event lost) */
			o->obj = put_object(c, kind, e[3], DYL_FLOW_NONE, 0, 0, "", 0);
			o->start = 0;
			o->live = 1;
		}
		return o;
	}
	uint64_t start = e[1], end = e[2];
	*lo = e[3], *hi = e[4];
	if (kind == DYL_OBJ_STATIC) {
		o = map_find(c, KEY_STATIC, start, end, 1);
		if (o && !o->live) {
			if (c->names && c->names->statics)
				n = c->names->statics(c->names->ctx, start, end, name, sizeof(name));
			else
				n = hex(name, sizeof(name), start);
			o->obj = put_object(c, kind, end - start, DYL_FLOW_NONE, 0, start, name, n);
			o->live = 1;
		}
		return o;
	}
	/* stack: by extent and frame (its return address: one per call site of the
	 * function), then by extent and name: one object for the variable of every call
	 * site */
	uint64_t ip = e[5], cfa = e[6];
	o = map_find(c, KEY_STACK | ip << 8, start, end, 1);
	if (o && !o->live) {
		if (c->names && c->names->stack)
			n = c->names->stack(c->names->ctx, ip, cfa, start, end, name, sizeof(name));
		if (!n) {
			memcpy(name, "frame", 5);
			n = 5;
		}
		uint64_t h = 14695981039346656037ull;
		for (size_t i = 0; i < n; i++)
			h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
		struct obj_ent *byname = map_find(c, KEY_NAMED, start, end ^ h, 1);
		o = map_find(c, KEY_STACK | ip << 8, start, end, 0);	/* (the map may have grown) */
		if (!byname || !o)
			return NULL;
		if (!byname->live) {
			byname->obj = put_object(c, kind, end - start, DYL_FLOW_NONE, it->seq, start, name, n);
			byname->live = 1;
			if (c->names && c->names->module) {	/* the frame, for the readers */
				uint64_t fr[2] = { ip, cfa };
				put(c, fr, sizeof(fr));
			}
		}
		o->obj = byname->obj;
		o->live = 1;
	}
	return o;
}

static void emit_acc(struct fc *c, const struct item *it)
{
	uint64_t lo, hi;
	struct obj_ent *o = event_obj(c, it, &lo, &hi);
	if (!o)
		return;
	struct dyl_flow_access r = { { DYL_FR_ACCESS, sizeof(r) - 8 }, it->seq, o->obj, lo, hi,
				     (DYL_RE_FLAGS(it->ev[0]) & DYL_REF_W) ? DYL_ACC_W : DYL_ACC_R, 0 };
	put(c, &r, sizeof(r));
}

static void emit_host(struct fc *c, const struct item *it)
{
	uint64_t lo, hi;
	struct obj_ent *o = event_obj(c, it, &lo, &hi);
	if (!o)
		return;
	struct dyl_flow_host r = { { DYL_FR_HOST_WRITE, sizeof(r) - 8 }, it->seq, o->obj, lo, hi };
	put(c, &r, sizeof(r));
}

static void emit_host_read(struct fc *c, const struct item *it)
{
	uint64_t lo, hi;
	struct obj_ent *o = event_obj(c, it, &lo, &hi);
	if (!o)
		return;
	struct dyl_flow_host_read r = { { DYL_FR_HOST_READ, sizeof(r) - 8 }, it->seq, o->obj, lo, hi,
					DYL_RE_FLAGS(it->ev[0]) };
	put(c, &r, sizeof(r));
}

/* The MODULE records, right after the head: what the readers name addresses with */
static void put_modules(struct fc *c)
{
	static const char zeros[8];
	struct dyl_flow_modinfo m;
	uint64_t id = 0;

	if (!c->names || !c->names->module)
		return;
	for (unsigned i = 0; c->names->module(c->names->ctx, i, &m) == 1; i++) {
		if (m.path_len > TEXT_MAX || m.build_id_len > 64)
			continue;	/* (no such file: nothing to name with) */
		struct dyl_flow_module r = { { DYL_FR_MODULE, 0 }, id++, m.bias, m.lo, m.hi,
					     (uint32_t)m.path_len, (uint32_t)m.build_id_len };
		size_t n = m.path_len + m.build_id_len;
		r.h.len = (uint32_t)(sizeof(r) - 8 + (n + 7) / 8 * 8);
		put(c, &r, sizeof(r));
		put(c, m.path, m.path_len);
		put(c, m.build_id, m.build_id_len);
		put(c, zeros, (8 - n % 8) % 8);
	}
}

int dyl_flow_in_spool(int spool_fd, uint64_t size)
{
	struct fc c = { .fd = spool_fd, .size = size };
	int r = read_chunks(&c) == 0 && c.nch > 0;
	dyl_fmt_release(c.ev, c.ev_cap, 8);
	dyl_fmt_release(c.ch, c.ch_cap, sizeof(*c.ch));
	return r;
}

int dyl_flow_convert(int spool_fd, uint64_t size, int conv_flags, uint64_t seq, int32_t pid,
		     uint32_t head_flags, const struct dyl_flow_names *names, int out_fd,
		     const char **why)
{
	struct fc c = { .fd = spool_fd, .size = size, .out_fd = out_fd, .names = names };
	uint64_t nseq = seq;
	int ret = -1;

	*why = "no memory";
	if (read_chunks(&c) != 0) {
		*why = "not a spool, or it cannot be read";
		goto out;
	}
	if (read_rows(&c, conv_flags, seq, &nseq, why) != 0)
		goto out;
	*why = "no memory";
	struct row0 *rt = NULL;
	size_t rtcap = 0;
	if (c.nrows && !(rt = dyl_fmt_grow(NULL, &rtcap, c.nrows, sizeof(*rt))))
		goto out;
	sort_rows(c.rows, rt, c.nrows);
	dyl_fmt_release(rt, rtcap, sizeof(*rt));
	if (order_starts(&c) != 0)
		goto out;
	if (walk_threads(&c, nseq) != 0 || births_first(&c) != 0)
		goto out;
	if (c.nit && !(c.tmp = dyl_fmt_grow(NULL, &c.tmp_cap, c.nit, sizeof(*c.tmp))))
		goto out;
	sort_items(c.it, c.tmp, c.nit);
	if (!(c.buf = dyl_fmt_grow(NULL, &c.buf_cap, 1 << 16, 1)))
		goto out;
	struct dyl_flow_head h = { { 0 }, DYL_FLOW_VERSION, head_flags, pid, 0, nseq };
	memcpy(h.magic, DYL_FLOW_MAGIC, 8);
	if (names && names->module)
		h.flags |= DYL_FLOW_F_MODULES;
	put(&c, &h, sizeof(h));
	put_modules(&c);
	for (size_t i = 0; i < c.nit; i++) {
		switch (c.it[i].type) {
		case IT_ALLOC: emit_alloc(&c, &c.it[i]); break;
		case IT_FREE: emit_free(&c, &c.it[i]); break;
		case IT_RESIZE: emit_resize(&c, &c.it[i]); break;
		case IT_ACC: emit_acc(&c, &c.it[i]); break;
		case IT_HOST: emit_host(&c, &c.it[i]); break;
		case IT_HOSTRD: emit_host_read(&c, &c.it[i]); break;
		}
	}
	out_flush(&c);
	if (c.failed) {
		*why = "cannot write";
		goto out;
	}
	ret = 0;
out:
	dyl_fmt_release(c.ev, c.ev_cap, 8);
	dyl_fmt_release(c.ch, c.ch_cap, sizeof(*c.ch));
	dyl_fmt_release(c.rows, c.rows_cap, sizeof(*c.rows));
	dyl_fmt_release(c.starts, c.starts_cap, sizeof(*c.starts));
	dyl_fmt_release(c.pend, c.pend_cap, sizeof(*c.pend));
	dyl_fmt_release(c.rep[0], c.rep_cap[0], sizeof(*c.rep[0]));
	dyl_fmt_release(c.rep[1], c.rep_cap[1], sizeof(*c.rep[1]));
	dyl_fmt_release(c.it, c.it_cap, sizeof(*c.it));
	dyl_fmt_release(c.tmp, c.tmp_cap, sizeof(*c.tmp));
	dyl_fmt_release(c.sites, c.sites_cap, sizeof(*c.sites));
	dyl_fmt_release(c.map, c.map_cap, sizeof(*c.map));
	dyl_fmt_release(c.buf, c.buf_cap, 1);
	return ret;
}
