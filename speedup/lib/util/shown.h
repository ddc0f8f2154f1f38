/* shown.h - a name from a file, as a person's terminal may show it: control bytes (a
 * function named "\x1b[2J..." would clear the screen or retitle the window), C1 controls
 * and bytes that are not UTF-8 written as \xHH.  For the human outputs and the messages
 * only: CSV keeps the data, JSON escapes it its own way. */
#ifndef SPEEDUP_SHOWN_H
#define SPEEDUP_SHOWN_H

#include <stddef.h>
#include <stdio.h>

/* Does S (LEN bytes) need shown()? */
int shown_needed(const char *s, size_t len);
/* S (LEN bytes) with each byte shown() escapes as \xHH, into BUF (ROOM bytes, cut
 * short with "..." when it does not fit); returns BUF. */
const char *shown(const char *s, size_t len, char *buf, size_t room);
/* S shown whole: S itself when it needs nothing, else a new string (NULL: out of
 * memory).  For names kept for the whole run. */
const char *shown_keep(const char *s, size_t len);
/* The length of the valid UTF-8 sequence at P (before END), 0 if none: no overlong
 * forms, no surrogates, nothing above U+10FFFF. */
int utf8_len(const unsigned char *p, const unsigned char *end);

/* S (LEN bytes) as a JSON string, quotes included, to OUT: quotes, backslashes and
 * control bytes escaped, a byte that is not UTF-8 as U+FFFD (a name from a trace is
 * bytes; JSON is text), so that any name or command line gives valid JSON. */
void json_str(FILE *out, const char *s, size_t len);

/* S as a CSV field, to OUT: in quotes (a quote doubled) when it holds a comma, a quote
 * or a line end, else as it is. */
void csv_str(FILE *out, const char *s);

#endif
