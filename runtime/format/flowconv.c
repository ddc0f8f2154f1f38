/* flowconv.c - the spool's FLOW chunks into TRACE.flow (dyl_flow.h, doc/specs/flow.md).
 *
 * The runtime keeps raw events per thread (region ids, addresses, a mark for each
 * depth-0 call); seq numbers exist only once the rows are numbered.  So, in one pass
 * over the rows (the decoder, dyl_decode.h, numbers them exactly as the trace's):
 *   1. the FLOW chunks are indexed (not read), by thread (tid), in file order;
 *   2. each thread's events are read up to its next call's mark; at the Nth depth-0 row
 *      of a thread its Nth mark is taken: the life events read before it (ALLOC, FREE, a
 *      realloc's FREE + ALLOC, the program's reads) get that row's seq, and the events
 *      after it, up to the next mark, are its call's accesses;
 *   3. a birth moves before the first access of its object by any thread (it waits, read,
 *      in its thread's pending events); the program's reads (HOSTRD) carry their time:
 *      they go to the first depth-0 row of any thread that starts after it (at the latest
 *      their thread's next call);
 *   4. a seq's records are sorted (life events first, then the program's changes, then
 *      accesses, each in their order: threads in the order of their first chunk) and
 *      written at once, objects and sites numbered at first use.
 * So the memory is the threads' read chunks, their events between two calls, the live
 * objects (a freed one leaves the map: its FREE record is in the file) and the sites,
 * not the run's length.  No malloc, no stdio: this runs in the process at its end,
 * maybe in a wrapper of malloc.
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

#define ACC_BLOCK 4096		/* bytes of entries an ACCESSES record holds, about */

struct chunk {			/* a FLOW chunk: WORDS words of events at OFF in the spool */
	int32_t tid;
	uint32_t window, gen;	/* a window's copy: which, and its generation */
	uint64_t off;
	size_t words;
};
/* An event to write: life events (cls 0; the program's reads with them: a read comes
 * before the free that follows it), the program's changes (cls 1), accesses (cls 2),
 * each in the order they came (ORDER: the thread's rank above, its count below). */
enum { IT_ALLOC, IT_FREE, IT_RESIZE, IT_ACC, IT_HOST, IT_HOSTRD, IT_TAKEN };
#define EV_MAX 8		/* the longest event: a stack HOSTRD and its time */
struct item {
	uint64_t seq, order;
	uint32_t cls, type;
	uint64_t old_id;	/* IT_RESIZE: the block the realloc took */
	uint64_t ev[EV_MAX];	/* its raw event (a HOSTRD's time made ns) */
};
struct list {
	struct item *v;
	size_t n, cap;
};
/* A thread's life items waiting for its next call, packed (a program may free and
 * allocate millions of blocks between two calls): entries of words, each a head word
 * (PH_*), its event's words, and for a FREE room for the realloc it may become (the
 * ALLOC's 4 words, then the old block's id). */
struct pend {
	uint64_t *w;
	size_t n, cap;
};
#define PH(type, cls, nev, room, count) \
	((uint64_t)(type) | (uint64_t)(cls) << 4 | (uint64_t)(nev) << 8 | (uint64_t)(room) << 12 | \
	 (uint64_t)(count) << 24)
#define PH_TYPE(h) ((uint32_t)((h) & 15))
#define PH_CLS(h) ((uint32_t)((h) >> 4 & 3))
#define PH_TIMED 64u		/* a HOSTRD with its time (ns) */
#define PH_NEV(h) ((uint32_t)((h) >> 8 & 15))
#define PH_ROOM(h) ((uint32_t)((h) >> 12 & 15))
#define PH_COUNT(h) ((h) >> 24)	/* its order, less the thread's rank */
#define ORDER_COUNT ((1ull << 40) - 1)
struct site_raw {		/* the runtime's site id -> its pcs; the file's id once used */
	uint64_t pc[DYL_FLOW_SITE_PCS];
	uint32_t npc, seen;
	uint64_t file_id;
};
struct obj_ent {		/* a key -> an object of the file (or a pending birth) */
	uint64_t k1, k2, k3;	/* k1 0: empty */
	uint64_t obj, start;
	int live;
};
/* a thread's walk through its events */
struct thr {
	int32_t tid;
	uint64_t order;		/* its next item's (rank << 40 | count) */
	size_t ch;		/* the chunk being read (index in fc.ch) */
	uint64_t *buf;		/* its events (unpacked) */
	size_t buf_cap, n, pos;
	int mark;		/* stopped at a mark (buf[pos]), not yet taken */
	int ended;		/* no events left */
	struct pend pend;	/* life items waiting for its next call */
	struct pend cur;	/* those of the call being written */
	ssize_t last_free;	/* the item (in pend) of its last event, when a FREE */
	/* the last two calls' ACC items (not std.diff's), what a REPEAT repeats: rep[rcur]
	 * the last call's, rep[rcur ^ 1] the one before (DYL_REF_BEFORE) */
	struct list rep[2];
	unsigned rcur;
	size_t nrd;		/* timed HOSTRD items in pend */
	uint64_t min_rd;	/* the earliest of their times (ns) */
};

struct fc {
	int fd;
	uint64_t size;
	struct chunk *ch;
	size_t nch, ch_cap;
	struct thr *th;
	size_t nth, th_cap, last_th;
	struct list bucket;	/* the items of the seq being written */
	struct item *tmp;
	size_t tmp_cap;
	uint64_t start_max;	/* the latest start of a timed depth-0 row so far (ns) */
	int timed;		/* one was seen */
	struct dyl_conv *d;
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
	/* ACCESS records packed (DYL_FR_ACCESSES): the entries so far, the last ACCESS's
	 * seq, the recent accesses a one-byte entry names */
	unsigned char acc[ACC_BLOCK + 64];
	size_t acc_len;
	uint32_t nacc;
	uint64_t acc_seq;
	struct { uint64_t obj, lo, hi; uint32_t rw, used; } slots[DYL_FLOW_ACC_SLOTS];
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
 * the rest of the converter reads, in place: the chunk is the WORDS words of T's buffer.
 * Its new length, or (size_t)-1 out of memory. */
static size_t unpack(struct thr *t, size_t words)
{
	size_t extra = 0, i;

	for (i = 0; i < words;) {
		uint64_t w = t->buf[i];
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
	if (!(t->buf = dyl_fmt_grow(t->buf, &t->buf_cap, 2 * end + extra, 8)))
		return (size_t)-1;
	uint64_t *e = t->buf, *out = e + end;
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

static int add_chunk(struct fc *c, struct chunk ch)
{
	if (!(c->ch = dyl_fmt_grow(c->ch, &c->ch_cap, c->nch + 1, sizeof(*c->ch))))
		return -1;
	c->ch[c->nch++] = ch;
	return 0;
}

/* 1. the FLOW chunks, in file order, each thread's live window after them (unless a
 * copy of its generation exists); a chunk cut short ends the reading.  Indexed: the
 * events are read as the threads' walks come to them. */
static int index_chunks(struct fc *c)
{
	struct dyl_spool_head h;
	uint64_t off = sizeof(h);
	struct { uint64_t body; struct dyl_flow_chunk fh; size_t words; } live[256];
	size_t nlive = 0;

	if (c->size < sizeof(h) || read_at(c, &h, sizeof(h), 0) != 0 || memcmp(h.magic, DYL_SPOOL_MAGIC, 8))
		return -1;
	while (off + sizeof(struct dyl_chunk) <= c->size) {
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
		if (add_chunk(c, (struct chunk){ fh.tid, fh.window, fh.gen, body + sizeof(fh), words }) != 0)
			return -1;
	}
	for (size_t l = 0; l < nlive; l++) {
		int copied = 0;
		for (size_t i = 0; i < c->nch && !copied; i++)
			copied = c->ch[i].window == (live[l].fh.window & ~DYL_FLOW_LIVE) &&
				 c->ch[i].gen == live[l].fh.gen;
		if (!copied && live[l].words &&
		    add_chunk(c, (struct chunk){ live[l].fh.tid, UINT32_MAX, 0,
						 live[l].body + sizeof(struct dyl_flow_chunk), live[l].words }) != 0)
			return -1;
	}
	return 0;
}

/* the threads, in the order of their first chunks (the order of their items at one seq) */
static int make_threads(struct fc *c)
{
	for (size_t i = 0; i < c->nch; i++) {
		size_t k = 0;
		while (k < c->nth && c->th[k].tid != c->ch[i].tid)
			k++;
		if (k < c->nth)
			continue;
		if (!(c->th = dyl_fmt_grow(c->th, &c->th_cap, c->nth + 1, sizeof(*c->th))))
			return -1;
		c->th[c->nth++] = (struct thr){ .tid = c->ch[i].tid, .order = (uint64_t)k << 40, .ch = i,
						.last_free = -1, .min_rd = UINT64_MAX };
	}
	return 0;
}

/* T's next chunk read into its buffer (T->ch the one before: SIZE_MAX none yet); 0, 1
 * none left, -1 */
static int next_chunk(struct fc *c, struct thr *t, int first)
{
	size_t j = first ? t->ch : t->ch + 1;
	while (j < c->nch && c->ch[j].tid != t->tid)
		j++;
	if (j >= c->nch)
		return 1;
	t->ch = j;
	size_t words = c->ch[j].words;
	if (!(t->buf = dyl_fmt_grow(t->buf, &t->buf_cap, words ? words : 1, 8)) ||
	    read_at(c, t->buf, words * 8, c->ch[j].off) != 0 || (words = unpack(t, words)) == (size_t)-1)
		return -1;
	t->n = words, t->pos = 0;
	return 0;
}

/* --- 2. the threads' walks --- */

static struct obj_ent *map_find(struct fc *c, uint64_t k1, uint64_t k2, uint64_t k3, int make);
static void map_del(struct fc *c, struct obj_ent *e);
/* keys: heap blocks and mappings by region id; statics by extent; stack objects by
 * extent and frame (the function's return address in k1 above the tag) */
#define KEY_REGION 1
#define KEY_STATIC 2
#define KEY_STACK 3
#define KEY_NAMED 4
/* a pending birth (an ALLOC, or a realloc's RESIZE, not yet written): by its region id,
 * where it waits (obj: the thread, start: the item in its pend) */
#define KEY_PEND 5

/* the words of an ACC, HOST or HOSTRD event of object kind KIND (HOSTRD's time after) */
static uint32_t range_words(uint32_t kind)
{
	return (kind == DYL_OBJ_HEAP || kind == DYL_OBJ_MAPPING) ? 4u : kind == DYL_OBJ_STATIC ? 5u : 7u;
}

static int list_add(struct list *l, const struct item *it)
{
	if (!(l->v = dyl_fmt_grow(l->v, &l->cap, l->n + 1, sizeof(*l->v))))
		return -1;
	l->v[l->n++] = *it;
	return 0;
}

/* an item of event E (WORDS words) */
static struct item make_item(struct thr *t, uint32_t cls, uint32_t type, const uint64_t *e, uint32_t words)
{
	struct item it = { DYL_FLOW_NONE, t->order++, cls, type, 0, { 0 } };
	memcpy(it.ev, e, (words < EV_MAX ? words : EV_MAX) * 8);
	return it;
}

/* a birth in T's pend, the entry at word I, findable by its region id until written
 * (one thread: found by a scan of its pend, birth_moved; a hash of millions of pending
 * blocks cost more than the rest of the conversion) */
static int pend_birth(struct fc *c, struct thr *t, size_t i)
{
	if (c->nth == 1)
		return 0;
	struct obj_ent *o = map_find(c, KEY_PEND, t->pend.w[i + 2], 0, 1);
	if (!o)
		return -1;
	o->obj = (uint64_t)(t - c->th), o->start = i, o->live = 1;
	return 0;
}

/* IT into T's pend (ROOM words at least: 1 + its event's); where it went */
static ssize_t pend_put(struct thr *t, const struct item *it, uint32_t nev, uint32_t room, uint32_t flags)
{
	if (room < 1 + nev)
		room = 1 + nev;
	if (!(t->pend.w = dyl_fmt_grow(t->pend.w, &t->pend.cap, t->pend.n + room, 8)))
		return -1;
	size_t at = t->pend.n;
	t->pend.w[at] = PH(it->type, it->cls, nev, room, it->order & ORDER_COUNT) | flags;
	memset(t->pend.w + at + 1, 0, (room - 1) * 8);
	memcpy(t->pend.w + at + 1, it->ev, nev * 8);
	t->pend.n += room;
	return (ssize_t)at;
}

/* the entry at word I of list P of thread T, as an item of SEQ */
static struct item pend_get(const struct thr *t, const struct pend *p, size_t i, uint64_t seq)
{
	const uint64_t *e = p->w + i;
	struct item it = { seq, (t->order & ~ORDER_COUNT) | PH_COUNT(e[0]), PH_CLS(e[0]), PH_TYPE(e[0]), 0, { 0 } };
	memcpy(it.ev, e + 1, PH_NEV(e[0]) * 8);
	if (it.type == IT_RESIZE)
		it.old_id = e[5];
	return it;
}

static int pend_add(struct fc *c, struct thr *t, const struct item *it, uint32_t words)
{
	uint32_t nev = words < EV_MAX ? words : EV_MAX;
	ssize_t at = pend_put(t, it, nev, 0, 0);
	if (at < 0)
		return -1;
	return it->type == IT_ALLOC ? pend_birth(c, t, (size_t)at) : 0;
}

/* an ACC or HOST event E: an item of the current call (or of the next, a --defs
 * prefix's look), kept for a REPEAT when it is the call's own access */
static int walk_access(struct fc *c, struct thr *t, uint64_t cur, const uint64_t *e, uint32_t type,
		       uint32_t words, uint32_t flags)
{
	if (type == DYL_RE_HOST && (flags & DYL_REF_AHEAD)) {	/* before the next call */
		struct item it = make_item(t, 1, IT_HOST, e, words);
		return pend_add(c, t, &it, words);
	}
	if (cur == DYL_FLOW_NONE)
		return 0;
	struct item it = make_item(t, type == DYL_RE_ACC ? 2 : 1, type == DYL_RE_ACC ? IT_ACC : IT_HOST, e, words);
	it.seq = cur;
	if (list_add(&c->bucket, &it) != 0)
		return -1;
	if (type == DYL_RE_ACC && !(flags & (DYL_REF_DIFF | DYL_REF_FOLLOW)))
		return list_add(&t->rep[t->rcur], &it);
	return 0;
}

/* an ALLOC event E: a life item, or the second half of a realloc (the FREE before it,
 * item WAS_FREE, becomes the resize) */
static int walk_alloc(struct fc *c, struct thr *t, const uint64_t *e, uint32_t words, uint32_t flags,
		      ssize_t was_free)
{
	if (words < 4)
		return 0;
	if ((flags & DYL_REF_REALLOC) && was_free >= 0) {
		uint64_t *f = t->pend.w + was_free;	/* (its room: 6 words) */
		f[5] = f[2];	/* the old block */
		memcpy(f + 1, e, 4 * 8);
		f[0] = (f[0] & ~(uint64_t)0xfff) | IT_RESIZE | 4u << 8;
		return pend_birth(c, t, (size_t)was_free);
	}
	struct item it = make_item(t, 0, IT_ALLOC, e, words);
	return pend_add(c, t, &it, words < 4 ? words : 4);
}

/* a HOSTRD event E: before the thread's next call, as a life event, or before another
 * thread's call that starts after it (move_reads); its time made ns */
static int walk_hostrd(struct fc *c, struct thr *t, const uint64_t *e, uint32_t words, uint32_t kind,
		       ssize_t was_free)
{
	uint32_t base = range_words(kind);
	if (words < base)
		return 0;
	t->last_free = was_free;	/* (a read does not part a realloc's two halves) */
	struct item it = make_item(t, 0, IT_HOSTRD, e, words);
	uint32_t timed = 0;
	if (words > base && base < EV_MAX) {
		it.ev[base] = dyl_conv_ns(c->d, e[base]);
		timed = PH_TIMED;
		t->nrd++;
		if (it.ev[base] < t->min_rd)
			t->min_rd = it.ev[base];
	}
	return pend_put(t, &it, words < EV_MAX ? words : EV_MAX, 0, timed) < 0 ? -1 : 0;
}

/* a SITE event E: the site's return addresses */
static int walk_site(struct fc *c, struct thr *t, const uint64_t *e, uint32_t words, ssize_t was_free)
{
	uint32_t npc = DYL_RE_SMALL(e[0]);
	t->last_free = was_free;	/* (a realloc's new site comes between) */
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

/* one event E of WORDS words (whole, in its chunk), not a mark; CUR the seq of the
 * thread's current call (DYL_FLOW_NONE: none) */
static int walk_event(struct fc *c, struct thr *t, uint64_t cur, const uint64_t *e, uint32_t words)
{
	uint32_t type = DYL_RE_TYPE(e[0]);
	uint32_t flags = DYL_RE_FLAGS(e[0]), kind = DYL_RE_SMALL(e[0]);
	ssize_t was_free = t->last_free;

	t->last_free = -1;
	switch (type) {
	case DYL_RE_ACC:
	case DYL_RE_HOST:
		if (words < range_words(kind))
			return 0;
		return walk_access(c, t, cur, e, type, words, flags);
	case DYL_RE_ALLOC:
		return walk_alloc(c, t, e, words, flags, was_free);
	case DYL_RE_HOSTRD:
		return walk_hostrd(c, t, e, words, kind, was_free);
	case DYL_RE_FREE:
		if (words < 2)
			return 0;
		struct item it = make_item(t, 0, IT_FREE, e, words);
		/* (room for the realloc it may be: the ALLOC's 4 words and the old id) */
		return (t->last_free = pend_put(t, &it, words < 4 ? words : 4, 6, 0)) < 0 ? -1 : 0;
	case DYL_RE_SITE:
		return walk_site(c, t, e, words, was_free);
	default:
		t->last_free = was_free;	/* unknown: skipped */
		return 0;
	}
}

/* a thread's next depth-0 call begins at E: a CALL, or the first ACC of a call */
static int is_mark(const uint64_t *e, uint32_t words)
{
	uint32_t type = DYL_RE_TYPE(e[0]);
	return type == DYL_RE_CALL || (type == DYL_RE_ACC && (DYL_RE_FLAGS(e[0]) & DYL_REF_NEWCALL) &&
				       words >= range_words(DYL_RE_SMALL(e[0])));
}

/* T's events read up to its next mark (T->mark), or to their end (T->ended); CUR the
 * seq of its current call */
static int advance(struct fc *c, struct thr *t, uint64_t cur)
{
	for (;;) {
		if (t->pos >= t->n) {
			int r = next_chunk(c, t, 0);
			if (r < 0)
				return -1;
			if (r > 0) {
				t->ended = 1;
				return 0;
			}
			continue;
		}
		const uint64_t *e = t->buf + t->pos;
		uint32_t words = DYL_RE_WORDS(e[0]);
		if (words == 0 || words > t->n - t->pos) {
			t->pos = t->n;	/* damaged: the rest of the chunk */
			continue;
		}
		if (is_mark(e, words)) {
			t->mark = 1;
			return 0;
		}
		if (walk_event(c, t, cur, e, words) != 0)
			return -1;
		t->pos += words;
	}
}

/* T's mark taken by its call CUR (DYL_FLOW_NONE: past the last row), then its events up
 * to the next mark: a REPEAT's items copied to the call, a first ACC begins its list */
static int take_mark(struct fc *c, struct thr *t, uint64_t cur)
{
	const uint64_t *e = t->buf + t->pos;
	uint32_t words = DYL_RE_WORDS(e[0]), flags = DYL_RE_FLAGS(e[0]);

	t->mark = 0;
	t->last_free = -1;
	if (DYL_RE_TYPE(e[0]) == DYL_RE_CALL) {
		if ((flags & DYL_REF_REPEAT) && (flags & DYL_REF_BEFORE))
			t->rcur ^= 1;
		struct list *r = &t->rep[t->rcur];
		for (size_t i = 0; (flags & DYL_REF_REPEAT) && cur != DYL_FLOW_NONE && i < r->n; i++) {
			struct item it = r->v[i];
			it.seq = cur;
			it.order = t->order++;
			if (list_add(&c->bucket, &it) != 0)
				return -1;
		}
	} else {
		t->rcur ^= 1;	/* a new call with accesses: the one a REPEAT repeats */
		t->rep[t->rcur].n = 0;
		if (walk_access(c, t, cur, e, DYL_RE_ACC, words, flags) != 0)
			return -1;
	}
	t->pos += words;
	return advance(c, t, cur);
}

/* --- 3. a seq's items: taken from the threads --- */

/* T's pend becomes the life items of its call being written (its births are no longer
 * pending) */
static void pend_swap(struct fc *c, struct thr *t)
{
	for (size_t i = 0; c->nth > 1 && i < t->pend.n; i += PH_ROOM(t->pend.w[i])) {
		uint32_t type = PH_TYPE(t->pend.w[i]);
		if (type != IT_ALLOC && type != IT_RESIZE)
			continue;
		struct obj_ent *o = map_find(c, KEY_PEND, t->pend.w[i + 2], 0, 0);
		if (o)
			map_del(c, o);
	}
	struct pend p = t->cur;
	t->cur = t->pend;
	t->pend = p;
	t->pend.n = 0;
	t->nrd = 0;
	t->min_rd = UINT64_MAX;
}

/* a heap block or mapping used at SEQ before its maker's next call: its birth moves
 * before that use (the first access of its region id, any thread) */
/* the pending birth of region ID (one thread): in its pend, else SIZE_MAX */
static size_t birth_scan(struct fc *c, uint64_t id)
{
	const struct pend *p = &c->th[0].pend;
	struct obj_ent *o = map_find(c, KEY_REGION, id, 0, 0);

	if (o && o->live)	/* (born: no birth of it is pending) */
		return SIZE_MAX;
	for (size_t i = 0; i < p->n; i += PH_ROOM(p->w[i]))
		if ((PH_TYPE(p->w[i]) == IT_ALLOC || PH_TYPE(p->w[i]) == IT_RESIZE) && p->w[i + 2] == id)
			return i;
	return SIZE_MAX;
}

/* an access at SEQ to region ID of KIND: its birth, pending, moved to SEQ */
static int birth_moved(struct fc *c, uint32_t kind, uint64_t id, uint64_t seq)
{
	struct obj_ent *o = NULL;
	size_t at;

	if (kind != DYL_OBJ_HEAP && kind != DYL_OBJ_MAPPING)
		return 0;
	if (c->nth == 1) {
		if ((at = birth_scan(c, id)) == SIZE_MAX)
			return 0;
	} else {
		if (!(o = map_find(c, KEY_PEND, id, 0, 0)))
			return 0;
		at = o->start;
	}
	struct thr *u = &c->th[o ? o->obj : 0];
	struct item moved = pend_get(u, &u->pend, at, seq);
	u->pend.w[at] = (u->pend.w[at] & ~(uint64_t)15) | IT_TAKEN;
	if (o)
		map_del(c, o);
	return list_add(&c->bucket, &moved);
}

/* the accesses of SEQ: the bucket's, and T's --defs looks (cls 1 in T->cur) */
static int births_first(struct fc *c, const struct thr *t, uint64_t seq)
{
	size_t n = c->bucket.n;
	for (size_t i = 0; i < n; i++) {
		const struct item *it = &c->bucket.v[i];
		if (it->cls != 0 && birth_moved(c, DYL_RE_SMALL(it->ev[0]), it->ev[1], seq) != 0)
			return -1;
	}
	for (size_t i = 0; t && i < t->cur.n; i += PH_ROOM(t->cur.w[i])) {
		const uint64_t *h = t->cur.w + i;
		if (PH_TYPE(*h) != IT_TAKEN && PH_CLS(*h) != 0 && birth_moved(c, DYL_RE_SMALL(h[1]), h[2], seq) != 0)
			return -1;
	}
	return 0;
}

/* the program's reads that happened before the latest start so far go to SEQ (a timed
 * row): a read goes where it happened among all threads' calls, before the first that
 * started after it, when that comes before its thread's own next call */
static int move_reads(struct fc *c, uint64_t seq)
{
	for (size_t k = 0; k < c->nth; k++) {
		struct thr *t = &c->th[k];
		if (!t->nrd || t->min_rd > c->start_max)
			continue;
		t->nrd = 0;
		t->min_rd = UINT64_MAX;
		for (size_t i = 0; i < t->pend.n; i += PH_ROOM(t->pend.w[i])) {
			uint64_t *h = t->pend.w + i;
			if (PH_TYPE(*h) != IT_HOSTRD || !(*h & PH_TIMED))
				continue;
			uint64_t ns = h[1 + range_words(DYL_RE_SMALL(h[1]))];
			if (ns > c->start_max) {
				t->nrd++;
				t->min_rd = ns < t->min_rd ? ns : t->min_rd;
				continue;
			}
			struct item moved = pend_get(t, &t->pend, i, seq);
			*h = (*h & ~(uint64_t)15) | IT_TAKEN;
			if (list_add(&c->bucket, &moved) != 0)
				return -1;
		}
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

static void acc_flush(struct fc *c);

static void put(struct fc *c, const void *p, size_t n)
{
	if (c->nacc)	/* (the accesses before this record first) */
		acc_flush(c);
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

static uint64_t map_hash(uint64_t k1, uint64_t k2, uint64_t k3);
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
			uint64_t h = map_hash(c->map[i].k1, c->map[i].k2, c->map[i].k3);
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
	uint64_t h = map_hash(k1, k2, k3);
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

static uint64_t map_hash(uint64_t k1, uint64_t k2, uint64_t k3)
{
	return (k1 * 0x9E3779B97F4A7C15ull) ^ (k2 * 0xC2B2AE3D27D4EB4Full) ^ k3;
}

/* E out of the map: the entries after it in its run moved back (linear probing keeps no
 * tombstones), so the map holds what is live, not what ever was */
static void map_del(struct fc *c, struct obj_ent *e)
{
	size_t mask = c->map_cap - 1, i = (size_t)(e - c->map);
	for (size_t j = (i + 1) & mask; c->map[j].k1; j = (j + 1) & mask) {
		size_t home = (size_t)(map_hash(c->map[j].k1, c->map[j].k2, c->map[j].k3) >> 20) & mask;
		/* the entry at J may fill the hole at I unless its home lies in (I, J] */
		int stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
		if (!stays) {
			c->map[i] = c->map[j];
			i = j;
		}
	}
	c->map[i].k1 = 0;
	c->map_used--;
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
	map_del(c, o);	/* (its id is in the file: a later mention is a new object) */
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
	map_del(c, o);
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

/* the ACCESSES record of the entries so far */
static void acc_flush(struct fc *c)
{
	static const char zeros[8];
	uint32_t head[3] = { DYL_FR_ACCESSES, (uint32_t)((4 + c->acc_len + 7) / 8 * 8), c->nacc };
	size_t len = c->acc_len;

	c->nacc = 0;
	c->acc_len = 0;
	put(c, head, sizeof(head));
	put(c, c->acc, len);
	put(c, zeros, (8 - (4 + len) % 8) % 8);
}

static unsigned char *varint(unsigned char *p, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		*p++ = (unsigned char)(v | 0x80);
	*p++ = (unsigned char)v;
	return p;
}

/* an ACCESS as an entry of an ACCESSES record (dyl_flow.h): a recent one in a byte */
static void put_access(struct fc *c, uint64_t seq, uint64_t obj, uint64_t lo, uint64_t hi, uint32_t rw)
{
	if (hi < lo) {	/* (not one an entry can say) */
		struct dyl_flow_access r = { { DYL_FR_ACCESS, sizeof(r) - 8 }, seq, obj, lo, hi, rw, 0 };
		put(c, &r, sizeof(r));
		c->acc_seq = seq;
		return;
	}
	unsigned s = seq == c->acc_seq ? 0 : seq == c->acc_seq + 1 ? 1 : seq > c->acc_seq ? 2 : 3;
	uint32_t k = dyl_flow_acc_slot(obj, lo, hi, rw);
	int hit = c->slots[k].used && c->slots[k].obj == obj && c->slots[k].lo == lo &&
		  c->slots[k].hi == hi && c->slots[k].rw == rw;
	unsigned char *p = c->acc + c->acc_len;
	*p++ = (unsigned char)(s << 5 | (hit ? k : 0x80 | rw));
	if (s >= 2)
		p = varint(p, s == 2 ? seq - c->acc_seq : seq);
	if (!hit) {
		p = varint(varint(varint(p, obj), lo), hi - lo);
		c->slots[k].obj = obj, c->slots[k].lo = lo, c->slots[k].hi = hi;
		c->slots[k].rw = rw, c->slots[k].used = 1;
	}
	c->acc_len = (size_t)(p - c->acc);
	c->acc_seq = seq;
	c->nacc++;
	if (c->acc_len >= ACC_BLOCK)
		acc_flush(c);
}

static void emit_acc(struct fc *c, const struct item *it)
{
	uint64_t lo, hi;
	struct obj_ent *o = event_obj(c, it, &lo, &hi);
	if (!o)
		return;
	put_access(c, it->seq, o->obj, lo, hi, (DYL_RE_FLAGS(it->ev[0]) & DYL_REF_W) ? DYL_ACC_W : DYL_ACC_R);
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


/* --- 4. a seq's items written --- */

static int item_less(const struct item *a, const struct item *b)
{
	if (a->cls != b->cls)
		return a->cls < b->cls;
	return a->order < b->order;
}

/* A natural merge sort (stable; no qsort, which may call malloc): the runs already in
 * order are merged pairwise until one is left. */
static void sort_items(struct item *a, struct item *t, size_t n)
{
	for (;;) {
		size_t lo = 0, merged = 0;
		while (lo < n) {
			size_t mid = lo + 1, hi;
			while (mid < n && !item_less(&a[mid], &a[mid - 1]))
				mid++;
			hi = mid < n ? mid + 1 : n;
			while (hi < n && !item_less(&a[hi], &a[hi - 1]))
				hi++;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				t[k++] = item_less(&a[j], &a[i]) ? a[j++] : a[i++];
			while (i < mid)
				t[k++] = a[i++];
			while (j < hi)
				t[k++] = a[j++];
			merged += mid < hi;
			lo = hi;
		}
		if (!merged)	/* one run: in order */
			return;
		memcpy(a, t, n * sizeof(*a));
	}
}

static void emit_item(struct fc *c, const struct item *it)
{
	switch (it->type) {
	case IT_ALLOC: emit_alloc(c, it); break;
	case IT_FREE: emit_free(c, it); break;
	case IT_RESIZE: emit_resize(c, it); break;
	case IT_ACC: emit_acc(c, it); break;
	case IT_HOST: emit_host(c, it); break;
	case IT_HOSTRD: emit_host_read(c, it); break;
	}
}

/* the entries of class CLS of T's list P from word *I on, up to the first whose order is
 * past UPTO, written as items of SEQ */
static void emit_pend(struct fc *c, const struct thr *t, const struct pend *p, size_t *i, uint32_t cls,
		      uint64_t upto, uint64_t seq)
{
	for (; *i < p->n; *i += PH_ROOM(p->w[*i])) {
		uint64_t h = p->w[*i];
		if (PH_TYPE(h) == IT_TAKEN || PH_CLS(h) != cls)
			continue;
		if (((t->order & ~ORDER_COUNT) | PH_COUNT(h)) > upto)
			return;
		struct item it = pend_get(t, p, *i, seq);
		emit_item(c, &it);
	}
}

/* the items of SEQ written, in order: the bucket's (sorted) merged with T's life items
 * (T->cur, already in order; T NULL: none); the bucket emptied */
static int emit_seq(struct fc *c, struct thr *t, uint64_t seq)
{
	struct list *b = &c->bucket;
	size_t k = 0;

	if (b->n > 1) {
		if (!(c->tmp = dyl_fmt_grow(c->tmp, &c->tmp_cap, b->n, sizeof(*c->tmp))))
			return -1;
		sort_items(b->v, c->tmp, b->n);
	}
	for (uint32_t cls = 0; cls < 3; cls++) {
		size_t i = 0;
		for (; k < b->n && b->v[k].cls == cls; k++) {
			if (t)
				emit_pend(c, t, &t->cur, &i, cls, b->v[k].order, seq);
			emit_item(c, &b->v[k]);
		}
		if (t)
			emit_pend(c, t, &t->cur, &i, cls, UINT64_MAX, seq);
	}
	b->n = 0;
	if (t)
		t->cur.n = 0;
	return 0;
}

static struct thr *thread_of(struct fc *c, int64_t tid)
{
	if (c->last_th < c->nth && c->th[c->last_th].tid == tid)
		return &c->th[c->last_th];
	for (size_t k = 0; k < c->nth; k++)
		if (c->th[k].tid == tid) {
			c->last_th = k;
			return &c->th[k];
		}
	return NULL;
}

/* a depth-0 row: its thread's next mark taken, and what belongs to its seq written */
static int on_row(struct fc *c, const struct dyl_row *row)
{
	struct thr *t = thread_of(c, row->tid);

	if (row->timed && (!c->timed || row->t_start_ns > c->start_max))
		c->start_max = row->t_start_ns, c->timed = 1;
	if (t && t->mark) {
		pend_swap(c, t);
		if (take_mark(c, t, row->seq) != 0)
			return -1;
	} else {
		t = NULL;
	}
	if (row->timed && move_reads(c, row->seq) != 0)
		return -1;
	if (!c->bucket.n && !(t && t->cur.n))
		return 0;
	if (births_first(c, t, row->seq) != 0)
		return -1;
	return emit_seq(c, t, row->seq);
}

/* past the last row: each thread's events left (their calls have no row) and its
 * pending items, at NSEQ */
static int the_rest(struct fc *c, uint64_t nseq)
{
	for (size_t k = 0; k < c->nth; k++) {
		struct thr *t = &c->th[k];
		while (t->mark)
			if (take_mark(c, t, DYL_FLOW_NONE) != 0)
				return -1;
	}
	/* (threads in rank order: the order of their items) */
	for (uint32_t cls = 0; cls < 3; cls++)
		for (size_t k = 0; k < c->nth; k++) {
			size_t i = 0;
			emit_pend(c, &c->th[k], &c->th[k].pend, &i, cls, UINT64_MAX, nseq);
		}
	c->bucket.n = 0;
	return 0;
}

/* the rows, in seq order, each with its flow; *NSEQ the seq past the last */
static int walk_rows(struct fc *c, int conv_flags, uint64_t seq, uint64_t *nseq, const char **why)
{
	struct dyl_row row;

	if (!(c->d = dyl_conv_open(c->fd, c->size, conv_flags, why)))
		return -1;
	dyl_conv_set_seq(c->d, seq);
	*why = "no memory";
	for (size_t k = 0; k < c->nth; k++) {	/* each thread up to its first mark */
		struct thr *t = &c->th[k];
		int r = next_chunk(c, t, 1);
		if (r < 0 || (r == 0 && advance(c, t, DYL_FLOW_NONE) != 0))
			return -1;
		t->ended |= r > 0;
	}
	while (dyl_conv_next(c->d, &row))
		if (row.depth == 0 && on_row(c, &row) != 0)
			return -1;
	*nseq = dyl_conv_seq(c->d);
	return the_rest(c, *nseq);
}

int dyl_flow_in_spool(int spool_fd, uint64_t size)
{
	struct fc c = { .fd = spool_fd, .size = size };
	int r = index_chunks(&c) == 0 && c.nch > 0;
	dyl_fmt_release(c.ch, c.ch_cap, sizeof(*c.ch));
	return r;
}

static void release(struct fc *c)
{
	for (size_t k = 0; k < c->nth; k++) {
		struct thr *t = &c->th[k];
		dyl_fmt_release(t->buf, t->buf_cap, 8);
		dyl_fmt_release(t->pend.w, t->pend.cap, 8);
		dyl_fmt_release(t->cur.w, t->cur.cap, 8);
		dyl_fmt_release(t->rep[0].v, t->rep[0].cap, sizeof(struct item));
		dyl_fmt_release(t->rep[1].v, t->rep[1].cap, sizeof(struct item));
	}
	if (c->d)
		dyl_conv_close(c->d);
	dyl_fmt_release(c->th, c->th_cap, sizeof(*c->th));
	dyl_fmt_release(c->ch, c->ch_cap, sizeof(*c->ch));
	dyl_fmt_release(c->bucket.v, c->bucket.cap, sizeof(struct item));
	dyl_fmt_release(c->tmp, c->tmp_cap, sizeof(*c->tmp));
	dyl_fmt_release(c->sites, c->sites_cap, sizeof(*c->sites));
	dyl_fmt_release(c->map, c->map_cap, sizeof(*c->map));
	dyl_fmt_release(c->buf, c->buf_cap, 1);
}

int dyl_flow_convert(int spool_fd, uint64_t size, int conv_flags, uint64_t seq, int32_t pid,
		     uint32_t head_flags, const struct dyl_flow_names *names, int out_fd,
		     const char **why)
{
	struct fc c = { .fd = spool_fd, .size = size, .out_fd = out_fd, .names = names };
	uint64_t nseq = seq;
	int ret = -1;
	off_t at = lseek(out_fd, 0, SEEK_CUR);	/* the head's place: its nseq comes last */

	*why = "no memory";
	if (index_chunks(&c) != 0) {
		*why = "not a spool, or it cannot be read";
		goto out;
	}
	if (make_threads(&c) != 0 || !(c.buf = dyl_fmt_grow(NULL, &c.buf_cap, 1 << 16, 1)))
		goto out;
	struct dyl_flow_head h = { { 0 }, DYL_FLOW_VERSION, head_flags, pid, 0, seq };
	memcpy(h.magic, DYL_FLOW_MAGIC, 8);
	if (names && names->module)
		h.flags |= DYL_FLOW_F_MODULES;
	put(&c, &h, sizeof(h));
	put_modules(&c);
	if (walk_rows(&c, conv_flags, seq, &nseq, why) != 0)
		goto out;
	if (c.nacc)
		acc_flush(&c);
	out_flush(&c);
	h.nseq = nseq;
	if (c.failed || at < 0 || pwrite(out_fd, &h, sizeof(h), at) != (ssize_t)sizeof(h)) {
		*why = "cannot write";
		goto out;
	}
	ret = 0;
out:
	release(&c);
	return ret;
}
