/* report_wrap.h - text laid out for a terminal of a given width (report_text.c): paragraphs
 * broken at spaces, and tables that turn into one wrapped line a row when too wide. */
#ifndef SPEEDUP_REPORT_WRAP_H
#define SPEEDUP_REPORT_WRAP_H

#include <stdio.h>

/* TEXT on OUT in lines of at most WIDTH columns, broken at spaces: the first line after
 * FIRST (a prefix: "  - "), the others indented by NEXT spaces.  A word longer than a
 * line stays whole. */
void wrap_text(FILE *out, const char *text, int width, const char *first, int next);

#define TT_COLS 9
#define TT_CELL 96

/* A table: its head, then rows of cells (column 0 names the row). */
struct ttab {
	int ncol, nrow, room;
	const char *head[TT_COLS];
	int left[TT_COLS];	/* 1: left-aligned (text); else right (numbers) */
	char (*cell)[TT_COLS][TT_CELL];
};

/* A table of the NCOL columns HEAD ("<" first: left-aligned).  0 or -1 (no memory). */
int tt_init(struct ttab *t, int ncol, const char *const *head);
/* A new row: its cells, to be filled with snprintf (NULL out of memory). */
char (*tt_row(struct ttab *t))[TT_CELL];
/* Prints T indented by two spaces: as a table when it fits WIDTH, else a row a line
 * ("name: head value, head value"), wrapped.  Frees it. */
void tt_print(FILE *out, struct ttab *t, int width);

#endif
