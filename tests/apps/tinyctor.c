/* tinyctor.c - a library whose constructor calls libtiny before the wrapper's
 * constructor has run (it is initialized before the preloaded wrapper). */
#include "tiny.h"

int ctor_result;

__attribute__((constructor)) static void tinyctor_init(void)
{
	ctor_result = tiny_add(20, 22) + tiny_outer(1);
}
