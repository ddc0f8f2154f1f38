/* wrap.h - text for people wrapped to the terminal: words kept whole, the lines after
 * the first under a hanging indent.  For the notes of the reports (dyl-speedup); CSV and
 * JSON are never wrapped. */
#ifndef SPEEDUP_WRAP_H
#define SPEEDUP_WRAP_H

#include <stdio.h>

/* The width to wrap to: $COLUMNS when it is a number, else FD's terminal's width
 * (TIOCGWINSZ), else 80 (a file, a pipe).  At least 20. */
int wrap_width(int fd);

/* TEXT to OUT in lines of at most WIDTH columns (a UTF-8 character is one): the first
 * line starts with FIRST ("  - "), the others with as many blanks.  Breaks go at blanks
 * only (not inside "'# key=v'", a trace's line quoted), so a word longer than the line
 * stands alone on its own; a '\n' in TEXT ends a line.  Each line ends in '\n'. */
void wrap_put(FILE *out, const char *text, const char *first, int width);

#endif
