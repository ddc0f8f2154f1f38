/* test_generator_safety.py::test_planted_files_in_searched_folders: a library with no
 * Debian package, whose header is found by scanning the -I folders. */
#include "scan.h"

int scan_twice(int x)
{
	return 2 * x;
}
