/* grow.h - room for one more item at the end of a growing array (grow), or for items
 * up to an index (grow_to): the one way every reader here grows its arrays, doubling, so
 * that N appends cost O(N) copies. */
#ifndef SPEEDUP_GROW_H
#define SPEEDUP_GROW_H

#include <stddef.h>

int grow_slow(void *arrp, size_t elem, size_t *room, size_t first);

/* ARRP: the address of the array's pointer (T **), of items of ELEM bytes; N items in
 * it, room for *ROOM.  When N == *ROOM, doubles *ROOM (to FIRST when 0) and moves the
 * array.  0, or -1 out of memory (the array and *ROOM stay as they were).  Inline: the
 * readers call it once a row. */
static inline int grow(void *arrp, size_t elem, size_t n, size_t *room, size_t first)
{
	return n < *room ? 0 : grow_slow(arrp, elem, room, first);
}

/* Room for NEED items (*ROOM >= NEED): doubles *ROOM (from FIRST when 0) as often as it
 * takes, and zeroes the new items, for arrays indexed by an id met in any order.  0, or
 * -1 out of memory (the array and *ROOM stay as they were). */
int grow_to(void *arrp, size_t elem, size_t need, size_t *room, size_t first);

#endif
