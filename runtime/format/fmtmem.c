/* fmtmem.c - the format's growing arrays (dyl_fmtmem.h). */
#define _GNU_SOURCE
#include <sys/mman.h>
#include "dyl_fmtmem.h"

void *dyl_fmt_grow(void *p, size_t *cap, size_t need, size_t elsize)
{
	if (need <= *cap)
		return p;
	size_t ncap = *cap ? *cap : 64;
	while (ncap < need)
		ncap *= 2;
	size_t old = *cap * elsize, sz = ncap * elsize;
	void *q = p ? mremap(p, old, sz, MREMAP_MAYMOVE)
		    : mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		return NULL;
	*cap = ncap;
	return q;
}

void dyl_fmt_release(void *p, size_t cap, size_t elsize)
{
	if (p)
		munmap(p, cap * elsize);
}
