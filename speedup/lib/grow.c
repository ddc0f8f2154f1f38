/* grow.c - see grow.h. */
#include <stdlib.h>
#include <string.h>
#include "grow.h"

int grow_slow(void *arrp, size_t elem, size_t *room, size_t first)
{
	void *arr, *bigger;
	size_t r = *room ? *room * 2 : first;

	/* through memcpy: the caller's pointer is a T *, not a void * */
	memcpy(&arr, arrp, sizeof(arr));
	bigger = realloc(arr, r * elem);
	if (!bigger)
		return -1;
	memcpy(arrp, &bigger, sizeof(bigger));
	*room = r;
	return 0;
}
