/* gzout.h - gzip output through a FILE *: what a tool writes to '-o FILE.gz' is
 * compressed as it goes (zlib's gzip format; Perfetto and zcat read it). */
#ifndef SPEEDUP_GZOUT_H
#define SPEEDUP_GZOUT_H

#include <stdio.h>

/* Does PATH end in ".gz"? */
int gzout_wanted(const char *path);
/* A stream whose bytes go gzipped into DEST (which stays the caller's: fclose of the
 * stream ends the gzip data and flushes it into DEST, without closing DEST).  NULL when
 * out of memory. */
FILE *gzout_open(FILE *dest);

#endif
