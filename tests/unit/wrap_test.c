/* sources: speedup/lib/util/wrap.c speedup/lib/util/cli.c */
/* wrap_test.c - wrap.c: notes wrapped with a hanging indent, words whole (a long one on a
 * line of its own), UTF-8 counted as characters, '\n' kept, the width from $COLUMNS; and
 * cli.c's refused-option wording. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cli.h"
#include "wrap.h"

/* wrap_put's output for TEXT (freed by the caller) */
static char *wrapped(const char *text, const char *first, int width)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	wrap_put(f, text, first, width);
	fclose(f);
	return buf;
}

static void check(const char *text, int width, const char *want)
{
	char *got = wrapped(text, "  - ", width);
	CHECK_STR(got, want);
	free(got);
}

static void check_wrap(void)
{
	check("one two three four", 80, "  - one two three four\n");
	/* 20 columns: "  - one two three" is 17, " four" would make 22 */
	check("one two three four", 20, "  - one two three\n    four\n");
	/* exactly the width fits */
	check("one two three fo", 20, "  - one two three fo\n");
	/* a word longer than the line: alone, not cut */
	check("a abcdefghijklmnopqrstuvwxyz b", 20, "  - a\n    abcdefghijklmnopqrstuvwxyz\n    b\n");
	/* blanks at a break go; blanks inside a line stay */
	check("one  two   three", 12, "  - one  two\n    three\n");
	/* UTF-8: each character one column (e acute is 2 bytes) */
	check("\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9", 12,
	      "  - \xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9\xc3\xa9\n    \xc3\xa9\n");
	/* a '\n' in the text ends the line; the next starts under the indent */
	check("first\nsecond", 80, "  - first\n    second\n");
	/* a trace's line quoted, '# key=v', is one word */
	check("has no '# threads=recorded' line", 12,
	      "  - has no\n    '# threads=recorded'\n    line\n");
	check("", 80, "  - \n");
}

static void check_width(void)
{
	setenv("COLUMNS", "60", 1);
	CHECK(wrap_width(-1) == 60);
	setenv("COLUMNS", "5", 1);
	CHECK(wrap_width(-1) == 20);	/* at least 20 */
	setenv("COLUMNS", "6x", 1);
	CHECK(wrap_width(-1) == 80);	/* not a number: not a terminal either (fd -1) */
	unsetenv("COLUMNS");
	CHECK(wrap_width(-1) == 80);
}

static void check_bad_option(void)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size), *err = stderr;

	stderr = f;
	CHECK(cli_bad_option("dyl-x", "--foo", "-o --svg") == 2);
	CHECK(cli_bad_option("dyl-x", "--svg", "-o --svg") == 2);
	CHECK(cli_bad_option("dyl-x", "-o", "-o --svg") == 2);
	CHECK(cli_bad_option("dyl-x", "--sv", "-o --svg") == 2);	/* a prefix is not a match */
	CHECK(cli_bad_option("dyl-x", "-o", NULL) == 2);
	stderr = err;
	fclose(f);
	CHECK_STR(buf, "dyl-x: unknown option '--foo' (see dyl-x --help)\n"
		       "dyl-x: a value must follow '--svg' (see dyl-x --help)\n"
		       "dyl-x: a value must follow '-o' (see dyl-x --help)\n"
		       "dyl-x: unknown option '--sv' (see dyl-x --help)\n"
		       "dyl-x: unknown option '-o' (see dyl-x --help)\n");
	free(buf);
}

int main(void)
{
	check_wrap();
	check_width();
	check_bad_option();
	return CHECK_DONE();
}
