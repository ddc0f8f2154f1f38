/* diff.h - what std.diff's two files share (diff.c: snapshots and the full method;
 * watch.c: which heap pages were written).  Nothing here is exported. */
#ifndef DYL_DIFF_PRIVATE_H
#define DYL_DIFF_PRIVATE_H

#include <stdint.h>
#include "regions/regions.h"

/* watch.c: which heap pages were written since they were last looked at */
HIDDEN int dyl_watch_on(void);		/* 1 when pages can be watched (tried once) */
HIDDEN const char *dyl_watch_how(void);	/* how, or why not */
/* Calls FN for each run of pages of [A, B) (page-aligned) written since they were last
 * protected, and protects them again; 0: done; 1: done, and some pages were new to it
 * (listed as written: nothing is known of their past); -1: the range could not be read
 * that way (it is protected now, if it could be): compare all of it */
HIDDEN int dyl_watch_written(uintptr_t a, uintptr_t b, void (*fn)(uintptr_t, uintptr_t, void *),
			     void *arg);
HIDDEN void dyl_watch_protect(uintptr_t a, uintptr_t b, int on);	/* page-aligned */
/* protects [A, B) (page-aligned), registering its VMAs first where needed */
HIDDEN void dyl_watch_protect_registering(uintptr_t a, uintptr_t b);
HIDDEN void dyl_watch_after_fork(void);

#endif
