/* libtwin.c - see twin.h.  Build with -DTWIN_VARIANT=1 or 2 and -Wl,-soname,libtwin.so.1. */
#include "twin.h"

#ifndef TWIN_VARIANT
#define TWIN_VARIANT 1
#endif

int twin_step(int x)
{
	return x + TWIN_VARIANT;
}
