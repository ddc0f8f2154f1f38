/* twinapp.c - calls libtwin (twin.h) three times and prints the result: 3 with variant
 * 1, 6 with variant 2. */
#include <stdio.h>
#include "twin.h"

int main(void)
{
	int x = 0;

	for (int i = 0; i < 3; i++)
		x = twin_step(x);
	printf("%d\n", x);
	return 0;
}
