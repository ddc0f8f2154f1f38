/* report_fmt.c - numbers and strings as dyl-speedup's outputs write them (report_fmt.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report_fmt.h"
#include "shown.h"

const char *fmt_ns(char *buf, size_t room, double ns)
{
	static const struct { double scale; const char *unit; } units[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" },
	};
	size_t u = 0;

	double v;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && fabs(ns) < units[u].scale)
		u++;
	v = ns / units[u].scale;
	/* four significant digits, never an exponent */
	snprintf(buf, room, "%.*f %s", fabs(v) >= 100 ? 1 : fabs(v) >= 10 ? 2 : 3, v, units[u].unit);
	return buf;
}

const char *fmt_ratio(char *buf, size_t room, double x)
{
	if (isnan(x))
		snprintf(buf, room, "-");
	else if (isinf(x))
		snprintf(buf, room, "inf");
	else
		snprintf(buf, room, "%.4g", x);
	return buf;
}

/* The shortest of %.15g..%.17g that reads back as X: exact, and 0.4 stays 0.4. */
static void put_double(FILE *out, double x)
{
	char buf[40];

	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, sizeof(buf), "%.*g", digits, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	fputs(buf, out);
}

/* JSON has no NaN or infinity: an undefined or infinite ratio is null. */
void json_number(FILE *out, double x)
{
	if (isfinite(x))
		put_double(out, x);
	else
		fputs("null", out);
}

void csv_number(FILE *out, double x)
{
	if (isfinite(x))
		put_double(out, x);	/* empty when undefined or infinite */
}

/* A C string as JSON (shown.h) */
void json_string(FILE *out, const char *s)
{
	json_str(out, s, strlen(s));
}
