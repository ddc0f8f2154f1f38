/* flow.h - what the std.flow files share.  Nothing here is exported.  The layout of
 * what they write is runtime/format/dyl_flow.h's.
 *
 * The files, top down; each calls only files below it (no circle of calls):
 *   follow.c    follow=, an option over std.flow: the heap blocks a call's pointers
 *               reach (its set-up sets std.flow up and puts its walk in hooks.c's
 *               dyl_flow_follow_hook: hooks.c does not call it by name)
 *   hooks.c      std.flow's hooks (the region table's and std.diff's) and set-up
 *   finish.c       TRACE.flow at exit (over maps.c, hostread.c, buffers.c)
 *   defs.c      a call's extents given by --defs code (over hostread.c)
 *   hostread.c  host_reads=on: the program's reads of the calls' outputs
 *   sites.c     allocation sites
 *   maps.c      the names of file mappings
 *   buffers.c   the bottom: std.flow's state and the per-thread event buffers
 *               (buffers.h), in the words encode.h makes
 */
#ifndef DYL_FLOW_PRIVATE_H
#define DYL_FLOW_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include "dyl_flow.h"
#include "internal.h"

/* buffers.c: appends one raw event of WORDS words (the header word first) to the calling
 * thread's buffer; 0, or -1 when it was dropped (no memory, or re-entered) */
HIDDEN int dyl_flow_put(const uint64_t *ev, unsigned words);
HIDDEN uint64_t dyl_flow_lost(void);	/* events dropped so far */

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
/* hooks.c: the walk the charge calls after its events (NULL: none); follow.c's set-up
 * puts dyl_flow_follow there */
HIDDEN extern void (*dyl_flow_follow_hook)(const struct dyl_groups *c);

/* finish.c: TRACE.flow from the spool (after hooks.c's notes: dyl_hooks.flow_converted) */
HIDDEN void dyl_flow_write(int fd, uint64_t size, uint64_t seq);

#endif
