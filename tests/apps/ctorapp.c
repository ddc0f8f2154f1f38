/* ctorapp.c - prints what libtinyctor's constructor computed, then calls once more. */
#include <stdio.h>
#include "tiny.h"

extern int ctor_result;

int main(void)
{
	printf("ctor_result %d, main %d\n", ctor_result, tiny_add(1, 1));
	return 0;
}
