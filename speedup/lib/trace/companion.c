/* companion.c - see companion.h */
#include <string.h>
#include "companion.h"

#define FLOW_SUFFIX ".flow"

int companion_of_given(const char *path, int argc, char **argv)
{
	size_t n = strlen(path), s = strlen(FLOW_SUFFIX);

	if (n <= s || strcmp(path + n - s, FLOW_SUFFIX) != 0)
		return 0;
	for (int i = 1; i < argc; i++)
		if (strlen(argv[i]) == n - s && strncmp(argv[i], path, n - s) == 0)
			return 1;
	return 0;
}
