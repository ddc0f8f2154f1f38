/* dyl_fmtmem.h - the format's memory: arrays that grow by mmap and mremap.  The decoder
 * runs inside the profiled process, maybe inside a wrapper of malloc, so it calls no
 * malloc (dyl_decode.h). */
#ifndef DYL_FMTMEM_H
#define DYL_FMTMEM_H

#include <stddef.h>

/* P (NULL, or CAP elements of ELSIZE bytes) with room for NEED elements: P itself, a moved
 * P (CAP updated), or NULL when the memory cannot be had (P is then unchanged). */
void *dyl_fmt_grow(void *p, size_t *cap, size_t need, size_t elsize);
/* gives back P's CAP elements of ELSIZE bytes (P may be NULL) */
void dyl_fmt_release(void *p, size_t cap, size_t elsize);

#endif
