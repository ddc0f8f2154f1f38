/* tinymod.c - a module that tinydl loads with dlopen(RTLD_LOCAL); it links libtiny.so,
 * which therefore lives only in the module's local scope. */
#include "tiny.h"

int mod_run(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += tiny_add(i, 1) + tiny_outer(i);
	return s;
}
