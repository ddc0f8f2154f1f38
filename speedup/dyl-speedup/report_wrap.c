/* report_wrap.c - paragraphs and tables for a terminal's width (report_wrap.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "report_wrap.h"

/* 1 when P starts a time's unit ("ms)", "s,"): kept on the line of its number. */
static int is_unit(const char *p)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };

	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		size_t n = strlen(units[u]);
		if (strncmp(p, units[u], n) == 0 && !isalnum((unsigned char)p[n]))
			return 1;
	}
	return 0;
}

/* The length of the word at P: up to a space, a number and its unit together. */
static size_t word_len(const char *p)
{
	size_t n = strcspn(p, " ");

	while (n > 0 && p[n] == ' ' && isdigit((unsigned char)p[n - 1]) && is_unit(p + n + 1))
		n += 1 + strcspn(p + n + 1, " ");
	return n;
}

void wrap_text(FILE *out, const char *text, int width, const char *first, int next)
{
	int col = (int)strlen(first), fresh = 1;
	const char *p = text;

	fputs(first, out);
	while (*p) {
		size_t n = word_len(p);
		if (n == 0) {
			p++;
			continue;
		}
		/* a word goes on this line when it fits, or when the line is still empty */
		if (!fresh && col + 1 + (int)n > width) {
			fprintf(out, "\n%*s", next, "");
			col = next;
			fresh = 1;
		}
		if (!fresh) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, n, out);
		col += (int)n;
		fresh = 0;
		p += n;
	}
	fputc('\n', out);
}

int tt_init(struct ttab *t, int ncol, const char *const *head)
{
	memset(t, 0, sizeof(*t));
	t->ncol = ncol < TT_COLS ? ncol : TT_COLS;
	for (int c = 0; c < t->ncol; c++) {
		t->left[c] = head[c][0] == '<';
		t->head[c] = head[c] + t->left[c];
	}
	return 0;
}

char (*tt_row(struct ttab *t))[TT_CELL]
{
	size_t room = (size_t)t->room;

	if (grow(&t->cell, sizeof(*t->cell), (size_t)t->nrow, &room, 16) != 0)
		return NULL;
	t->room = (int)room;
	memset(t->cell[t->nrow], 0, sizeof(*t->cell));
	return t->cell[t->nrow++];
}

/* One row as "name: head value, head value", wrapped under its name. */
static void list_row(FILE *out, const struct ttab *t, int i, int width)
{
	char line[TT_COLS * (TT_CELL + 40)];
	size_t o = 0;

	for (int c = 1; c < t->ncol && o < sizeof(line); c++) {
		const char *v = t->cell[i][c];
		if (!*v)
			continue;
		o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%s %s", o ? ", " : "",
				      t->head[c], v);
	}
	char first[TT_CELL + 8];
	snprintf(first, sizeof(first), "  %s: ", t->cell[i][0]);
	wrap_text(out, line, width, first, 6);
}

void tt_print(FILE *out, struct ttab *t, int width)
{
	int w[TT_COLS], total = 2;

	for (int c = 0; c < t->ncol; c++) {
		w[c] = (int)strlen(t->head[c]);
		for (int i = 0; i < t->nrow; i++)
			if ((int)strlen(t->cell[i][c]) > w[c])
				w[c] = (int)strlen(t->cell[i][c]);
		total += w[c] + (c ? 2 : 0);
	}
	if (total > width) {
		for (int i = 0; i < t->nrow; i++)
			list_row(out, t, i, width);
	} else {
		for (int i = -1; i < t->nrow; i++) {
			int last = t->ncol - 1;
			fputs("  ", out);
			for (int c = 0; c < t->ncol; c++) {
				const char *v = i < 0 ? t->head[c] : t->cell[i][c];
				/* no spaces after the last column */
				fprintf(out, "%s%*s", c ? "  " : "",
					t->left[c] ? (c == last ? 0 : -w[c]) : w[c], v);
			}
			fputc('\n', out);
		}
	}
	free(t->cell);
	t->cell = NULL;
	t->nrow = t->room = 0;
}
