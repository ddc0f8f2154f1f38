/* app.c - test_core.py's program: prints what the calls return and errno */
#include <errno.h>
#include <stdio.h>
#include "core.h"
int main(void) {
	struct big b = mk(1.5);
	errno = 0;
	int r = fails(33);
	printf("%g %g %d %d\n", b.v[1], b.v[4], r, errno);
	return 0;
}
