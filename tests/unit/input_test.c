/* sources: runtime/format/read/input.c */
/* input_test.c - runtime/format/read/input.c, the tools' CSV reading: lines (no '\n' or
 * '\r' kept, a UTF-8 byte order mark skipped), fields (quoted ones with "" for a quote, text after
 * the closing quote left out), non-negative integers and decimals with why one is
 * refused, header prefixes, and a file read whole (a regular file, a folder refused). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "check.h"
#include "input.h"

/* input_open hands every file to spool recovery (a trace whose process did not finish);
 * none of these files is a spool */
int spool_recover(struct input_file *f)
{
	(void)f;
	return 0;
}

static struct csv_field field(const char *s)
{
	return (struct csv_field){ s, (uint32_t)strlen(s), 0 };
}

static int u64(const char *s, uint64_t *v)
{
	struct csv_field f = field(s);

	return parse_u64(&f, v);
}

static int dbl(const char *s, double *v)
{
	struct csv_field f = field(s);

	return parse_double(&f, v);
}

/* field I of the split as a string ("" quotes undone) */
static const char *text(const struct csv_field *fld, int i)
{
	static char buf[8][64];
	char *s = csv_strdup(&fld[i]);

	snprintf(buf[i % 8], sizeof(buf[0]), "%s", s ? s : "(null)");
	free(s);
	return buf[i % 8];
}

static void check_lines(void)
{
	const char data[] = "\xef\xbb\xbf" "a,b\r\n\nlast";
	struct input_file f = { "t.csv", data, sizeof(data) - 1, 0 };
	struct input_lines it;
	const char *line;
	size_t len;

	input_lines_init(&it, &f);
	CHECK(input_next_line(&it, &line, &len) && len == 3 && !memcmp(line, "a,b", 3));
	CHECK(it.lineno == 1);
	CHECK(input_next_line(&it, &line, &len) && len == 0 && it.lineno == 2);
	CHECK(input_next_line(&it, &line, &len) && len == 4 && !memcmp(line, "last", 4));
	CHECK(!input_next_line(&it, &line, &len));
	CHECK(it.lineno == 3);
}

static void check_split(void)
{
	struct csv_field fld[8];
	const char *l1 = "seq,,\"a,b\",\"say \"\"hi\"\"\",x";
	const char *l2 = "\"q\"tail,z";

	CHECK(csv_split(l1, strlen(l1), fld, 8) == 5);
	CHECK_STR(text(fld, 0), "seq");
	CHECK(fld[1].len == 0 && !fld[1].quoted);
	CHECK_STR(text(fld, 2), "a,b");
	CHECK(fld[2].quoted);
	CHECK_STR(text(fld, 3), "say \"hi\"");
	CHECK_STR(text(fld, 4), "x");
	/* more fields than room: counted, not written past MAX */
	CHECK(csv_split(l1, strlen(l1), fld, 2) == 5);
	CHECK(csv_split("", 0, fld, 8) == 1 && fld[0].len == 0);
	CHECK(csv_split(",", 1, fld, 8) == 2);
	CHECK(csv_split(l2, strlen(l2), fld, 8) == 2);
	CHECK_STR(text(fld, 0), "q");
	CHECK_STR(text(fld, 1), "z");
	/* an unterminated quote runs to the end of the line */
	CHECK(csv_split("\"open,x", 7, fld, 8) == 1);
	CHECK_STR(text(fld, 0), "open,x");
}

static void check_numbers(void)
{
	uint64_t u = 7;
	double d = 7;

	CHECK(u64("0", &u) == NUM_OK && u == 0);
	CHECK(u64("+42", &u) == NUM_OK && u == 42);
	CHECK(u64("18446744073709551615", &u) == NUM_OK && u == UINT64_MAX);
	CHECK(u64("18446744073709551616", &u) == NUM_TOO_LARGE);
	CHECK(u64("99999999999999999999", &u) == NUM_TOO_LARGE);
	CHECK(u64("", &u) == NUM_EMPTY);
	CHECK(u64("-1", &u) == NUM_NEGATIVE);
	CHECK(u64("-", &u) == NUM_NOT_A_NUMBER);
	CHECK(u64("+", &u) == NUM_NOT_A_NUMBER);
	CHECK(u64("12a", &u) == NUM_NOT_A_NUMBER);
	CHECK(u64(" 1", &u) == NUM_NOT_A_NUMBER);
	CHECK(u64("1.5", &u) == NUM_NOT_A_NUMBER);

	CHECK(dbl("1.5e3", &d) == NUM_OK && d == 1500);
	CHECK(dbl("0", &d) == NUM_OK && d == 0);
	CHECK(dbl("-0", &d) == NUM_NEGATIVE);
	CHECK(dbl("-2", &d) == NUM_NEGATIVE);
	CHECK(dbl("1e999", &d) == NUM_TOO_LARGE);
	CHECK(dbl("inf", &d) == NUM_TOO_LARGE);
	CHECK(dbl("nan", &d) == NUM_NOT_A_NUMBER);
	CHECK(dbl("", &d) == NUM_EMPTY);
	CHECK(dbl("3x", &d) == NUM_NOT_A_NUMBER);
	CHECK(dbl("0000000000000000000000000000000000000000000000000000000000000001", &d) ==
	      NUM_NOT_A_NUMBER);	/* 64 characters: longer than any number a tool writes */
}

static void check_header(void)
{
	CHECK(input_header_is("func,work,t_ns", 14, "func,work,t_ns"));
	CHECK(input_header_is("func,work,t_ns,bytes", 20, "func,work,t_ns"));
	CHECK(!input_header_is("func,work,t_nsx", 15, "func,work,t_ns"));
	CHECK(!input_header_is("func,work", 9, "func,work,t_ns"));
}

static void check_open(void)
{
	struct input_file f;
	FILE *w = fopen("in.csv", "w");

	fputs("a,b\n1,2\n", w);
	fclose(w);
	CHECK(input_open(&f, "in.csv") == 0);
	CHECK(f.size == 8 && !memcmp(f.data, "a,b\n1,2\n", 8));
	input_close(&f);
	/* an empty file: no bytes, no error */
	fclose(fopen("empty.csv", "w"));
	CHECK(input_open(&f, "empty.csv") == 0 && f.size == 0);
	input_close(&f);
	/* a folder and a missing file: refused (one line on stderr each) */
	mkdir("dir", 0755);
	CHECK(input_open(&f, "dir") == -1);
	CHECK(input_open(&f, "missing.csv") == -1);
}

int main(void)
{
	check_lines();
	check_split();
	check_numbers();
	check_header();
	check_open();
	return CHECK_DONE();
}
