/* report_fmt.h - how dyl-speedup's outputs write a number or a string: times and ratios
 * for people, numbers and strings as JSON and CSV fields.  The bottom of the report:
 * report.c, its parts (report_threads.c, report_xfer.c) and plan.c call it, it calls
 * none of them. */
#ifndef SPEEDUP_REPORT_FMT_H
#define SPEEDUP_REPORT_FMT_H

#include <stdio.h>

/* NS in s, ms, us or ns, with four significant digits and never an exponent. */
const char *fmt_ns(char *buf, size_t room, double ns);
/* a speedup with 4 significant digits; "-" when not a number */
const char *fmt_ratio(char *buf, size_t room, double x);
/* X exactly, as few digits as read back as X; null when undefined or infinite */
void json_number(FILE *out, double x);
/* the same, and nothing when undefined or infinite */
void csv_number(FILE *out, double x);
/* a C string as JSON (shown.h) */
void json_string(FILE *out, const char *s);

#endif
