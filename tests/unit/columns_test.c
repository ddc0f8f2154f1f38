/* sources: runtime/format/read/columns.c speedup/lib/util/shown.c */
/* columns_test.c - runtime/format/read/columns.c: a CSV header that names a column twice
 * is refused with one message naming the file, the line and both columns; unnamed columns and
 * names that only share a prefix are not repeats. */
#include <string.h>
#include "check.h"
#include "columns.h"
#include "input_stub.h"

/* the fields of a header written as C strings */
static int fields(struct csv_field *fld, const char *const *names, int n)
{
	for (int i = 0; i < n; i++) {
		fld[i].s = names[i];
		fld[i].len = (uint32_t)strlen(names[i]);
		fld[i].quoted = 0;
	}
	return n;
}

int main(void)
{
	struct csv_field fld[8];
	static const char *const ok[] = { "func", "t_ns", "t_start_ns", "", "", "work" };
	static const char *const twice[] = { "func", "t_ns", "work", "t_ns" };
	static const char *const first[] = { "seq", "seq" };
	static const char *const odd[] = { "a", "b\x1b[2J", "b\x1b[2J" };

	CHECK(columns_check("t.csv", 1, fld, fields(fld, ok, 6)) == 0);
	CHECK(unit_msgs == 0);
	CHECK(columns_check("t.csv", 1, fld, 0) == 0);

	CHECK(columns_check("t.csv", 3, fld, fields(fld, twice, 4)) == -1);
	CHECK(unit_msgs == 1);
	CHECK_STR(unit_msg, "t.csv:3: column 4 repeats column 2's name, 't_ns'");

	CHECK(columns_check("m.csv", 1, fld, fields(fld, first, 2)) == -1);
	CHECK_STR(unit_msg, "m.csv:1: column 2 repeats column 1's name, 'seq'");

	/* the name in the message is shown as a terminal should see it */
	CHECK(columns_check("x.csv", 2, fld, fields(fld, odd, 3)) == -1);
	CHECK_STR(unit_msg, "x.csv:2: column 3 repeats column 2's name, 'b\\x1b[2J'");
	CHECK(unit_msgs == 3);
	return CHECK_DONE();
}
