/* test_generator_safety.py::test_hostile_include: the test plants planted.h beside a
 * copy of this header (a FIFO, a link to a device, a sparse file of 1 GiB). */
#include "planted.h"
int deflate(void *strm, int flush);
