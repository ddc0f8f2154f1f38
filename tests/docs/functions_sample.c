/* functions_sample.c - test_functions.py reads this file with its own C reader (it is
 * never compiled) and checks where each function starts and ends: braces in strings,
 * char literals, comments and preprocessor lines must not count. { */
#include <stdio.h>
#define BLOCK(x) do { \
	if (x) {      \
		puts("}"); \
	}             \
} while (0)

struct pair { int a, b; };
static const struct pair pairs[] = { { 1, 2 }, { 3, 4 } };

static int braces(int x)
{
	const char *s = "{ not a block }";	/* nor this { */
	char open = '{', close = '}';
	// a line comment with a }
	if (x) {
		return s[0] + open + close;
	}
	return 0;
}

#ifdef __cplusplus
extern "C" {
#endif
__attribute__((unused)) static int
attributed(void)
{
	return pairs[0].a;
}
#ifdef __cplusplus
}
#endif

static int (*pick(int which))(int)
{
	return which ? braces : 0;
}
