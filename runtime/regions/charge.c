/* charge.c - the fast method (paper, section IV.C.1): each pointer argument is charged
 * from itself to the end of the region it points into, or to the end of its bound (a
 * length argument the generator paired with it, lengths.py): a piece of a big buffer
 * is charged the piece.
 *
 * Pointers into one region count once, from the lowest of them (the union of their
 * ranges); const pointers are input, the others output, each class on its own (a
 * region passed through a const and a non-const pointer, e.g. A and C of a product
 * carved out of one block, gives input from the const pointer and output from the other).
 * A pointer to pointers (char **, libjpeg's JSAMPARRAY) is followed: its elements, up to
 * the first that lies in no known region, are charged as pointers too.  Pointers into no
 * known region (NULL, a function) count nothing.  A pointer into another thread's stack
 * is charged up to the top of that thread's frames (stackframe.c says why).
 *
 * A char pointer into read-only static data that no symbol covers points into a string
 * literal (compilers emit them nameless, in .rodata): it is charged the string, up to
 * its NUL, not the literals after it up to the next symbol.  Other nameless read-only
 * data (a compound literal, the local arrays of a stripped object) has no extent to be
 * read there: the next symbol or the section's end stays the (upper) bound.
 */
#define _GNU_SOURCE
#include <string.h>
#include "regions.h"

#define FOLLOW_MAX (1u << 20)	/* elements of one pointer array */
#define STRING_BACK 4096	/* how far back a string literal's start is looked for */

/* per thread (a grouping's 12 KiB should not land on a signal handler's small stack);
 * busy: a signal handler interrupted this thread's grouping and must not reuse it */
static TLS struct dyl_groups scratch;
static TLS int busy;

/* 1: found; 0: in no known region; -1: the table cannot be used now */
static int locate(struct dyl_groups *c, uintptr_t p, uintptr_t maxp, struct dyl_region *r)
{
	if (!p)
		return 0;
	if (c->have_stack && p >= c->stack_lo && p < c->stack_hi)
		return dyl_stack_frame(p, maxp, &c->fr, r);
	int found = dyl_table_find(p, r);
	if (!found)
		found = dyl_static_find(p, r);
	return found ? found : dyl_stack_other(p, r);
}

/* R: the string literal P points into, [its start, its NUL], within the gap R was (the
 * start: the byte after the NUL before P, so that pointers into one string share it) */
static void string_literal(uintptr_t p, struct dyl_region *r)
{
	const char *s = (const char *)p;
	const char *nul = memchr(s, 0, r->end - p);
	uintptr_t lo = p - r->start < STRING_BACK ? r->start : p - STRING_BACK, a = p;

	while (a > lo && *(const char *)(a - 1))
		a--;
	if (a == lo && a != r->start)
		a = p;	/* no NUL in reach: from P */
	r->start = a;
	if (nul)
		r->end = (uintptr_t)nul + 1;
}

/* where the buffer at P (in R) ends: its bound, clipped to the region */
static uintptr_t end_of(uintptr_t p, const struct dyl_region *r, const struct dyl_rarg *a)
{
	if (!(a->flags & DYL_RA_BOUNDED) || a->bound >= r->end - p)
		return r->end;
	return p + a->bound;
}

/* P's end in a frame whose variables are not known (R: DYL_REGION_GUESS, the frame's
 * data up to END): the variables of a frame do not overlap, so the buffer at P ends at
 * or before the next argument of the call that points higher into the frame (were both
 * in one variable, the group's union still covers it: see add()).  The highest one in
 * the frame: a Fortran routine's number (DYL_RA_SCALAR: f2py's &info, &n) is its own
 * element; anything else, up to END. */
static uintptr_t frame_end(uintptr_t p, uintptr_t end, const struct dyl_region *r,
			   const struct dyl_rarg *args, unsigned n, unsigned i)
{
	uintptr_t next = end;

	for (unsigned j = 0; j < n; j++) {
		uintptr_t q = (uintptr_t)args[j].p;
		if (q > p && q < next && q >= r->start)
			next = q;
	}
	if (next == end && next == r->end && (args[i].flags & DYL_RA_SCALAR) &&
	    args[i].bound > 0 && args[i].bound < end - p)
		next = p + args[i].bound;
	return next;
}

static void add(struct dyl_groups *c, uintptr_t p, uintptr_t end, const struct dyl_region *r, int is_const)
{
	/* a small open-addressing set keyed by the region's start */
	unsigned i = (unsigned)((r->start * 0x9E3779B97F4A7C15ull) >> 56) % DYL_GROUPS;

	for (unsigned probes = 0; probes < DYL_GROUPS; probes++, i = (i + 1) % DYL_GROUPS) {
		struct dyl_group *g = &c->g[i];
		if (g->r.end == 0) {
			if (c->ngroups >= DYL_GROUPS * 3 / 4)
				break;
			*g = (struct dyl_group){ *r, UINTPTR_MAX, UINTPTR_MAX, 0, 0 };
			c->used[c->ngroups++] = (uint16_t)i;
		} else if (g->r.start != r->start || g->r.end != r->end) {
			continue;
		}
		uintptr_t *m = is_const ? &g->min_in : &g->min_out;
		uintptr_t *e = is_const ? &g->end_in : &g->end_out;
		if (p < *m)
			*m = p;
		if (end > *e)
			*e = end;
		return;
	}
	/* too many distinct regions: the rest are counted as they come */
	*(is_const ? &c->in : &c->out) += (int64_t)(end - p);
}

/* the elements of the pointer array [P, END) (in region R), up to the first that lies
 * in no known region; each to its region's end (an element has no length of its own) */
static void follow(struct dyl_groups *c, uintptr_t p, uintptr_t end, const struct dyl_region *r,
		   int inner_const, uintptr_t maxp)
{
	struct dyl_region e;

	/* a mapping may be unreadable (PROT_NONE, a guard) and is not read */
	if (r->kind == DYL_REGION_MMAP || (p & (sizeof(void *) - 1)))
		return;
	unsigned n = 0;
	for (uintptr_t q = p; q + sizeof(void *) <= end && n < FOLLOW_MAX; q += sizeof(void *), n++) {
		uintptr_t elem = *(const uintptr_t *)q;
		int found = locate(c, elem, maxp, &e);
		if (found < 0)
			c->incomplete = 1;
		if (found <= 0)
			break;
		add(c, elem, e.end, &e, inner_const);
	}
}

struct dyl_groups *dyl_groups_collect(const struct dyl_rarg *args, unsigned n)
{
	struct dyl_groups *c = &scratch;
	struct dyl_region r;
	uintptr_t maxp = 0;
	uint64_t unknown = 0;

	if (busy)
		return NULL;
	busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->ngroups = 0;
	c->in = 0;
	c->out = 0;
	c->fr.checked = 0;	/* (the last call's frames are kept: they may be this one's) */
	c->incomplete = 0;
	c->have_stack = dyl_stack_bounds(&c->stack_lo, &c->stack_hi);
	/* unwind only as far as the highest stack argument */
	for (unsigned i = 0; i < n; i++) {
		uintptr_t p = (uintptr_t)args[i].p;
		if (c->have_stack && p >= c->stack_lo && p < c->stack_hi && p > maxp)
			maxp = p;
	}
	for (unsigned i = 0; i < n; i++) {
		uintptr_t p = (uintptr_t)args[i].p;
		int found = locate(c, p, maxp, &r);
		if (found < 0)
			c->incomplete = 1;
		if (found <= 0) {
			unknown += p != 0 && found == 0;
			continue;
		}
		if ((args[i].flags & DYL_RA_CHAR) && (r.flags & DYL_REGION_UNNAMED))
			string_literal(p, &r);
		uintptr_t end = end_of(p, &r, &args[i]);
		if (r.kind == DYL_REGION_STACK && (r.flags & DYL_REGION_GUESS))
			end = frame_end(p, end, &r, args, n, i);
		add(c, p, end, &r, args[i].flags & DYL_RA_CONST);
		if (args[i].flags & DYL_RA_FOLLOW)
			follow(c, p, end, &r, !!(args[i].flags & DYL_RA_INNER_CONST), maxp);
	}
	__atomic_fetch_add(&dyl_reg.pointers, n, __ATOMIC_RELAXED);
	if (unknown)
		__atomic_fetch_add(&dyl_reg.unknown, unknown, __ATOMIC_RELAXED);
	return c;
}

void dyl_groups_release(struct dyl_groups *c)
{
	for (unsigned i = 0; i < c->ngroups; i++)
		c->g[c->used[i]].r.end = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	busy = 0;
}

void dyl_regions_charge(const struct dyl_rarg *args, unsigned n, int64_t scalar_bytes,
			int64_t *in, int64_t *out)
{
	struct dyl_groups *c = dyl_groups_collect(args, n);

	if (!c)
		return;
	int64_t total_in = scalar_bytes + c->in, total_out = c->out;
	for (unsigned i = 0; i < c->ngroups; i++) {
		const struct dyl_group *g = &c->g[c->used[i]];
		if (g->min_in != UINTPTR_MAX)
			total_in += (int64_t)(g->end_in - g->min_in);
		if (g->min_out != UINTPTR_MAX)
			total_out += (int64_t)(g->end_out - g->min_out);
	}
	if (!c->incomplete) {
		*in = total_in;
		*out = total_out;
	}
	void (*charged)(const struct dyl_groups *) = __atomic_load_n(&dyl_reg.hooks.charged, __ATOMIC_RELAXED);
	if (charged)	/* std.flow: this call's extents */
		charged(c);
	dyl_groups_release(c);
}
