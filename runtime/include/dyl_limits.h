/* dyl_limits.h - values the wrappers' interface (dyl.h) and the spool format
 * (runtime/format/dyl_spool.h) share, defined here once: a wrapper's struct dyl_call
 * holds them, and a record carries them as they are. */
#ifndef DYL_LIMITS_H
#define DYL_LIMITS_H

#include <stdint.h>

/* "No value" for in_bytes, out_bytes and work: printed as an empty field. */
#define DYL_NONE INT64_MIN
/* A call's counters at most (a record's ncounters; a row's counters). */
#define DYL_MAX_COUNTERS 8

#endif
