/* test_generator_safety.py::test_hostile_include: the attack of issue 33 item 10, as
 * written there.  libclang would read /dev/zero until memory runs out. */
#include "/dev/zero"
int deflate(void *strm, int flush);
