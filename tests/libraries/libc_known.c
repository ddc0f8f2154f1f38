/* libc_known.c - test_libc.py's program whose libc calls are known: 1000 strlen, one
 * atoi, one printf */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
int main(int argc, char **argv) {
	size_t n = 0;
	for (int i = 0; i < 1000; i++)
		n += strlen(argv[0] + i % 4);
	printf("%zu\n", n + (size_t)atoi("7"));
	return 0;
}
