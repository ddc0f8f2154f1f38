/* sources: speedup/lib/util/shown.c */
/* shown_test.c - shown.c: UTF-8 lengths, names shown to a terminal (\xHH for
 * controls and bytes that are not UTF-8, "..." when cut short) and JSON strings. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "shown.h"

static int u8(const char *s, size_t len)
{
	return utf8_len((const unsigned char *)s, (const unsigned char *)s + len);
}

/* json_str of S (LEN bytes) as a string (freed by the caller) */
static char *json(const char *s, size_t len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	json_str(f, s, len);
	fclose(f);
	return buf;
}

static void check_utf8_len(void)
{
	CHECK(u8("a", 1) == 0);			/* ASCII is not a multi-byte sequence */
	CHECK(u8("\xc3\xa9", 2) == 2);		/* e acute */
	CHECK(u8("\xe2\x82\xac", 3) == 3);	/* euro sign */
	CHECK(u8("\xf0\x9f\x98\x80", 4) == 4);	/* U+1F600 */
	CHECK(u8("\xc3\xa9", 1) == 0);		/* cut short by END */
	CHECK(u8("\xc0\x80", 2) == 0);		/* overlong NUL */
	CHECK(u8("\xc1\xbf", 2) == 0);		/* overlong */
	CHECK(u8("\xe0\x80\x80", 3) == 0);	/* overlong 3-byte */
	CHECK(u8("\xed\xa0\x80", 3) == 0);	/* surrogate U+D800 */
	CHECK(u8("\xed\x9f\xbf", 3) == 3);	/* U+D7FF, just below */
	CHECK(u8("\xf0\x80\x80\x80", 4) == 0);	/* overlong 4-byte */
	CHECK(u8("\xf4\x90\x80\x80", 4) == 0);	/* above U+10FFFF */
	CHECK(u8("\xf4\x8f\xbf\xbf", 4) == 4);	/* U+10FFFF */
	CHECK(u8("\xf5\x80\x80\x80", 4) == 0);	/* no such lead byte */
	CHECK(u8("\xc3\x28", 2) == 0);		/* continuation byte missing */
	CHECK(u8("\x80", 1) == 0);		/* a lone continuation byte */
}

static void check_shown(void)
{
	char buf[64];

	CHECK(!shown_needed("dgemm_", 6));
	CHECK(!shown_needed("caf\xc3\xa9", 5));
	CHECK(shown_needed("a\x1b[2J", 5));	/* ESC: would clear a screen */
	CHECK(shown_needed("a\x7f", 2));	/* DEL */
	CHECK(shown_needed("\xc2\x9b", 2));	/* U+009B, the C1 CSI */
	CHECK(!shown_needed("\xc2\xa0", 2));	/* U+00A0, just above the C1 controls */
	CHECK(shown_needed("\xff", 1));

	CHECK_STR(shown("dgemm_", 6, buf, sizeof(buf)), "dgemm_");
	CHECK_STR(shown("a\x1b[2J", 5, buf, sizeof(buf)), "a\\x1b[2J");
	CHECK_STR(shown("\xc2\x9bx", 3, buf, sizeof(buf)), "\\xc2\\x9bx");
	CHECK_STR(shown("caf\xc3\xa9\xff", 6, buf, sizeof(buf)), "caf\xc3\xa9\\xff");
	CHECK_STR(shown("a\0b", 3, buf, sizeof(buf)), "a\\x00b");
	/* cut short: "..." in place of what does not fit, within ROOM with its NUL */
	CHECK_STR(shown("abcdefghij", 10, buf, 8), "abcd...");
	CHECK_STR(shown("abcdefg", 7, buf, 8), "abcdefg");
	CHECK_STR(shown("\x01\x02\x03", 3, buf, 8), "\\x01...");
	CHECK_STR(shown("abc", 3, buf, 1), "");
	buf[0] = 'z';
	shown("abc", 3, buf, 0);		/* no room: BUF untouched */
	CHECK(buf[0] == 'z');

	const char *plain = "name";
	CHECK(shown_keep(plain, 4) == plain);	/* nothing to show: itself */
	char *kept = (char *)shown_keep("\t\xff", 2);
	CHECK(kept && strcmp(kept, "\\x09\\xff") == 0);
	free(kept);
}

static void check_json_str(void)
{
	char *j;

	CHECK_STR(j = json("dgemm_", 6), "\"dgemm_\"");
	free(j);
	CHECK_STR(j = json("a\"b\\c", 5), "\"a\\\"b\\\\c\"");
	free(j);
	CHECK_STR(j = json("\n\t\x01\x7f", 4), "\"\\u000a\\u0009\\u0001\\u007f\"");
	free(j);
	CHECK_STR(j = json("caf\xc3\xa9", 5), "\"caf\xc3\xa9\"");
	free(j);
	/* bytes that are not UTF-8 become U+FFFD, one per byte */
	CHECK_STR(j = json("x\xff\xc3y", 4), "\"x\\ufffd\\ufffdy\"");
	free(j);
	CHECK_STR(j = json("\xed\xa0\x80", 3), "\"\\ufffd\\ufffd\\ufffd\"");
	free(j);
	CHECK_STR(j = json("a\0b", 3), "\"a\\u0000b\"");
	free(j);
	CHECK_STR(j = json("", 0), "\"\"");
	free(j);
}

int main(void)
{
	check_utf8_len();
	check_shown();
	check_json_str();
	return CHECK_DONE();
}
