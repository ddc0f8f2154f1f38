/* device_file.c - the device description's rows (doc/devices.md):
 *   item,precision,unit,size,value,source
 * item: name, link, peak, bandwidth, capacity, launch_ns, eff, mem_eff.  The source is the
 * rest of the line (it may hold commas); the tools keep only the numbers. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "device.h"
#include "input.h"

/* The precision (s or d) and unit of a row: 0; -1 when absent or unknown. */
static int row_key(const struct csv_field *f, int *p, int *u)
{
	if (f[1].len != 1 || (f[1].s[0] != 's' && f[1].s[0] != 'd'))
		return -1;
	*p = f[1].s[0] == 'd';
	if (f[2].len == 6 && memcmp(f[2].s, "vector", 6) == 0)
		*u = UNIT_VECTOR;
	else if (f[2].len == 6 && memcmp(f[2].s, "matrix", 6) == 0)
		*u = UNIT_MATRIX;
	else
		return -1;
	return 0;
}

static int item_is(const struct csv_field *f, const char *name)
{
	return f->len == strlen(name) && memcmp(f->s, name, f->len) == 0;
}

static void copy_field(char *dst, size_t size, const struct csv_field *f)
{
	snprintf(dst, size, "%.*s", (int)f->len, f->s);
}

/* A point of curve C from the row's size and value.  0, or -1 (not increasing, full). */
static int add_point(struct dev_curve *c, double size, double frac)
{
	if (c->n == DEVICE_MAX_POINTS || frac <= 0 || frac > 1 ||
	    (c->n && size <= c->size[c->n - 1]))
		return -1;
	c->size[c->n] = size;
	c->frac[c->n++] = frac;
	return 0;
}

/* One row F into D.  0, or -1 when malformed. */
static int read_row(struct device *d, const struct csv_field *f)
{
	double v = 0, size = 0;
	int p, u;

	if (item_is(&f[0], "name"))
		return copy_field(d->title, sizeof(d->title), &f[4]), 0;
	if (item_is(&f[0], "link"))
		return copy_field(d->link, sizeof(d->link), &f[4]), f[4].len ? 0 : -1;
	if (parse_double(&f[4], &v) != NUM_OK)
		return -1;
	if (item_is(&f[0], "peak"))
		return row_key(f, &p, &u) == 0 && v > 0 ? (d->peak[p][u] = v, 0) : -1;
	if (item_is(&f[0], "bandwidth"))
		return v > 0 ? (d->bandwidth = v, 0) : -1;
	if (item_is(&f[0], "capacity"))
		return d->capacity = v, 0;
	if (item_is(&f[0], "launch_ns"))
		return d->launch_ns = v, 0;
	if (parse_double(&f[3], &size) != NUM_OK || size <= 0)
		return -1;
	if (item_is(&f[0], "eff"))
		return row_key(f, &p, &u) == 0 ? add_point(&d->eff[p][u], size, v) : -1;
	if (item_is(&f[0], "mem_eff"))
		return add_point(&d->mem_eff, size, v);
	return -1;
}

/* What a description must give: every peak and the bandwidth.  Without a link row the
 * device is the host itself: its data does not move. */
static const char *missing(const struct device *d)
{
	for (int p = 0; p < 2; p++)
		for (int u = 0; u < UNITS; u++)
			if (d->peak[p][u] <= 0)
				return "a peak row for each of s and d, vector and matrix";
	return d->bandwidth <= 0 ? "a bandwidth row" : NULL;
}

static int read_rows(struct device *d, const struct input_file *f)
{
	struct input_lines it;
	const char *line, *why;
	size_t len;
	int header = 0;

	input_lines_init(&it, f);
	while (input_next_line(&it, &line, &len)) {
		struct csv_field fl[6];
		if (len == 0 || line[0] == '#')
			continue;
		if (!header) {
			header = input_header_is(line, len, DEVICE_HEADER);
			if (!header) {
				input_error(f->path, it.lineno, "not a device description (header %s)",
					    DEVICE_HEADER);
				return -1;
			}
			continue;
		}
		if (csv_split(line, len, fl, 6) < 6 || read_row(d, fl) != 0) {
			input_error(f->path, it.lineno, "malformed device row (doc/devices.md)");
			return -1;
		}
	}
	if ((why = missing(d)) != NULL) {
		input_error(f->path, 0, "the device description lacks %s", why);
		return -1;
	}
	return 0;
}

int device_load(const char *name, struct device *d)
{
	struct input_file f;
	struct stat st;
	int rc;

	memset(d, 0, sizeof(*d));
	if (strchr(name, '/'))
		snprintf(d->path, sizeof(d->path), "%s", name);
	else
		snprintf(d->path, sizeof(d->path), "%s/%s.csv", device_dir(), name);
	if (!*name || stat(d->path, &st) != 0 || !S_ISREG(st.st_mode))
		return 1;
	const char *base = strrchr(d->path, '/');
	snprintf(d->name, sizeof(d->name), "%.63s", base ? base + 1 : d->path);
	char *dot = strrchr(d->name, '.');
	if (dot && strcmp(dot, ".csv") == 0)
		*dot = '\0';
	if (input_open(&f, d->path) != 0)
		return -1;
	rc = read_rows(d, &f);
	input_close(&f);
	return rc;
}
