/* shown.c - see shown.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shown.h"

int utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = *p;
	int len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
	int ok = len && end - p >= len;

	for (int i = 1; ok && i < len; i++)
		ok = (p[i] & 0xc0) == 0x80;
	if (ok && len == 3)
		ok = !(c == 0xe0 && p[1] < 0xa0) && !(c == 0xed && p[1] >= 0xa0);
	if (ok && len == 4)
		ok = !(c == 0xf0 && p[1] < 0x90) && !(c == 0xf4 && p[1] >= 0x90);
	return ok ? len : 0;
}

/* How many bytes at P a terminal may take as they are (a character), 0 for one byte
 * to escape: C0 controls, DEL, a byte that starts no UTF-8 character, and the C1
 * controls U+0080..U+009F (CSI is U+009B). */
static int plain(const unsigned char *p, const unsigned char *end)
{
	int len;

	if (*p < 0x80)
		return *p >= 0x20 && *p != 0x7f;
	len = utf8_len(p, end);
	return len == 2 && p[0] == 0xc2 && p[1] < 0xa0 ? 0 : len;
}

int shown_needed(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	int n;

	for (; p < end; p += n)
		if ((n = plain(p, end)) == 0)
			return 1;
	return 0;
}

const char *shown(const char *s, size_t len, char *buf, size_t room)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	size_t o = 0;

	if (room == 0)
		return buf;
	while (p < end) {
		int n = plain(p, end);
		size_t need = n ? (size_t)n : 4;
		if (o + need + 1 > room) {
			/* "..." in place of what does not fit */
			while (o > 0 && o + 4 > room)
				o--;
			if (o + 4 <= room)
				memcpy(buf + o, "...", 3), o += 3;
			break;
		}
		if (n) {
			memcpy(buf + o, p, (size_t)n);
			o += (size_t)n;
			p += n;
		} else {
			o += (size_t)snprintf(buf + o, room - o, "\\x%02x", *p++);
		}
	}
	buf[o] = '\0';
	return buf;
}

const char *shown_keep(const char *s, size_t len)
{
	char *buf;

	if (!shown_needed(s, len))
		return s;
	if (!(buf = malloc(4 * len + 1)))
		return NULL;
	return shown(s, len, buf, 4 * len + 1);
}

void json_str(FILE *out, const char *str, size_t len)
{
	const unsigned char *p = (const unsigned char *)str, *end = p + len, *run = p;

	putc_unlocked('"', out);
	while (p < end) {
		unsigned c = *p;
		int n = c >= 0x20 && c != 0x7f && c != '"' && c != '\\' ? (c < 0x80 ? 1 : utf8_len(p, end)) : 0;
		if (n > 0) {
			p += n;	/* plain: written with its run */
			continue;
		}
		fwrite_unlocked(run, 1, (size_t)(p - run), out);
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x80)
			fprintf(out, "\\u%04x", c);
		else
			fputs("\\ufffd", out);
		run = ++p;
	}
	fwrite_unlocked(run, 1, (size_t)(p - run), out);
	putc_unlocked('"', out);
}

void csv_str(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}
