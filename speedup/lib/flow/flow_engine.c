/* flow_engine.c - see flow_engine.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "flow_engine.h"
#include "grow.h"

const char *const flow_kind_name[FLOW_KINDS] = { "heap", "static", "stack", "mapping" };

/* ids beyond these are refused rather than given arrays of that size */
#define MAX_ID (UINT32_C(1) << 28)
#define MAX_SEQ (UINT64_C(1) << 34)
/* how far a row's seq may run ahead of twice the rows before it (rows of calls still
 * open, written later, come after theirs) */
#define SEQ_SLACK 65536

static int fail(struct flow *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->err, sizeof(f->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int oom(struct flow *f)
{
	return fail(f, "out of memory");
}

void flow_init(struct flow *f)
{
	memset(f, 0, sizeof(*f));
}

/* A mapping of its own for a large call array, in huge pages where the kernel lends
 * them: fresh pages come zeroed, and 4 KiB pages cost a fault each (10,000 for a
 * million calls, 0.1 s of system time on a virtual machine). */
#define HUGE_MIN (UINT64_C(4) << 20)

static int map_calls(struct flow *f, size_t n)
{
	size_t bytes = n * sizeof(*f->call);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, MADV_HUGEPAGE);	/* a hint: without it, small pages */
#endif
	f->call = p;
	f->ncall_room = n;
	f->call_mapped = bytes;
	return 0;
}

/* Room for seqs below NEED: the mapped array moves to the heap when it must grow. */
static int need_calls(struct flow *f, size_t need)
{
	struct flow_call *c;

	if (need <= f->ncall_room)
		return 0;
	if (f->call_mapped) {
		size_t room = f->ncall_room * 2 > need ? f->ncall_room * 2 : need;
		if (!(c = calloc(room, sizeof(*c))))
			return -1;
		memcpy(c, f->call, f->ncall_room * sizeof(*c));
		munmap(f->call, f->call_mapped);
		f->call = c;
		f->ncall_room = room;
		f->call_mapped = 0;
		return 0;
	}
	return grow_to(&f->call, sizeof(*f->call), need, &f->ncall_room, 1024);
}

int flow_reserve(struct flow *f, uint64_t nseq)
{
	if (nseq >= MAX_SEQ)
		return fail(f, "%llu calls: too many", (unsigned long long)nseq);
	if (!f->call && (nseq + 1) * sizeof(*f->call) >= HUGE_MIN && map_calls(f, nseq + 1) == 0)
		return 0;
	if (!f->call && nseq) {
		/* calloc: fresh pages come zeroed, no memset over them */
		if (!(f->call = calloc(nseq + 1, sizeof(*f->call))))
			return oom(f);
		f->ncall_room = nseq + 1;
		return 0;
	}
	if (need_calls(f, nseq + 1) != 0)
		return oom(f);
	return 0;
}

static int need_node(struct flow *f, uint32_t node)
{
	if (node >= f->nnodes) {
		if (grow_to(&f->node, sizeof(*f->node), (size_t)node + 1, &f->node_room, 64) != 0)
			return oom(f);
		f->nnodes = (size_t)node + 1;
	}
	return 0;
}

int flow_call(struct flow *f, uint64_t seq, uint32_t node, uint32_t depth, uint64_t tid,
	      int64_t t_start, int64_t t_ns)
{
	struct flow_call *c;

	if (seq >= MAX_SEQ)
		return fail(f, "seq %llu too large", (unsigned long long)seq);
	/* seqs number the calls from 0 without gaps (doc/trace-format.md), so the array
	 * by seq grows with the rows read: a seq far beyond them sizes nothing */
	if (seq > 2 * f->ncalls + SEQ_SLACK)
		return fail(f, "seq %llu is far beyond the %llu rows before it (seqs number "
			    "the calls from 0, without gaps)", (unsigned long long)seq,
			    (unsigned long long)f->ncalls);
	f->ncalls++;
	if (need_calls(f, seq + 1) != 0)
		return oom(f);
	if (seq + 1 > f->max_seq)
		f->max_seq = seq + 1;
	c = &f->call[seq];
	(void)tid;	/* (threads do not change who wrote a byte last) */
	*c = (struct flow_call){ .t_start = t_start, .t_ns = t_ns, .node = depth ? 0 : node,
				 .depth = (uint16_t)(depth > UINT16_MAX ? UINT16_MAX : depth),
				 .known = 1 };
	if (depth == 0) {
		if (need_node(f, node) != 0)
			return -1;
		f->node[node].calls++;
		if (t_ns > 0)
			f->node[node].time_ns += t_ns;
	}
	return 0;
}

int flow_site(struct flow *f, uint32_t site, const char *text, size_t len)
{
	char *s;

	if (site >= MAX_ID)
		return fail(f, "site id %u too large", site);
	if (grow_to(&f->site, sizeof(*f->site), (size_t)site + 1, &f->site_room, 64) != 0)
		return oom(f);
	if (f->site[site])
		return fail(f, "site %u defined twice", site);
	if (!(s = strndup(text, len)))
		return oom(f);
	f->site[site] = s;
	return 0;
}

static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * UINT64_C(0x100000001b3);
	return h;
}

/* The object of KIND named NAME (LEN bytes), made if new: its index, or -1. */
static int64_t object_of(struct flow *f, uint32_t kind, const char *name, size_t len)
{
	uint64_t h = name_hash(name, len);
	int64_t i = fh_get(&f->object_by_name, h, kind);
	struct flow_object *o;

	if (i >= 0 && strlen(f->object[i].name) == len && memcmp(f->object[i].name, name, len) == 0)
		return i;
	if (i >= 0) {	/* two names, one 64-bit hash: look through them all */
		for (size_t k = 0; k < f->nobjects; k++)
			if (f->object[k].kind == kind && strlen(f->object[k].name) == len &&
			    memcmp(f->object[k].name, name, len) == 0)
				return (int64_t)k;
	}
	if (grow(&f->object, sizeof(*f->object), f->nobjects, &f->object_room, 64) != 0)
		return oom(f);
	o = &f->object[f->nobjects];
	*o = (struct flow_object){ .kind = kind };
	if (!(o->name = strndup(name, len)))
		return oom(f);
	if (i < 0 && fh_put(&f->object_by_name, h, kind, (uint32_t)f->nobjects) != 0) {
		free(o->name);
		return oom(f);
	}
	return (int64_t)f->nobjects++;
}

/* Pending writes are applied before anything that is not the same call's access. */
static int flush(struct flow *f);

int flow_object(struct flow *f, uint32_t id, uint32_t kind, uint64_t size, uint32_t site,
		const char *name, size_t len)
{
	struct flow_block *b;
	struct flow_object *o;
	int64_t obj;

	if (flush(f) != 0)
		return -1;
	if (kind >= FLOW_KINDS)
		return fail(f, "object %u: kind %u unknown", id, kind);
	if (id >= MAX_ID)
		return fail(f, "object id %u too large", id);
	if (kind == FLOW_HEAP && !name) {
		if (site >= f->site_room || !f->site[site])
			return fail(f, "object %u: site %u not defined", id, site);
		name = f->site[site];
		len = strlen(name);
	}
	if (grow_to(&f->block, sizeof(*f->block), (size_t)id + 1, &f->block_room, 256) != 0)
		return oom(f);
	b = &f->block[id];
	if (b->state == 1)
		return fail(f, "object %u defined twice (no FREE between)", id);
	if ((obj = object_of(f, kind, name, len)) < 0)
		return -1;
	b = &f->block[id];
	*b = (struct flow_block){ .size = size, .peak = size, .object = (uint32_t)obj, .state = 1 };
	o = &f->object[obj];
	o->blocks++;
	o->size += size;
	if (size > o->max_block)
		o->max_block = size;
	return 0;
}

static struct flow_block *live_block(struct flow *f, uint32_t id)
{
	if (id >= f->block_room || f->block[id].state == 0) {
		fail(f, "object %u not defined", id);
		return NULL;
	}
	if (f->block[id].state != 1) {
		fail(f, "object %u used after its FREE", id);
		return NULL;
	}
	return &f->block[id];
}

int flow_resize(struct flow *f, uint32_t id, uint64_t size, int moved)
{
	struct flow_block *b;
	struct flow_object *o;

	if (flush(f) != 0 || !(b = live_block(f, id)))
		return -1;
	o = &f->object[b->object];
	if (size < b->size) {	/* what was written past the new end was written */
		o->ever_written += ivmap_truncate(&b->writers, size);
		b->shrunk = 1;
	}
	b->size = size;
	if (size > b->peak) {
		o->size += size - b->peak;
		b->peak = size;
	}
	if (size > o->max_block)
		o->max_block = size;
	o->moves += moved != 0;
	return 0;
}

/* --- edges, links and the maps that hang off blocks --- */

/* The index of the pair (A, B) in an array of N items, found through a direct table
 * (*DIRECT: index + 1 at slot AT, TABSIZE slots, made on first use) when SMALL, else
 * through HASH.  A pair not there yet is given index N (*FRESH 1: the caller adds the
 * item).  Edges and links are both such arrays.  -1: out of memory (f->err). */
static int64_t pair_index(struct flow *f, int32_t **direct, size_t tabsize, int small, size_t at,
			  struct flow_hash *hash, uint32_t a, uint32_t b, size_t n, int *fresh)
{
	int64_t i;

	*fresh = 0;
	if (small && *direct && (*direct)[at])
		return (*direct)[at] - 1;
	if (!small && (i = fh_get(hash, a, b)) >= 0)
		return i;
	if (small && !*direct && !(*direct = calloc(tabsize, sizeof(int32_t)))) {
		oom(f);
		return -1;
	}
	if (!small && fh_put(hash, a, b, (uint32_t)n) != 0) {
		oom(f);
		return -1;
	}
	if (small)
		(*direct)[at] = (int32_t)n + 1;
	*fresh = 1;
	return (int64_t)n;
}

static struct flow_edge *edge(struct flow *f, uint32_t from, uint32_t to)
{
	int fresh;
	int64_t i = pair_index(f, &f->edge_direct, FLOW_EDGE_DIRECT * FLOW_EDGE_DIRECT,
			       from < FLOW_EDGE_DIRECT && to < FLOW_EDGE_DIRECT,
			       (size_t)from * FLOW_EDGE_DIRECT + to, &f->edge_by_pair, from, to,
			       f->nedges, &fresh);

	if (i < 0)
		return NULL;
	if (fresh) {
		if (grow(&f->edge, sizeof(*f->edge), f->nedges, &f->edge_room, 64) != 0) {
			oom(f);
			return NULL;
		}
		f->edge[f->nedges++] = (struct flow_edge){ .from = from, .to = to };
	}
	return &f->edge[i];
}

/* Every access asks for its link: small ids go through a direct table, as edges do. */
static struct flow_link *link_of(struct flow *f, uint32_t node, uint32_t object)
{
	int fresh;
	int64_t i = pair_index(f, &f->link_direct, FLOW_LINK_NODES * FLOW_LINK_OBJECTS,
			       node < FLOW_LINK_NODES && object < FLOW_LINK_OBJECTS,
			       (size_t)object * FLOW_LINK_NODES + node, &f->link_by_pair, node, object,
			       f->nlinks, &fresh);

	if (i < 0)
		return NULL;
	if (fresh) {
		if (grow(&f->link, sizeof(*f->link), f->nlinks, &f->link_room, 64) != 0) {
			oom(f);
			return NULL;
		}
		f->link[f->nlinks++] = (struct flow_link){ .node = node, .object = object };
	}
	return &f->link[i];
}

/* The block's maps are done with: unique bytes go to their edges, the maps are freed. */
static int drop_subs(struct flow *f, uint32_t id)
{
	struct subtab *u = &f->block[id].unique;

	for (uint32_t i = 0; u->mask && i <= u->mask; i++) {
		struct flow_edge *e;
		if (u->e[i].key == FS_EMPTY)
			continue;
		if (!(e = edge(f, (uint32_t)(u->e[i].key >> 32), (uint32_t)u->e[i].key)))
			return -1;
		e->unique += ivmap_covered(&u->e[i].map);
	}
	st_free(u);
	st_free(&f->block[id].reads);
	return 0;
}

/* --- reads and writes --- */

/* [*LO, *HI) cut to block B's size; the bytes cut off are counted.  0: nothing left. */
static int clip(struct flow *f, const struct flow_block *b, uint64_t *lo, uint64_t *hi)
{
	uint64_t l = *lo, h = *hi;

	if (h > b->size) {
		f->clipped_bytes += h - (l > b->size ? l : b->size);
		h = b->size;
	}
	if (l >= h)
		return 0;
	*lo = l;
	*hi = h;
	return 1;
}

/* Bytes [A, B) with write clock W: those consumer TO has not read since W (READS: its
 * read map of the block). */
static uint64_t fresh(const struct ivmap *reads, uint64_t a, uint64_t b, uint64_t w)
{
	uint64_t n = 0, pos = a;

	for (uint32_t k = ivmap_find(reads, a); k < reads->n && reads->seg[k].lo < b; k++) {
		const struct ivseg *s = &reads->seg[k];
		uint64_t lo = s->lo > pos ? s->lo : pos, hi = s->hi < b ? s->hi : b;
		n += lo - pos;			/* a gap: never read */
		if (s->when < w)
			n += hi - lo;		/* read before the write */
		pos = hi;
	}
	return n + (b - pos);
}

/* One piece of a read: bytes [A, B) of block ID, last written by FROM at clock W;
 * READS: the index of the consumer's read map of the block. */
static int read_piece(struct flow *f, uint32_t id, const struct ivmap *reads, uint32_t from,
		      uint32_t to, uint64_t a, uint64_t b, uint64_t w)
{
	struct flow_edge *e = edge(f, from, to);
	struct ivmap *u;
	uint64_t n;

	if (!e)
		return -1;
	e->bytes += b - a;
	n = fresh(reads, a, b, w);
	e->fresh += n;
	/* None fresh: TO read every byte since FROM wrote it at W, and that read put it in
	 * the pair's unique map already.  Not so for a gap of a block cut shorter once: a
	 * byte there may have had a writer when TO read it. */
	if (n == 0 && (w > 0 || !f->block[id].shrunk))
		return 0;
	if (!(u = st_get(&f->block[id].unique, (uint64_t)from << 32 | to)) ||
	    ivmap_set(u, a, b, 0, 0) != 0)
		return oom(f);
	return 0;
}

/* Consumer TO (a function, or the program) reads [LO, HI) of block ID at clock NOW.
 * The pieces are the writers map's segments and the gaps between them (the program's,
 * never written: clock 0); each segment read is marked, for Prod %.  A segment is cut
 * at LO or HI only when it is not marked yet (a part of it read, the rest not): cut
 * marked segments would only make more pieces, call after call. */
static int do_read(struct flow *f, uint32_t id, uint32_t to, uint64_t lo, uint64_t hi,
		   uint64_t now)
{
	struct flow_block *b = &f->block[id];
	struct ivmap *w = &b->writers, *reads;
	struct flow_object *o = &f->object[b->object];
	uint32_t i, k;
	uint64_t pos = lo;

	if (!(reads = st_get(&b->reads, to)))
		return oom(f);
	i = ivmap_find(w, lo);
	if (i < w->n && w->seg[i].lo < lo && !(w->seg[i].who & IV_READ)) {
		int64_t c = ivmap_cut(w, lo);
		if (c < 0)
			return oom(f);
		i = (uint32_t)c;
	}
	k = ivmap_find(w, hi);
	if (k < w->n && w->seg[k].lo < hi && !(w->seg[k].who & IV_READ) && ivmap_cut(w, hi) < 0)
		return oom(f);
	for (k = i; k < w->n && w->seg[k].lo < hi; k++) {
		struct ivseg *s = &w->seg[k];
		uint32_t from = (uint32_t)(s->who & ~IV_READ);
		uint64_t a = s->lo > lo ? s->lo : lo, e = s->hi < hi ? s->hi : hi;
		if (pos < a && read_piece(f, id, reads, FLOW_HOST, to, pos, a, 0) != 0)
			return -1;
		if (read_piece(f, id, reads, from, to, a, e, s->when) != 0)
			return -1;
		if (!(s->who & IV_READ)) {	/* (it lies inside [lo, hi): cut above) */
			s->who |= IV_READ;
			if (from != FLOW_HOST)
				o->used += s->hi - s->lo;
		}
		pos = e;
	}
	if (pos < hi && read_piece(f, id, reads, FLOW_HOST, to, pos, hi, 0) != 0)
		return -1;
	if (ivmap_set(reads, lo, hi, 0, now) != 0)
		return oom(f);
	return 0;
}

static int do_write(struct flow *f, uint32_t id, uint32_t from, uint64_t lo, uint64_t hi,
		    uint64_t now)
{
	if (ivmap_set(&f->block[id].writers, lo, hi, from, now) != 0)
		return oom(f);
	return 0;
}

static int flush(struct flow *f)
{
	struct flow_call *c;

	if (!f->in_call)
		return 0;
	f->in_call = 0;
	if (!f->npend)
		return 0;
	c = &f->call[f->cur_seq];
	f->clock++;
	for (size_t i = 0; i < f->npend; i++) {
		struct flow_pending *p = &f->pend[i];
		struct flow_block *b = &f->block[p->block];
		struct flow_object *o;
		struct flow_link *l;
		uint64_t n;
		if (b->state != 1)	/* freed by... nothing comes between; defensive */
			continue;
		if (!clip(f, b, &p->lo, &p->hi))
			continue;
		n = p->hi - p->lo;
		o = &f->object[b->object];
		o->call_written += n;
		o->produced += n;
		c->written += n;
		f->node[c->node].written += n;
		if (!(l = link_of(f, c->node, b->object)))
			return -1;
		l->written += n;
		if (do_write(f, p->block, c->node, p->lo, p->hi, f->clock) != 0)
			return -1;
	}
	f->npend = 0;
	return 0;
}

int flow_access(struct flow *f, uint64_t seq, uint32_t id, int write, uint64_t lo, uint64_t hi)
{
	struct flow_call *c;
	struct flow_block *b;
	struct flow_object *o;
	struct flow_link *l;
	uint64_t n;

	if (hi < lo)
		return fail(f, "range [%llu, %llu) ends before it starts", (unsigned long long)lo,
			    (unsigned long long)hi);
	if (seq >= f->max_seq || !f->call[seq].known)
		return fail(f, "seq %llu is no call of the trace", (unsigned long long)seq);
	if (!f->in_call || f->cur_seq != seq) {
		if (flush(f) != 0)
			return -1;
		f->in_call = 1;
		f->cur_seq = seq;
		f->clock++;	/* this call's reads */
	}
	if (!(b = live_block(f, id)))
		return -1;
	c = &f->call[seq];
	if (c->depth) {
		f->nested_events++;
		return 0;
	}
	if (write) {
		if (grow(&f->pend, sizeof(*f->pend), f->npend, &f->pend_room, 16) != 0)
			return oom(f);
		f->pend[f->npend++] = (struct flow_pending){ id, lo, hi };
		return 0;
	}
	if (!clip(f, b, &lo, &hi))
		return 0;
	n = hi - lo;
	o = &f->object[b->object];
	o->call_read += n;
	c->read += n;
	f->node[c->node].read += n;
	if (!(l = link_of(f, c->node, b->object)))
		return -1;
	l->read += n;
	return do_read(f, id, c->node, lo, hi, f->clock);
}

int flow_host(struct flow *f, uint32_t id, int write, uint64_t lo, uint64_t hi)
{
	struct flow_block *b;
	struct flow_object *o;
	struct flow_link *l;
	uint64_t n;

	if (hi < lo)
		return fail(f, "range [%llu, %llu) ends before it starts", (unsigned long long)lo,
			    (unsigned long long)hi);
	if (flush(f) != 0 || !(b = live_block(f, id)))
		return -1;
	if (!clip(f, b, &lo, &hi))
		return 0;
	if (need_node(f, FLOW_HOST) != 0)
		return -1;
	n = hi - lo;
	o = &f->object[b->object];
	if (!(l = link_of(f, FLOW_HOST, b->object)))
		return -1;
	f->clock++;
	if (write) {
		o->host_written += n;
		l->written += n;
		f->node[FLOW_HOST].written += n;
		return do_write(f, id, FLOW_HOST, lo, hi, f->clock);
	}
	o->host_read += n;
	l->read += n;
	f->node[FLOW_HOST].read += n;
	return do_read(f, id, FLOW_HOST, lo, hi, f->clock);
}

/* Block ID's written bytes and unique maps are counted, its maps freed. */
static int retire(struct flow *f, uint32_t id)
{
	struct flow_block *b = &f->block[id];

	f->object[b->object].ever_written += ivmap_covered(&b->writers);
	ivmap_free(&b->writers);
	return drop_subs(f, id);
}

int flow_release(struct flow *f, uint32_t id)
{
	if (flush(f) != 0 || !live_block(f, id))
		return -1;
	if (retire(f, id) != 0)
		return -1;
	f->block[id].state = 2;
	return 0;
}

int flow_finish(struct flow *f)
{
	if (flush(f) != 0 || need_node(f, FLOW_HOST) != 0)
		return -1;
	for (size_t id = 0; id < f->block_room; id++)
		if (f->block[id].state == 1) {
			if (retire(f, (uint32_t)id) != 0)
				return -1;
			f->block[id].state = 2;
		}
	return 0;
}

void flow_free_all(struct flow *f)
{
	for (size_t i = 0; i < f->site_room; i++)
		free(f->site[i]);
	for (size_t i = 0; i < f->nobjects; i++)
		free(f->object[i].name);
	for (size_t i = 0; i < f->block_room; i++)
		ivmap_free(&f->block[i].writers);
	for (size_t i = 0; i < f->block_room; i++) {
		st_free(&f->block[i].reads);
		st_free(&f->block[i].unique);
	}
	if (f->call_mapped)
		munmap(f->call, f->call_mapped);
	else
		free(f->call);
	free(f->node);
	free(f->site);
	free(f->object);
	free(f->block);
	free(f->edge);
	free(f->edge_direct);
	free(f->link);
	free(f->link_direct);
	free(f->pend);
	fh_free(&f->object_by_name);
	fh_free(&f->edge_by_pair);
	fh_free(&f->link_by_pair);
	memset(f, 0, sizeof(*f));
}
