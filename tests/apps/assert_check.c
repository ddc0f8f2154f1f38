/* assert_check.c - DYL_ASSERT (runtime/internal.h) as the runtime's files use it:
 * built with -DDYL_DEBUG, a false invariant names its file and line and aborts; built
 * without, the expression is not even evaluated.  Linked with runtime/state.c. */
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"

static int evaluated;

static int is_three(int x)
{
	evaluated = 1;
	return x == 3;
}

int main(int argc, char **argv)
{
	int x = argc > 1 ? atoi(argv[1]) : 0;

	DYL_ASSERT(is_three(x));
	printf("passed evaluated=%d\n", evaluated);
	return 0;
}
