/* flow.h - what the std.flow files share (flow.c: the per-thread buffers and the
 * events; sites.c: allocation sites; out.c: TRACE.flow at exit).  Nothing here is
 * exported.  The layout of what they write is runtime/format/dyl_flow.h's. */
#ifndef DYL_FLOW_PRIVATE_H
#define DYL_FLOW_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include "dyl_flow.h"
#include "internal.h"

/* flow.c: appends one raw event of WORDS words (the header word first) to the calling
 * thread's buffer; 0, or -1 when it was dropped (no memory, or re-entered) */
HIDDEN int dyl_flow_put(const uint64_t *ev, unsigned words);
HIDDEN uint64_t dyl_flow_lost(void);	/* events dropped so far */
/* flow.c: the trace's '#' lines of std.flow's caps (dyl_out.io held, after the rows) */
HIDDEN void dyl_flow_notes(void);

/* sites.c: the allocation site of the heap block being added: the return addresses of
 * the program's frames above the allocator, interned (a SITE event is put on first
 * sight).  UINT64_MAX: not known.  set-up: once, from dyl_flow_setup. */
HIDDEN uint64_t dyl_flow_site(void);
HIDDEN void dyl_flow_sites_setup(void);
/* the site's return addresses (at most DYL_FLOW_SITE_PCS): their number */
HIDDEN unsigned dyl_flow_site_pcs(uint64_t site, uint64_t *pc);

/* defs.c: 1 when --defs code gave the current outermost call's extents (clears it) */
HIDDEN int dyl_flow_defs_take(void);

/* maps.c: a mapping's file, kept when it is added (ID its region id), and the name of
 * mapping ID at exit (its path; 0: none, an anonymous mapping) */
HIDDEN void dyl_flow_map_added(uintptr_t start, uint64_t n, uint64_t id);
HIDDEN size_t dyl_flow_map_name(uint64_t id, uint64_t start, uint64_t size, char *out, size_t room);

/* follow.c: the option follow= (heap blocks reached per call; 0: off), and its walk
 * from a charge's buffers through the pointers stored in them (DYL_REF_FOLLOW events) */
HIDDEN extern uint32_t dyl_flow_follow_cap;
struct dyl_groups;
HIDDEN void dyl_flow_follow(const struct dyl_groups *c);
/* flow.c: the frame of stack region R (a return address, its CFA; 0: not known) */
struct dyl_groups;
struct dyl_region;
HIDDEN void dyl_flow_frame_of(const struct dyl_groups *c, const struct dyl_region *r, uintptr_t *ip,
			      uintptr_t *cfa);
/* flow.c: a HOSTRD event (hostread.c): the program read [LO, HI) of R at T (dyl_now) */
HIDDEN void dyl_flow_host_read(const struct dyl_region *r, uintptr_t ip, uintptr_t cfa, uintptr_t lo,
			       uintptr_t hi, unsigned how, uint64_t t);

/* flow.c: the TRACE.flow kind (DYL_OBJ_*) of a region of kind DYL_REGION_* */
HIDDEN unsigned dyl_flow_obj_kind(uint32_t region_kind);

/* out.c: TRACE.flow from the spool (dyl_hooks.flow_converted) */
HIDDEN void dyl_flow_write(int fd, uint64_t size, uint64_t seq);

#endif
