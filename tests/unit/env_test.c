/* sources: runtime/env.c */
/* env_test.c - runtime/env.c: the DYL_* variables are read once, at the first look
 * (later changes to the environment do not count); a value outside a variable's allowed
 * values reads as unset and is warned about once, naming the default; an unknown DYL_*
 * name is warned about with the list of those the runtime reads; other variables are
 * not looked at; a size (DYL_CONVERT_MAX) takes K, M or G (a bad size:
 * tests/tools/test_convert_auto.py).  The runtime's warning and clock name are stand-ins
 * here. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "internal.h"

/* dyl.h's load-time check that a wrapper was built against this runtime (runtime.c
 * defines it; a new ABI renames it, and this line with it) */
const int dyl_abi_6 = 6;

static char warned[8][512];
static int nwarned;

void dyl_warn_once(const char *key, const char *fmt, ...)
{
	va_list ap;

	(void)key;
	va_start(ap, fmt);
	if (nwarned < 8)
		vsnprintf(warned[nwarned++], sizeof(warned[0]), fmt, ap);
	va_end(ap);
}

int main(void)
{
	setenv("DYL_TRACE", "/tmp/t-%p.csv", 1);
	setenv("DYL_CLOCK", "sundial", 1);	/* not one of tsc, monotonic */
	setenv("DYL_DIFF_WATCH", "0", 1);
	setenv("DYL_FILTER", "", 1);		/* set, empty */
	setenv("DYL_TRACEE", "x", 1);		/* a typo */
	setenv("DYLX", "1", 1);			/* not DYL_ */
	setenv("DYL_CONVERT", "auto", 1);
	setenv("DYL_CONVERT_MAX", "3k", 1);	/* a size: K, M, G are powers of 1024 */
	unsetenv("DYL_OFF");
	unsetenv("DYL_DEBUG_DIR");

	CHECK_STR(dyl_env(DYL_ENV_TRACE), "/tmp/t-%p.csv");
	CHECK(dyl_env(DYL_ENV_CLOCK) == NULL);
	CHECK(dyl_env(DYL_ENV_DIFF_WATCH) && strcmp(dyl_env(DYL_ENV_DIFF_WATCH), "0") == 0);
	CHECK(dyl_env(DYL_ENV_FILTER) && strcmp(dyl_env(DYL_ENV_FILTER), "") == 0);
	CHECK(dyl_env(DYL_ENV_OFF) == NULL);
	CHECK(dyl_env(DYL_ENV_DEBUG_DIR) == NULL);
	CHECK_STR(dyl_env(DYL_ENV_CONVERT), "auto");
	CHECK(dyl_env_size(DYL_ENV_CONVERT_MAX) == 3 * 1024);

	/* read once: what the program does to its environment later does not count */
	setenv("DYL_OFF", "1", 1);
	setenv("DYL_TRACE", "other.csv", 1);
	dyl_env_setup();
	CHECK(dyl_env(DYL_ENV_OFF) == NULL);
	CHECK_STR(dyl_env(DYL_ENV_TRACE), "/tmp/t-%p.csv");

	/* a default that is not a constant is the feature's own (clock.c says its clock) */
	dyl_env_default(DYL_ENV_CLOCK, "tsc");
	dyl_env_warn();
	CHECK(nwarned == 2);
	CHECK_STR(warned[0], "DYL_CLOCK=sundial: unknown value; using tsc (one of: tsc, monotonic)");
	CHECK(strncmp(warned[1], "DYL_TRACEE: unknown variable, ignored (the runtime reads: "
			 "DYL_TRACE, DYL_OFF, ", 78) == 0);
	/* the tools' own variables are known, but not listed as the runtime's */
	CHECK(strstr(warned[1], "DYL_RUNTIME") == NULL);
	CHECK(strstr(warned[1], "DYL_PAPI_EVENTS") != NULL);
	return CHECK_DONE();
}
