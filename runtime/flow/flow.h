/* flow.h - what the std.flow files share (flow.c: the per-thread buffers and the
 * events; sites.c: allocation sites; out.c: TRACE.flow at exit).  Nothing here is
 * exported.  The layout of what they write is runtime/format/dyl_flow.h's. */
#ifndef DYL_FLOW_PRIVATE_H
#define DYL_FLOW_PRIVATE_H

#include <stdint.h>
#include "dyl_flow.h"
#include "internal.h"

/* flow.c: appends one raw event of WORDS words (the header word first) to the calling
 * thread's buffer; 0, or -1 when it was dropped (no memory, or re-entered) */
HIDDEN int dyl_flow_put(const uint64_t *ev, unsigned words);
HIDDEN uint64_t dyl_flow_lost(void);	/* events dropped so far */
/* flow.c: the trace's '#' lines of std.flow's caps (dyl_rt.io held, after the rows) */
HIDDEN void dyl_flow_notes(void);

/* sites.c: the allocation site of the heap block being added: the return addresses of
 * the program's frames above the allocator, interned (a SITE event is put on first
 * sight).  UINT64_MAX: not known.  set-up: once, from dyl_flow_setup. */
HIDDEN uint64_t dyl_flow_site(void);
HIDDEN void dyl_flow_sites_setup(void);
/* the site's return addresses (at most DYL_FLOW_SITE_PCS): their number */
HIDDEN unsigned dyl_flow_site_pcs(uint64_t site, uint64_t *pc);

/* out.c: TRACE.flow from the spool (dyl_hooks.flow_converted) */
HIDDEN void dyl_flow_write(int fd, uint64_t size, uint64_t seq);

#endif
