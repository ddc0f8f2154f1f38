/* defs.c - a call's flow extents given by --defs code, where std.regions cannot see them.
 *
 * std.regions charges a pointer from where it points to its region's end, in the
 * direction its const says.  Some interfaces hide the buffers from that: zlib's deflate
 * takes a z_stream whose next_in and next_out fields point to the data, and libjpeg's
 * jpeg_write_scanlines takes rows through a non-const JSAMPARRAY it only reads.  A
 * --defs file knows better (avail_in before and after the call, next_scanline); with
 * these calls it says so to std.flow:
 *
 *   prefix:  dyl_flow_own();                 the call's std.regions extents are dropped
 *   postfix: dyl_flow_reads(p, n);           the call read [p, p + n)
 *            dyl_flow_writes(p, n);          the call wrote [p, p + n)
 *
 * Only outermost calls count (a nested call's bytes are its outer call's).  The events
 * are ACC events of the call being made (no new-call flag: the charge or dyl_flow_call
 * put the call's mark before them), flagged exact (DYL_REF_DIFF), so that a later
 * call's REPEAT does not copy them: the runtime's repeat compares only the charge's
 * events.  Without std.flow in the process they do nothing.  A pointer in no known
 * region is ignored; a range past its region's end is cut there.
 */
#include <stdint.h>
#include "flow.h"
#include "encode.h"
#include "hostread.h"
#include "../regions/regions.h"

static TLS int own;	/* the current outermost call's extents come from --defs */

/* 1: an outermost call is being made on this thread, std.flow on, not the runtime */
static int outermost(void)
{
	const struct dyl_thread *t = dyl_self;

	return t && t->depth == 1 && !dyl_busy &&
	       __atomic_load_n(&dyl_reg.hooks.charged, __ATOMIC_RELAXED) != NULL;
}

void dyl_flow_own(void)
{
	if (outermost())
		own = 1;
}

/* hooks.c's charge and dyl_flow_call: 1 when the call's own extents are to be dropped;
 * clears the mark (a call without a charge must not leave it to the next) */
int dyl_flow_defs_take(void)
{
	int was = own;

	own = 0;
	return was;
}

static void put(const void *p, uint64_t n, unsigned flags)
{
	struct dyl_region r;
	uint64_t ev[7];
	unsigned words;

	if (!n || !outermost() || !dyl_region_find(p, &r))
		return;
	uintptr_t lo = (uintptr_t)p, hi = r.end - lo < n ? r.end : lo + n;
	unsigned kind = dyl_flow_obj_kind(r.kind);
	if (kind == DYL_OBJ_HEAP || kind == DYL_OBJ_MAPPING) {
		words = 4;
		ev[1] = r.id;
		ev[2] = lo - r.start;
		ev[3] = hi - r.start;
	} else {
		/* statics and stacks by extent; a stack's frame is not known here (0, 0):
		 * the reader names it by its function's frame, not by a variable */
		words = kind == DYL_OBJ_STACK ? 7 : 5;
		ev[1] = r.start;
		ev[2] = r.end;
		ev[3] = lo - r.start;
		ev[4] = hi - r.start;
		ev[5] = ev[6] = 0;
	}
	ev[0] = DYL_RE_WORD(DYL_RE_ACC, words, flags | DYL_REF_DIFF, kind);
	dyl_flow_put(ev, words);
	if ((flags & DYL_REF_W) && dyl_hostread_active())	/* (host_reads=on: watched too) */
		dyl_hostread_defs_out(&r, lo, hi);
}

void dyl_flow_reads(const void *p, uint64_t n)
{
	put(p, n, 0);
}

void dyl_flow_writes(const void *p, uint64_t n)
{
	put(p, n, DYL_REF_W);
}
