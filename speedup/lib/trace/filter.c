/* filter.c - --func and --time-range (filter.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "filter.h"
#include "func_names.h"
#include "grow.h"

int filter_name_kept(const struct row_filter *f, const char *name)
{
	int verdict = -1, only_excl = 1;

	/* dyliberator -f's rule (generator/select.py): the last match wins; a name no
	 * pattern matches is kept only when every pattern excludes */
	for (int i = 0; i < f->npats; i++) {
		const char *p = f->pats[i];
		int neg = p[0] == '!';
		if (!neg)
			only_excl = 0;
		if (fnmatch(neg ? p + 1 : p, name, 0) == 0)
			verdict = !neg;
	}
	return verdict >= 0 ? verdict : only_excl;
}

/* One time: a number and a unit (ns, us, ms, s); a plain 0 needs none.  0, or -1. */
static int parse_time(const char *s, size_t len, int64_t *ns)
{
	static const struct { const char *u; double scale; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char tmp[64], *end;
	double v;

	if (len == 0 || len >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = 0;
	errno = 0;
	v = strtod(tmp, &end);
	if (end == tmp || errno || v < 0 || tmp[0] == '-' || tmp[0] == '+' || v > 9e9)
		return -1;
	if (!*end && v == 0) {
		*ns = 0;
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].u)) {
			*ns = (int64_t)(v * units[i].scale + 0.5);
			return 0;
		}
	return -1;
}

/* START,END: either may be empty.  0, or -1 after a message. */
static int parse_range(struct row_filter *f, const char *spec, const char *prog)
{
	const char *comma = strchr(spec, ',');

	f->lo = 0;
	f->hi = INT64_MAX;
	if (!comma || strchr(comma + 1, ',') ||
	    (comma > spec && parse_time(spec, (size_t)(comma - spec), &f->lo) != 0) ||
	    (comma[1] && parse_time(comma + 1, strlen(comma + 1), &f->hi) != 0)) {
		fprintf(stderr, "%s: --time-range '%s': want START,END with units (ns, us, ms, s), "
			"either side may be empty: 10ms,2.5s or ,1s\n", prog, spec);
		return -1;
	}
	if (f->hi <= f->lo) {
		fprintf(stderr, "%s: --time-range '%s': the end is not after the start\n", prog, spec);
		return -1;
	}
	f->has_range = 1;
	return 0;
}

int filter_option(struct row_filter *f, int argc, char **argv, int *i, const char *prog)
{
	const char *a = argv[*i], *v = NULL;
	int func;

	if (!strcmp(a, "--func") || !strcmp(a, "--time-range")) {
		if (*i + 1 >= argc) {
			cli_bad_option(prog, a, a);	/* (the one wording, cli.h) */
			return -1;
		}
		v = argv[++*i];
	} else if (!strncmp(a, "--func=", 7) || !strncmp(a, "--time-range=", 13)) {
		v = strchr(a, '=') + 1;
	} else {
		return 0;
	}
	func = a[2] == 'f';
	if (!func)
		return parse_range(f, v, prog) == 0 ? 1 : -1;
	if (!*v || !strcmp(v, "!")) {
		fprintf(stderr, "%s: --func: an empty pattern\n", prog);
		return -1;
	}
	const char **p = realloc(f->pats, (size_t)(f->npats + 1) * sizeof(*p));
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	f->pats = p;
	f->pats[f->npats++] = v;
	if (f->verdict)	/* (a new pattern changes the verdicts) */
		memset(f->verdict, 0, f->room);
	return 1;
}

int filter_active(const struct row_filter *f)
{
	return f->npats > 0 || f->has_range;
}

int filter_keep(struct row_filter *f, uint32_t func, int64_t t_start)
{
	if (f->has_range && (t_start < f->lo || t_start >= f->hi))
		return 0;	/* (a call without a time, -1, is outside any range) */
	if (!f->npats)
		return 1;
	/* each name is matched once; out of memory, every time */
	if (func >= f->room && grow_to(&f->verdict, 1, (size_t)func + 1, &f->room, 256) != 0)
		return filter_name_kept(f, funcs_get((int)func)->name);
	if (!f->verdict[func])
		f->verdict[func] = filter_name_kept(f, funcs_get((int)func)->name) ? 1 : 2;
	return f->verdict[func] == 1;
}

/* NS for the header, in the largest unit it fills: "2.5 s", "10 ms", "0 ns". */
static void put_time(char *buf, size_t room, int64_t ns)
{
	if (ns >= 1000000000)
		snprintf(buf, room, "%g s", (double)ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, room, "%g ms", (double)ns / 1e6);
	else if (ns >= 1000)
		snprintf(buf, room, "%g us", (double)ns / 1e3);
	else
		snprintf(buf, room, "%" PRId64 " ns", ns);
}

const char *filter_describe(const struct row_filter *f, char *buf, size_t room)
{
	size_t n = 0;

	buf[0] = 0;
	if (f->npats) {
		n += (size_t)snprintf(buf + n, room - n, "functions");
		for (int i = 0; i < f->npats && n < room; i++)
			n += (size_t)snprintf(buf + n, room - n, " '%s'", f->pats[i]);
	}
	if (f->has_range && n < room) {
		char lo[32], hi[32] = "the end";
		put_time(lo, sizeof(lo), f->lo);
		if (f->hi != INT64_MAX)
			put_time(hi, sizeof(hi), f->hi);
		n += (size_t)snprintf(buf + n, room - n, "%scalls starting in [%s, %s)",
				      n ? "; " : "", lo, hi);
	}
	return buf;
}

void filter_free(struct row_filter *f)
{
	free(f->pats);
	free(f->verdict);
	memset(f, 0, sizeof(*f));
}
