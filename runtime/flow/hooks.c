/* hooks.c - std.flow's hooks and set-up: what is recorded, and when.  The events go to
 * the thread's buffer (buffers.c), in the words encode.h makes.
 *
 * Where events come from: the region table's hooks (regions.h): every heap block or
 * mapping added (ALLOC, with its site: sites.c) and removed (FREE); every charge of an
 * outermost call (one ACC per region and direction: the extents std.regions computed,
 * no second lookup; the first marks a new call); std.diff's looks (changed()); and
 * dyl_flow_call, from each wrapped call's prefix, for the outermost calls no charge
 * marked (no pointer argument).  The converter joins a thread's Nth call with its Nth
 * depth-0 row.
 *
 * Nothing is recorded while the runtime itself runs (dyl_busy): its own allocations are
 * no data of the program's, and a copy-out takes dyl_out.io, which it may hold.  The
 * files below (flow.h lists them) never call this one; follow.c, the option built on
 * it, registers its walk here (dyl_flow_follow_hook) instead of being called by name.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "flow.h"
#include "buffers.h"
#include "hostread.h"
#include "../regions/regions.h"
#include "../regions/unwind.h"

/* calls with more regions than the region table holds: the rest have no events (a '#'
 * line in the trace says how many) */
static uint64_t capped;
static TLS uintptr_t marked;	/* the call (its dyl_call) whose CALL a charge put */
void (*dyl_flow_follow_hook)(const struct dyl_groups *c);	/* follow.c's walk (flow.h) */

/* 1: record now (std.flow on, not re-entered, not the runtime's own work) */
static inline int recording(void)
{
	return dyl_flow.on && !dyl_flow_in && !dyl_busy;
}

static void put_call(void)
{
	uint64_t ev[1] = { DYL_RE_WORD(DYL_RE_CALL, 1, 0, 0) };
	dyl_flow_put(ev, 1);
}

/* the region table's hook: an outermost call's extents, grouped by region.  With
 * std.diff, writes are the bytes that changed (changed(), below), not the extents. */
static void charged(const struct dyl_groups *c)
{
	struct dyl_thread *t = dyl_self;
	struct fbuf *b;

	if (!recording() || !t || t->depth != 1)
		return;
	dyl_flow_in++;
	if (dyl_hostread_active())	/* host_reads=on: its arguments lifted, its outputs kept */
		dyl_hostread_charged(c);
	int diff = __atomic_load_n(&dyl_reg.diff_on, __ATOMIC_RELAXED);
	uint64_t *p = reserve(1 + 2 * ACC_MAX * c->ngroups);
	unsigned n = 0, first = DYL_REF_NEWCALL;
	if (!p)
		goto out;
	if ((b = dyl_flow_mine))
		b->ngroups = b->lastg = 0;
	if (c->in || c->out)	/* (regions past the table's: bytes without a region) */
		__atomic_fetch_add(&capped, 1, __ATOMIC_RELAXED);
	unsigned ngroups = dyl_flow_defs_take() ? 0 : c->ngroups;	/* defs.c */
	for (unsigned i = 0; i < ngroups; i++) {
		const struct dyl_group *g = &c->g[c->used[i]];
		struct fgroup f = { g->r, g->min_out, g->end_out, 0, 0 };
		if (f.r.kind == DYL_REGION_STACK)
			dyl_flow_frame_of(c, &g->r, &f.ip, &f.cfa);
		if (g->min_in != UINTPTR_MAX) {
			n += put_range(p + n, DYL_RE_ACC, &f, g->min_in, g->end_in, first);
			first = 0;
		}
		if (g->min_out != UINTPTR_MAX && !diff) {
			n += put_range(p + n, DYL_RE_ACC, &f, g->min_out, g->end_out, DYL_REF_W | first);
			first = 0;
		}
		if (diff && b && b->ngroups < FGROUPS)
			b->groups[b->ngroups++] = f;
	}
	if (first)	/* no access: the call alone */
		p[n++] = DYL_RE_WORD(DYL_RE_CALL, 1, 0, 0);
	/* a loop's calls often pass the same buffers, or two sets in turn: the same events
	 * as the thread's last call, or the one before, are one word */
	b = dyl_flow_mine;
	unsigned o = b->pcur ^ 1;
	if (first) {
		b->nprev[0] = b->nprev[1] = 0;
	} else if (b->nprev[b->pcur] == n && !memcmp(b->prev[b->pcur], p, n * 8)) {
		p[0] = DYL_RE_WORD(DYL_RE_CALL, 1, DYL_REF_REPEAT, 0);
		n = 1;
	} else if (b->nprev[o] == n && !memcmp(b->prev[o], p, n * 8)) {
		p[0] = DYL_RE_WORD(DYL_RE_CALL, 1, DYL_REF_REPEAT | DYL_REF_BEFORE, 0);
		n = 1;
		b->pcur = o;
	} else {
		b->pcur = o;
		b->nprev[o] = n <= PREV_MAX ? n : 0;
		if (n <= PREV_MAX)
			memcpy(b->prev[o], p, n * 8);
	}
	commit(n);
	void (*follow)(const struct dyl_groups *) =
		__atomic_load_n(&dyl_flow_follow_hook, __ATOMIC_RELAXED);
	if (follow)	/* follow=: the heap blocks its buffers' pointers reach (follow.c) */
		follow(c);
	marked = t->frames[0];
	((struct dyl_call *)t->frames[0])->flags |= DYL_CALL_FLOW_MARKED;
out:
	dyl_flow_in--;
}

/* A program's write std.diff found in a heap block none of the call's groups holds: a
 * --defs look at buffers its arguments do not reach (examples/jpeg-resid.defs looks at
 * libjpeg's rows before jpeg_write_scanlines, which take them through JSAMPARRAY).  It
 * is the program's write all the same: a HOST event, before the call's own events.
 * (dyl_table_find under std.diff's lock, as diff.c's alive() does.) */
static void changed_elsewhere(uintptr_t a, uintptr_t b, unsigned flags)
{
	struct fgroup g = { .min_out = UINTPTR_MAX };

	if (dyl_table_find(a, &g.r) <= 0 || g.r.kind != DYL_REGION_HEAP)
		return;
	if (b > g.r.end)
		b = g.r.end;
	uint64_t *p = reserve(ACC_MAX);
	if (p)
		commit(put_range(p, DYL_RE_HOST, &g, a, b, flags));
}

/* 1: the thread's outermost call has not put its mark yet: a look now is a --defs
 * prefix's, and the groups are the last call's */
static int before_mark(const struct dyl_thread *t)
{
	const struct dyl_call *c = (const struct dyl_call *)t->frames[0];
	return c && !(c->flags & DYL_CALL_FLOW_MARKED);
}

/* std.diff's hook: [A, B) of one of the current call's regions changed, before the
 * call (the program wrote it: HOST; in an output buffer, the call reads it too) or
 * during it (the call wrote it) */
static void changed(uintptr_t a, uintptr_t b, int after)
{
	struct fbuf *f = dyl_flow_mine;
	struct dyl_thread *t = dyl_self;

	if (!dyl_flow.on || dyl_flow_in || !f || !t || t->depth != 1)
		return;
	dyl_flow_in++;
	dyl_flow_diff_look = 1;	/* (std.diff's look holds dyl_busy: a window may be had here) */
	int hit = 0, ahead = !after && before_mark(t);
	for (unsigned k = 0; !ahead && k < f->ngroups; k++) {
		unsigned i = (f->lastg + k) % f->ngroups;
		const struct fgroup *g = &f->groups[i];
		if (a < g->r.start || a >= g->r.end)
			continue;
		f->lastg = i;
		hit = 1;
		if (b > g->r.end)
			b = g->r.end;
		uint64_t *p = reserve(2 * ACC_MAX);
		unsigned n = 0;
		if (!p)
			break;
		if (after) {
			n += put_range(p, DYL_RE_ACC, g, a, b, DYL_REF_W | DYL_REF_DIFF);
		} else {
			n += put_range(p, DYL_RE_HOST, g, a, b, 0);
			uintptr_t lo = a > g->min_out ? a : g->min_out, hi = b < g->end_out ? b : g->end_out;
			if (g->min_out != UINTPTR_MAX && lo < hi)
				n += put_range(p + n, DYL_RE_ACC, g, lo, hi, DYL_REF_DIFF);
		}
		commit(n);
		break;
	}
	if (!after && !hit)	/* (a prefix's: the next call's, DYL_REF_AHEAD) */
		changed_elsewhere(a, b, ahead ? DYL_REF_AHEAD : 0);
	dyl_flow_diff_look = 0;
	dyl_flow_in--;
}

void dyl_flow_call(const struct dyl_call *c)
{
	if (c->depth != 0)
		return;
	dyl_flow_defs_take();	/* defs.c: a call without a charge */
	((struct dyl_call *)c)->flags |= DYL_CALL_FLOW_MARKED;	/* (the wrapper's own local) */
	if (marked == (uintptr_t)c) {	/* the charge put its CALL */
		marked = 0;
		return;
	}
	if (!recording())
		return;
	dyl_flow_in++;
	put_call();
	dyl_flow_in--;
}

static void added(uintptr_t start, uint64_t n, uint64_t id, unsigned kind)
{
	if (!recording())
		return;
	dyl_flow_in++;
	unsigned flags = kind & DYL_REGION_REALLOC ? DYL_REF_REALLOC : 0;
	kind &= 0xff;
	if (kind == DYL_REGION_MMAP)
		dyl_flow_map_added(start, n, id);	/* maps.c: a file's path */
	uint64_t site = kind == DYL_REGION_HEAP || kind == DYL_REGION_MMAP ? dyl_flow_site() : UINT64_MAX;
	uint64_t *p = reserve(4);
	if (p) {
		p[0] = DYL_RE_WORD(DYL_RE_ALLOC, 4, flags | dyl_flow_obj_kind(kind) << 8,
				   site < UINT32_MAX ? site : UINT32_MAX);
		p[1] = id;
		p[2] = start;
		p[3] = n;
		commit(4);
	}
	dyl_flow_in--;
}

static void removed(uintptr_t start, uint64_t id)
{
	if (dyl_hostread_active())	/* (the allocator writes in the block: unprotected first) */
		dyl_hostread_freed(start, id);
	if (!recording())
		return;
	dyl_flow_in++;
	uint64_t *p = reserve(2);
	if (p) {
		p[0] = DYL_RE_WORD(DYL_RE_FREE, 2, 0, 0);
		p[1] = id;
		commit(2);
	}
	dyl_flow_in--;
}

/* dyl_hooks.flow_flush: every buffer's events into the spool (dyl_out.io held; a
 * window's are there already, but its copy says they were read) */
static void flush_all(void)
{
	if (dyl_hostread_active())	/* (an exec's arguments may be on protected pages) */
		dyl_hostread_lift_all();
	dyl_flow_copy_all();
}

/* The trace's lines of std.flow's caps, after its rows (dyl_out.io held, the trace open:
 * converted, from the conversion at exit). */
static void notes(void)
{
	char line[160];
	uint64_t n = __atomic_load_n(&capped, __ATOMIC_RELAXED);

	if (!n)
		return;
	int len = snprintf(line, sizeof(line), DYL_KEY_LINE(DYL_KEY_FLOW_CAPPED_CALLS)
			   "%llu (calls with more than "
			   "%u regions: the rest have no flow events)\n", (unsigned long long)n,
			   DYL_GROUPS * 3 / 4);
	dyl_trace_put(line, (size_t)len);
}

/* dyl_hooks.flow_converted: the trace's lines, then TRACE.flow (finish.c) */
static void converted(int fd, uint64_t size, uint64_t seq)
{
	notes();	/* (flow-speed: the calls past the region cap) */
	dyl_flow_write(fd, size, seq);
}

/* a forked child writes its own trace: the parent's events are not its own */
static void child_after_fork(void)
{
	dyl_flow_buffers_forked();
	marked = 0;
}

void dyl_flow_setup(void)
{
	if (__atomic_exchange_n(&dyl_flow.on, 1, __ATOMIC_ACQ_REL))
		return;	/* (another wrapper's constructor did) */
	dyl_flow_buffers_setup();	/* (its key: a thread's events copied out as it ends) */
	dyl_unwind_on();	/* sites: the call's return addresses */
	pthread_atfork(NULL, NULL, child_after_fork);
	dyl_flow_sites_setup();
	dyl_note(DYL_KEY_FLOW, "on");
	__atomic_store_n(&dyl_hooks.flow_flush, flush_all, __ATOMIC_RELAXED);
	__atomic_store_n(&dyl_hooks.flow_converted, converted, __ATOMIC_RELAXED);
	__atomic_store_n(&dyl_reg.hooks.charged, charged, __ATOMIC_RELAXED);
	__atomic_store_n(&dyl_reg.hooks.changed, changed, __ATOMIC_RELAXED);
	__atomic_store_n(&dyl_reg.hooks.removed, removed, __ATOMIC_RELAXED);
	__atomic_store_n(&dyl_reg.hooks.added, added, __ATOMIC_RELAXED);
}
