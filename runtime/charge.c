/* charge.c - the fast method (paper, section IV.C.1): each pointer argument is charged
 * from itself to the end of the region it points into.
 *
 * Pointers into one region count once, from the lowest of them (the union of their
 * ranges); const pointers are input, the others output, each class on its own (a
 * region passed through a const and a non-const pointer, e.g. A and C of a product
 * carved out of one block, gives input from the const pointer and output from the other).
 * A pointer to pointers (char **, libjpeg's JSAMPARRAY) is followed: its elements, up to
 * the first that lies in no known region, are charged as pointers too.  Pointers into no
 * known region (NULL, a function) count nothing.  A pointer into another thread's stack
 * is charged up to the top of that thread's frames (stackframe.c says why).
 */
#define _GNU_SOURCE
#include "regions.h"

#define GROUPS 256		/* distinct regions per call with deduplication */
#define FOLLOW_MAX (1u << 20)	/* elements of one pointer array */

struct group {
	uintptr_t start, end;
	uintptr_t min_in, min_out;	/* UINTPTR_MAX: no pointer of that class */
};

struct charge {
	struct dyl_frames fr;
	uintptr_t stack_lo, stack_hi;
	int have_stack;
	int incomplete;		/* some pointer could not be looked up: no estimate */
	unsigned ngroups;
	int64_t in, out;	/* regions past GROUPS, counted without deduplication */
	struct group g[GROUPS];	/* empty (end 0) between calls: only used ones are cleared */
	uint16_t used[GROUPS];
};

/* per thread (a charge's 8 KiB should not land on a signal handler's small stack); busy:
 * a signal handler interrupted this thread's charge and must not reuse it */
static TLS struct charge scratch;
static TLS int busy;

/* 1: found; 0: in no known region; -1: the table cannot be used now */
static int locate(struct charge *c, uintptr_t p, uintptr_t maxp, struct dyl_region *r)
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

static void add(struct charge *c, uintptr_t p, const struct dyl_region *r, int is_const)
{
	/* a small open-addressing set keyed by the region's start */
	unsigned i = (unsigned)((r->start * 0x9E3779B97F4A7C15ull) >> 56) % GROUPS;

	for (unsigned probes = 0; probes < GROUPS; probes++, i = (i + 1) % GROUPS) {
		struct group *g = &c->g[i];
		if (g->end == 0) {
			if (c->ngroups >= GROUPS * 3 / 4)
				break;
			*g = (struct group){ r->start, r->end, UINTPTR_MAX, UINTPTR_MAX };
			c->used[c->ngroups++] = (uint16_t)i;
		} else if (g->start != r->start || g->end != r->end) {
			continue;
		}
		uintptr_t *m = is_const ? &g->min_in : &g->min_out;
		if (p < *m)
			*m = p;
		return;
	}
	/* too many distinct regions: the rest are counted as they come */
	*(is_const ? &c->in : &c->out) += (int64_t)(r->end - p);
}

/* the elements of the pointer array at P (in region R), up to the first that lies in
 * no known region */
static void follow(struct charge *c, uintptr_t p, const struct dyl_region *r, int inner_const,
		   uintptr_t maxp)
{
	struct dyl_region e;

	/* a mapping may be unreadable (PROT_NONE, a guard) and is not read */
	if (r->kind == DYL_REGION_MMAP || (p & (sizeof(void *) - 1)))
		return;
	unsigned n = 0;
	for (uintptr_t q = p; q + sizeof(void *) <= r->end && n < FOLLOW_MAX; q += sizeof(void *), n++) {
		uintptr_t elem = *(const uintptr_t *)q;
		int found = locate(c, elem, maxp, &e);
		if (found < 0)
			c->incomplete = 1;
		if (found <= 0)
			break;
		add(c, elem, &e, inner_const);
	}
}

void dyl_regions_charge(const struct dyl_rarg *args, unsigned n, int64_t scalar_bytes,
			int64_t *in, int64_t *out)
{
	struct charge *c = &scratch;
	struct dyl_region r;
	uintptr_t maxp = 0;
	uint64_t unknown = 0;

	if (busy)
		return;
	busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->ngroups = 0;
	c->in = scalar_bytes;
	c->out = 0;
	c->fr.n = -1;
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
		add(c, p, &r, args[i].flags & DYL_RA_CONST);
		if (args[i].flags & DYL_RA_FOLLOW)
			follow(c, p, &r, !!(args[i].flags & DYL_RA_INNER_CONST), maxp);
	}
	int64_t total_in = c->in, total_out = c->out;
	for (unsigned i = 0; i < c->ngroups; i++) {
		struct group *g = &c->g[c->used[i]];
		if (g->min_in != UINTPTR_MAX)
			total_in += (int64_t)(g->end - g->min_in);
		if (g->min_out != UINTPTR_MAX)
			total_out += (int64_t)(g->end - g->min_out);
		g->end = 0;
	}
	if (!c->incomplete) {
		*in = total_in;
		*out = total_out;
	}
	__atomic_fetch_add(&dyl_reg.pointers, n, __ATOMIC_RELAXED);
	if (unknown)
		__atomic_fetch_add(&dyl_reg.unknown, unknown, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	busy = 0;
}
