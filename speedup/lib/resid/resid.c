/* resid.c - the residency simulation (resid.h): per block, the bytes whose valid copy is
 * on the accelerator only (dev) or on both sides (both); bytes no segment covers are on
 * the host only.  Each group of events (the host events before a call; a call's reads;
 * its writes) collects the ranges that move, and at its end joins the contiguous ones
 * into transfers and times them with the link model. */
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "model.h"
#include "resid.h"

const char *const resid_mode_name[RESID_MODES] = { "exact", "optimistic", "pessimistic" };

enum { ST_DEV = 1, ST_BOTH = 2 };
enum { H2D, D2H };

struct seg {
	uint64_t lo, hi;
	int32_t prod;		/* dev: the function that wrote it (funcs id) */
	uint32_t st;		/* ST_* */
};

struct bmap {
	struct seg *s;
	size_t n, room;
};

/* A range that moves in the current group. */
struct move {
	uint64_t lo, hi;
	uint32_t block, dir;
	int32_t func;		/* h2d: the call's function; d2h: the producer */
};

/* The simulation's state, for one resid_simulate. */
struct sim {
	const struct resid_events *ev;
	const struct link_model *link;
	struct resid_result *out;
	struct bmap *map;	/* [nblocks] */
	struct move *mv;
	size_t nmv, mv_room;
	uint64_t group_seq;	/* the group's call (charge_ns index) */
	size_t wlo, whi;	/* ev[wlo, whi): the writes of call wseq, the last that wrote */
	uint64_t wseq;
	int waccel;
};

/* --- the map of one block --- */

/* The first segment whose hi is above X. */
static size_t find(const struct bmap *m, uint64_t x)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->s[mid].hi <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* [LO, HI) becomes ST (0: host, no segment) written by PROD; joins equal neighbours.
 * 0, or -1 out of memory. */
static int map_set(struct bmap *m, uint64_t lo, uint64_t hi, uint32_t st, int32_t prod)
{
	size_t i = find(m, lo), j;
	struct seg left = { 0, 0, 0, 0 }, right = { 0, 0, 0, 0 };
	int has_left = 0, has_right = 0;

	if (lo >= hi)
		return 0;
	/* the segments [i, j) overlap [lo, hi): their parts outside it stay */
	for (j = i; j < m->n && m->s[j].lo < hi; j++)
		;
	if (i < j && m->s[i].lo < lo) {
		left = m->s[i];
		left.hi = lo;
		has_left = 1;
	}
	if (i < j && m->s[j - 1].hi > hi) {
		right = m->s[j - 1];
		right.lo = hi;
		has_right = 1;
	}
	struct seg mid = { lo, hi, prod, st };
	/* joins: the segment before i (or LEFT) and after j (or RIGHT) when they touch */
	if (st && !has_left && i > 0 && m->s[i - 1].hi == lo && m->s[i - 1].st == st &&
	    m->s[i - 1].prod == prod) {
		mid.lo = m->s[--i].lo;
	}
	if (st && !has_right && j < m->n && m->s[j].lo == hi && m->s[j].st == st &&
	    m->s[j].prod == prod) {
		mid.hi = m->s[j++].hi;
	}
	size_t put = (size_t)has_left + (st != 0) + (size_t)has_right;
	if (m->n - (j - i) + put > m->room &&
	    grow_to(&m->s, sizeof(*m->s), m->n - (j - i) + put, &m->room, 4) != 0)
		return -1;
	if (m->n > j)
		memmove(m->s + i + put, m->s + j, (m->n - j) * sizeof(*m->s));
	m->n = m->n - (j - i) + put;
	if (has_left)
		m->s[i++] = left;
	if (st)
		m->s[i++] = mid;
	if (has_right)
		m->s[i++] = right;
	return 0;
}

/* --- moves and transfers --- */

static int add_move(struct sim *s, uint32_t block, uint64_t lo, uint64_t hi, uint32_t dir,
		    int32_t func)
{
	if (lo >= hi)
		return 0;
	if (grow(&s->mv, sizeof(*s->mv), s->nmv, &s->mv_room, 64) != 0)
		return -1;
	s->mv[s->nmv++] = (struct move){ lo, hi, block, dir, func };
	return 0;
}

static double link_ns(const struct sim *s, uint32_t dir, uint64_t bytes)
{
	const struct model *m = s->link ? (dir == H2D ? s->link->h2d : s->link->d2h) : NULL;
	int oor;

	if (!m)
		return 0;
	double t = model_eval(m, (double)bytes, &oor);
	return t > 0 ? t : 0;
}

/* One transfer of BYTES in DIR, charged to call SEQ and function FUNC. */
static void transfer(struct sim *s, uint32_t dir, uint64_t bytes, int32_t func, uint64_t seq)
{
	struct resid_result *o = s->out;
	double ns = link_ns(s, dir, bytes);
	struct resid_dir *t = dir == H2D ? &o->h2d : &o->d2h;

	t->bytes += bytes;
	t->transfers++;
	t->ns += ns;
	if (func >= 0 && func < o->nfuncs) {
		struct resid_dir *f = dir == H2D ? &o->func[func].h2d : &o->func[func].d2h;
		f->bytes += bytes;
		f->transfers++;
		f->ns += ns;
	}
	o->charge_ns[seq <= o->nseq ? seq : o->nseq] += ns;
	if (o->each)
		o->each(o->each_arg, seq <= o->nseq ? seq : o->nseq, dir == H2D, bytes, ns);
}

static int by_place(const void *a, const void *b)
{
	const struct move *x = a, *y = b;

	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Is [LO, HI) of block B valid on both sides (so copying it over either side changes
 * nothing)? */
static int all_both(const struct sim *s, uint32_t b, uint64_t lo, uint64_t hi)
{
	const struct bmap *m = &s->map[b];

	for (size_t i = find(m, lo); lo < hi; i++) {
		if (i >= m->n || m->s[i].lo > lo || m->s[i].st != ST_BOTH)
			return 0;
		lo = m->s[i].hi;
	}
	return 1;
}

/* The group's moves: the contiguous ranges of one block in one direction are one
 * transfer, charged to the function of its first byte's move.  Ranges with a gap
 * between them are one transfer too where the gap is valid on both sides and moving it
 * costs less than another transfer (the link's latency): a port copies x whole, not the
 * 3,000 pieces of it a converging power iteration changed. */
static void flush(struct sim *s)
{
	if (s->nmv > 1)
		qsort(s->mv, s->nmv, sizeof(*s->mv), by_place);
	for (size_t i = 0, j; i < s->nmv; i = j) {
		const struct move *a = &s->mv[i];
		uint64_t hi = a->hi;
		for (j = i + 1; j < s->nmv && s->mv[j].dir == a->dir && s->mv[j].block == a->block;
		     j++) {
			const struct move *b = &s->mv[j];
			/* pessimistic (no map): one operand, one transfer, whatever its gaps */
			if (s->map && b->lo > hi &&
			    (!s->link ||
			     link_ns(s, a->dir, b->hi - a->lo) >
				     link_ns(s, a->dir, hi - a->lo) + link_ns(s, a->dir, b->hi - b->lo) ||
			     !all_both(s, a->block, hi, b->lo)))
				break;
			if (b->hi > hi)
				hi = b->hi;
		}
		transfer(s, a->dir, hi - a->lo, a->func, s->group_seq);
	}
	s->nmv = 0;
}

/* --- the events --- */

/* An accelerated call's read: the host bytes of [LO, HI) move h2d and become both. */
static int accel_read(struct sim *s, struct bmap *m, const struct resid_ev *e, int32_t func)
{
	uint64_t at = e->lo;
	size_t i = find(m, e->lo);
	/* the gaps between segments are the host bytes: collected first, set after */
	size_t first = s->nmv;

	for (; at < e->hi; i++) {
		uint64_t next = i < m->n && m->s[i].lo < e->hi ? m->s[i].lo : e->hi;
		if (next > at && add_move(s, e->block, at, next, H2D, func) != 0)
			return -1;
		if (i >= m->n || m->s[i].lo >= e->hi)
			break;
		at = m->s[i].hi;
	}
	for (size_t k = first; k < s->nmv; k++)
		if (map_set(m, s->mv[k].lo, s->mv[k].hi, ST_BOTH, -1) != 0)
			return -1;
	return 0;
}

/* A host access (or another call's read): the dev bytes of [LO, HI) move d2h and become
 * both. */
static int host_read(struct sim *s, struct bmap *m, uint32_t block, uint64_t lo, uint64_t hi)
{
	size_t first = s->nmv;

	for (size_t i = find(m, lo); i < m->n && m->s[i].lo < hi; i++)
		if (m->s[i].st == ST_DEV &&
		    add_move(s, block, m->s[i].lo > lo ? m->s[i].lo : lo,
			     m->s[i].hi < hi ? m->s[i].hi : hi, D2H, m->s[i].prod) != 0)
			return -1;
	for (size_t k = first; k < s->nmv; k++)
		if (map_set(m, s->mv[k].lo, s->mv[k].hi, ST_BOTH, -1) != 0)
			return -1;
	return 0;
}

/* A library's I/O inside call N (HOST_READ how DYL_HR_LIBIO, placed before call N + 1):
 * its dev bytes move d2h as for a host read.  Those that call N itself wrote stay dev:
 * the flow cannot say whether N wrote them before its I/O or after (a stdio-like buffer
 * that N flushes and refills); the others (an earlier call's) become both.  So a buffer
 * flushed whole at every wrap moves whole each time, and bytes an earlier call left are
 * not moved again by a later touch. */
static int library_io(struct sim *s, struct bmap *m, const struct resid_ev *e)
{
	if (host_read(s, m, e->block, e->lo, e->hi) != 0)
		return -1;
	flush(s);	/* (one transfer per I/O: the same bytes may move again at once) */
	if (!s->waccel || s->wseq + 1 != e->seq)
		return 0;
	for (size_t k = s->wlo; k < s->whi; k++) {
		const struct resid_ev *w = &s->ev->ev[k];
		uint64_t lo = w->lo > e->lo ? w->lo : e->lo, hi = w->hi < e->hi ? w->hi : e->hi;
		if (w->block == e->block && lo < hi &&
		    map_set(m, lo, hi, ST_DEV, s->ev->func[w->seq]) != 0)
			return -1;
	}
	return 0;
}

/* Group: 0 the host events before a call, 1 a call's reads, 2 its writes. */
static int group_of(const struct resid_ev *e)
{
	return e->kind == RESID_READ ? 1 : e->kind == RESID_WRITE ? 2 : 0;
}

static int event(struct sim *s, const struct resid_ev *e, int accel, enum resid_mode mode)
{
	const struct resid_events *ev = s->ev;
	/* (pessimistic mode has no map: no pointer into it either) */
	struct bmap *m = s->map ? &s->map[e->block] : NULL;
	int32_t func = e->seq < ev->nseq ? ev->func[e->seq] : -1;

	if (mode == RESID_PESSIMISTIC) {
		/* no state: an accelerated call moves what it reads and what it writes, each
		 * block it touches as one transfer from its first to its last byte touched (as
		 * NVBLAS moves each operand whole, once a call), not one per changed range */
		if (accel && (e->kind == RESID_READ || e->kind == RESID_WRITE))
			return add_move(s, e->block, e->lo, e->hi, e->kind == RESID_READ ? H2D : D2H, func);
		return 0;
	}
	switch (e->kind) {
	case RESID_READ:
		return accel ? accel_read(s, m, e, func) : host_read(s, m, e->block, e->lo, e->hi);
	case RESID_WRITE:
		return map_set(m, e->lo, e->hi, accel ? ST_DEV : 0, func);
	case RESID_HOST_WRITE:
		return map_set(m, e->lo, e->hi, 0, -1);
	case RESID_HOST_READ:
		if (mode != RESID_EXACT)
			return 0;
		return e->how == 2 ? library_io(s, m, e) : host_read(s, m, e->block, e->lo, e->hi);
	case RESID_FREE:
		m->n = 0;
		return 0;
	case RESID_RESIZE:
		/* a realloc that moved copies the kept bytes on the host: they come back */
		if (e->hi && host_read(s, m, e->block, 0, e->lo) != 0)
			return -1;
		return map_set(m, e->lo, UINT64_MAX, 0, -1);
	}
	return 0;
}

/* OUT's arrays for EV, zeroed (reused when they fit).  0, or -1. */
static int reset(const struct resid_events *ev, struct resid_result *out)
{
	if (!out->func || out->nfuncs != ev->nfuncs || out->nseq != ev->nseq) {
		resid_result_free(out);
		out->func = calloc((size_t)ev->nfuncs + 1, sizeof(*out->func));
		out->charge_ns = calloc(ev->nseq + 1, sizeof(*out->charge_ns));
		out->nfuncs = ev->nfuncs;
		out->nseq = ev->nseq;
		if (!out->func || !out->charge_ns)
			return -1;
	} else {
		memset(out->func, 0, (size_t)out->nfuncs * sizeof(*out->func));
		memset(out->charge_ns, 0, (ev->nseq + 1) * sizeof(*out->charge_ns));
	}
	memset(&out->h2d, 0, sizeof(out->h2d));
	memset(&out->d2h, 0, sizeof(out->d2h));
	return 0;
}

int resid_simulate(const struct resid_events *ev, const unsigned char *accel,
		   enum resid_mode mode, const struct link_model *link, struct resid_result *out)
{
	struct sim s = { .ev = ev, .link = link, .out = out };
	int rc = 0, group = -1;

	if (reset(ev, out) != 0)
		return -1;
	out->mode = mode;
	if (mode != RESID_PESSIMISTIC && ev->nblocks &&
	    !(s.map = calloc(ev->nblocks, sizeof(*s.map))))
		return -1;
	for (size_t i = 0; i < ev->n && rc == 0; i++) {
		const struct resid_ev *e = &ev->ev[i];
		int g = group_of(e);
		if (e->seq != s.group_seq || g != group) {
			flush(&s);
			s.group_seq = e->seq;
			group = g;
		}
		int acc = e->seq < ev->nseq && ev->func[e->seq] >= 0 && accel[e->seq];
		if (e->kind == RESID_WRITE) {	/* (the last call's writes: library_io) */
			if (e->seq != s.wseq || s.whi != i) {
				s.wlo = i;
				s.wseq = e->seq;
				s.waccel = acc;
			}
			s.whi = i + 1;
		}
		rc = event(&s, e, acc, mode);
	}
	flush(&s);
	for (uint32_t b = 0; s.map && b < ev->nblocks; b++)
		free(s.map[b].s);
	free(s.map);
	free(s.mv);
	return rc;
}

void resid_result_free(struct resid_result *out)
{
	free(out->func);
	free(out->charge_ns);
	out->func = NULL;
	out->charge_ns = NULL;
	out->nfuncs = 0;
	out->nseq = 0;
}

void resid_events_init(struct resid_events *ev)
{
	memset(ev, 0, sizeof(*ev));
}

void resid_events_free(struct resid_events *ev)
{
	free(ev->ev);
	free(ev->func);
	free(ev->tid);
	free(ev->t_start);
	free(ev->runs);
	resid_events_init(ev);
}
