/* test_generator_safety.py::test_paths_with_make_and_shell_syntax: a header that
 * includes another by -I, both in a folder whose name is make and shell syntax. */
#include "extra.h"
int deflate(void *strm, int flush);
const char *zlibVersion(void);
