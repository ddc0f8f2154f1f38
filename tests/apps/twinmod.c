/* twinmod.c - a module linked to libtwin.so.1 (twin.h), loaded by tinydl.c with
 * dlopen(RTLD_LOCAL): libtwin is loaded after the wrappers' constructors ran, as a
 * Python extension loads LAPACK. */
#include "twin.h"

int mod_run(int n)
{
	int x = 0;

	for (int i = 0; i < n; i++)
		x = twin_step(x);
	return x;
}
