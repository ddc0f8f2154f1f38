/* grow.c - see grow.h. */
#include <stdlib.h>
#include <string.h>
#include "grow.h"

/* Moves *ARRP to room for R items of ELEM bytes.  0, or -1 (the array stays). */
static int resize(void *arrp, size_t elem, size_t r)
{
	void *arr, *bigger;

	/* through memcpy: the caller's pointer is a T *, not a void * */
	memcpy(&arr, arrp, sizeof(arr));
	bigger = realloc(arr, r * elem);
	if (!bigger)
		return -1;
	memcpy(arrp, &bigger, sizeof(bigger));
	return 0;
}

int grow_slow(void *arrp, size_t elem, size_t *room, size_t first)
{
	size_t r = *room ? *room * 2 : first;

	if (resize(arrp, elem, r) != 0)
		return -1;
	*room = r;
	return 0;
}

int grow_to(void *arrp, size_t elem, size_t need, size_t *room, size_t first)
{
	size_t r = *room ? *room : first;
	char *arr;

	if (need <= *room)
		return 0;
	while (r < need)
		r *= 2;
	if (resize(arrp, elem, r) != 0)
		return -1;
	memcpy(&arr, arrp, sizeof(arr));
	memset(arr + *room * elem, 0, (r - *room) * elem);
	*room = r;
	return 0;
}
