/* dyl_events.h - a spool's thread events (dyl_spool.h: EVTS chunks) as the trace's '#'
 * lines (doc/trace-format.md, "Threads"): what the runtime writes after the rows at exit,
 * and what the tools hand over as notes after a recovered spool's rows.
 *
 * Like decode.c: no lock, no malloc (mmap), no stdio; compiled into the runtime and the
 * tools. */
#ifndef DYL_EVENTS_H
#define DYL_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include "dyl_decode.h"

/* The thread events of the spool FD (its first SIZE bytes) as '#' lines, times in ns
 * since the process started through C's clock (dyl_conv_ns): "# threads=recorded" first,
 * then the thread, join and parallel lines in time order.  *LEN bytes from mmap, given
 * back with dyl_events_free.  NULL with *LEN 0 when the spool holds no event (its
 * wrapper did not interpose thread calls) or memory ran out. */
char *dyl_events_text(struct dyl_conv *c, int fd, uint64_t size, size_t *len);
void dyl_events_free(char *text);

#endif
