/* tids.h - thread ids to small indexes (0, 1, 2... in order of first sight), for the
 * readers that keep something per thread in an array of their own. */
#ifndef SPEEDUP_TIDS_H
#define SPEEDUP_TIDS_H

#include <stddef.h>
#include <stdint.h>

struct tids {
	uint64_t *tid;		/* by index */
	size_t n, room;
	uint32_t *slots;	/* index + 1 by tid hash (open addressing) */
	size_t nslots;
};

/* TID's index; *FRESH is 1 when it is new (then index == the former T->n).  -1: out of
 * memory. */
long tids_index(struct tids *t, uint64_t tid, int *fresh);
void tids_free(struct tids *t);

#endif
