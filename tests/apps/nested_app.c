/* nested_app.c - calls nested_outer(N) R times (argv: N R) and prints the sum. */
#include <stdio.h>
#include <stdlib.h>
#include "nested.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, r = argc > 2 ? atol(argv[2]) : 10, s = 0;

	for (long i = 0; i < r; i++)
		s += nested_outer(n);
	printf("%ld\n", s);
	return 0;
}
