/* check.h - the checks of the C unit tests (tests/unit/NAME_test.c): each failed check
 * prints one line naming the file, the line and the check, and makes main return 1. */
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond)) {                                                        \
			printf("%s:%d: failed: %s\n", __FILE__, __LINE__, #cond);     \
			check_failures++;                                             \
		}                                                                     \
	} while (0)

/* COND, with a message of its own (printf's arguments) when it fails. */
#define CHECK_MSG(cond, ...)                                                          \
	do {                                                                          \
		if (!(cond)) {                                                        \
			printf("%s:%d: failed: %s: ", __FILE__, __LINE__, #cond);     \
			printf(__VA_ARGS__);                                          \
			putchar('\n');                                                \
			check_failures++;                                             \
		}                                                                     \
	} while (0)

/* Two strings equal; both shown when not. */
#define CHECK_STR(got, want)                                                          \
	do {                                                                          \
		const char *g_ = (got), *w_ = (want);                                 \
		if (strcmp(g_, w_) != 0) {                                            \
			printf("%s:%d: failed: %s is \"%s\", not \"%s\"\n", __FILE__,   \
			       __LINE__, #got, g_, w_);                               \
			check_failures++;                                             \
		}                                                                     \
	} while (0)

/* Two doubles within TOL of each other. */
#define CHECK_NEAR(got, want, tol)                                                    \
	do {                                                                          \
		double g_ = (got), w_ = (want);                                       \
		if (!(g_ - w_ <= (tol) && w_ - g_ <= (tol))) {                        \
			printf("%s:%d: failed: %s is %.17g, not %.17g\n", __FILE__,     \
			       __LINE__, #got, g_, w_);                               \
			check_failures++;                                             \
		}                                                                     \
	} while (0)

#define CHECK_DONE() (check_failures ? 1 : 0)

#endif
