/* encode.h - the words of std.flow's events (runtime/format/dyl_flow.h's layout): the
 * TRACE.flow kind of a region, a range of a region as an event's words, and the frame
 * of a stack region.  Inline: the region table's hooks (hooks.c) encode at every call and
 * malloc; defs.c and hostread.c encode their events the same way.  Nothing here is
 * exported, and nothing here has state. */
#ifndef DYL_FLOW_ENCODE_H
#define DYL_FLOW_ENCODE_H

#include <stdint.h>
#include "dyl_flow.h"
#include "../regions/regions.h"

/* a region of the current outermost call (std.diff's changes are told by address) */
struct fgroup {
	struct dyl_region r;
	uintptr_t min_out, end_out;	/* its output buffer (min_out UINTPTR_MAX: none) */
	uintptr_t ip, cfa;	/* a stack region's frame */
};

/* the TRACE.flow kind (DYL_OBJ_*) of a region of kind DYL_REGION_* */
static inline unsigned dyl_flow_obj_kind(uint32_t region_kind)
{
	switch (region_kind) {
	case DYL_REGION_HEAP: return DYL_OBJ_HEAP;
	case DYL_REGION_MMAP: return DYL_OBJ_MAPPING;
	case DYL_REGION_STATIC: return DYL_OBJ_STATIC;
	default: return DYL_OBJ_STACK;
	}
}

/* the frame holding stack region R: its function (a return address) and CFA name a
 * variable at exit (0, 0: not known) */
static inline void dyl_flow_frame_of(const struct dyl_groups *c, const struct dyl_region *r, uintptr_t *ip,
				     uintptr_t *cfa)
{
	const struct dyl_frames *fr = &c->fr;

	*ip = *cfa = 0;
	for (int i = 0; fr->checked && i + 1 < fr->n; i++)
		if (fr->sp[i] <= r->start && r->start < fr->sp[i + 1]) {
			*ip = fr->ip[i];
			*cfa = fr->sp[i + 1];
			return;
		}
}

/* an event on [LO, HI) of G's region, ACC (TYPE DYL_RE_ACC) or HOST, at P (room for
 * ACC_MAX words): its words (dyl_flow.h: heap blocks and mappings by id,
 * statics by extent, stack objects by extent and frame) */
#define ACC_MAX 7
static inline unsigned put_range(uint64_t *p, uint32_t type, const struct fgroup *g, uintptr_t lo,
				 uintptr_t hi, unsigned flags)
{
	unsigned kind = dyl_flow_obj_kind(g->r.kind);

	if (kind == DYL_OBJ_HEAP || kind == DYL_OBJ_MAPPING) {
		uint64_t l = lo - g->r.start, h = hi - g->r.start;
		/* half the bytes (the spool's cost); ACC and HOST only: the converter unpacks
		 * those (runtime/format/flowconv.c unpack), other types keep the long form */
		if ((type == DYL_RE_ACC || type == DYL_RE_HOST) && !((g->r.id | l | h) >> 32)) {
			p[0] = DYL_RE_WORD(type, 2, flags | DYL_REF_PACKED | kind << 8, g->r.id);
			p[1] = l | h << 32;
			return 2;
		}
		p[0] = DYL_RE_WORD(type, 4, flags, kind);
		p[1] = g->r.id;
		p[2] = lo - g->r.start;
		p[3] = hi - g->r.start;
		return 4;
	}
	unsigned words = kind == DYL_OBJ_STACK ? 7 : 5;
	p[0] = DYL_RE_WORD(type, words, flags, kind);
	p[1] = g->r.start;
	p[2] = g->r.end;
	p[3] = lo - g->r.start;
	p[4] = hi - g->r.start;
	p[5] = g->ip;
	p[6] = g->cfa;
	return words;
}

#endif
