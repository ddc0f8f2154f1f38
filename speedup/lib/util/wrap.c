/* wrap.c - text wrapped to the terminal with a hanging indent (wrap.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "wrap.h"

#define WRAP_DEFAULT 80
#define WRAP_MIN 20

int wrap_width(int fd)
{
	const char *cols = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	long w = 0;

	if (cols && *cols) {
		w = strtol(cols, &end, 10);
		if (*end)
			w = 0;
	}
	if (w <= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0)
		w = ws.ws_col;
	if (w <= 0)
		w = WRAP_DEFAULT;
	return w < WRAP_MIN ? WRAP_MIN : w > 10000 ? 10000 : (int)w;
}

/* The columns of S's first N bytes: UTF-8 continuation bytes take none. */
static int columns(const char *s, size_t n)
{
	int c = 0;

	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

void wrap_put(FILE *out, const char *text, const char *first, int width)
{
	int indent = columns(first, strlen(first)), col = indent, empty = 1;
	const char *p = text;

	fputs(first, out);
	while (*p) {
		size_t blanks = strspn(p, " "), n;
		if (p[blanks] == '\n' || !p[blanks]) {	/* a line's end: its trailing blanks go */
			p += blanks + (p[blanks] == '\n');
			if (p[-1] == '\n' && *p)
				fprintf(out, "\n%*s", indent, ""), col = indent, empty = 1;
			continue;
		}
		n = strcspn(p + blanks, " \n");
		if (n && p[blanks + n - 1] == '#' && p[blanks + n] == ' ')	/* '# key=': one word */
			n += 1 + strcspn(p + blanks + n + 1, " \n");
		int w = columns(p + blanks, n);
		if (!empty && col + (int)blanks + w > width) {	/* the word on a line of its own */
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (!empty) {
			fprintf(out, "%.*s", (int)blanks, p);
			col += (int)blanks;
		}
		fwrite(p + blanks, 1, n, out);
		col += w;
		empty = 0;
		p += blanks + n;
	}
	fputc('\n', out);
}
