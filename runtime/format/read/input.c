/* input.c - files in memory, lines, CSV fields and numbers, without stdio on the way.
 *
 * Traces reach 10^7 rows, so nothing here is per-byte expensive: a regular file is
 * mapped whole (the page cache is the buffer; pages come in as the parse reaches them, so
 * many traces can be open at once), lines are found with memchr, fields by
 * one scan, numbers by a digit loop.  sscanf/strtoull per field would cost more than
 * everything else together.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "input.h"

const char *input_prog = "dyl-speedup";
const char *input_what = "trace or a model";

/* A pipe or a terminal: read it all, doubling the buffer. */
static int read_all(struct input_file *f, int fd)
{
	size_t room = 1 << 20, used = 0;
	char *buf = malloc(room);

	if (!buf)
		return -1;
	for (;;) {
		ssize_t n;
		if (used == room) {
			char *bigger = realloc(buf, room * 2);
			if (!bigger) {
				free(buf);
				errno = ENOMEM;
				return -1;
			}
			buf = bigger;
			room *= 2;
		}
		n = read(fd, buf + used, room - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;
			free(buf);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	f->data = buf;
	f->size = used;
	f->mapped = 0;
	return 0;
}

int input_open_regular(const char *path, int beside, struct stat *st)
{
	/* O_NONBLOCK: a FIFO opens at once (no writer needed) and is refused below */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
			    (beside ? O_NOFOLLOW : 0));

	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0) {
		int saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return INPUT_NOT_REGULAR;
	}
	return fd;
}

const char *input_open_why(int rc, int err, const struct stat *st)
{
	if (rc == INPUT_NOT_REGULAR)
		return S_ISDIR(st->st_mode) ? "is a directory, not a file"
		       : S_ISFIFO(st->st_mode) ? "is a FIFO, not a regular file: not read"
		       : "is no regular file (a device, a socket): not read";
	if (err == ELOOP)
		return "is a symbolic link: not followed (a file beside a trace must be one "
		       "of its own)";
	return strerror(err);
}

/* PATH in F: stdin ("-"), or a regular file (BESIDE: not through a symbolic link). */
static int open_input(struct input_file *f, const char *path, int beside)
{
	struct stat st;
	int fd, rc = 0;

	f->path = path;
	f->data = NULL;
	f->size = 0;
	f->mapped = 0;
	if (!beside && (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdin") == 0)) {
		/* stdin: a pipe is read to its end; it is the user's to close */
		fd = dup(0);
		if (fd < 0 || fstat(fd, &st) != 0) {
			input_error(path, 0, "cannot read: %s", strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
	} else if ((fd = input_open_regular(path, beside, &st)) < 0) {
		int err = errno;
		if (fd == INPUT_NOT_REGULAR && S_ISDIR(st.st_mode))
			input_error(path, 0, "is a directory, not a %s", input_what);
		else if (fd == INPUT_NOT_REGULAR || err == ELOOP)
			input_error(path, 0, "%s", input_open_why(fd, err, &st));
		else
			input_error(path, 0, "cannot open: %s", strerror(err));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		input_error(path, 0, "is a directory, not a %s", input_what);
		close(fd);
		return -1;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
			f->data = p;
			f->size = (size_t)st.st_size;
			f->mapped = 1;
		}
	}
	if (!f->data && !(S_ISREG(st.st_mode) && st.st_size == 0) && read_all(f, fd) != 0) {
		input_error(path, 0, "cannot read: %s", strerror(errno));
		rc = -1;
	}
	close(fd);
	return rc;
}

const char *input_shipped(const char *path)
{
	/* the checkout (bin/ beside models/), then what make install leaves */
	static const char *const roots[] = { "/..", "/../lib/dyliberator" };
	char exe[4096], *slash, *found, *real;
	ssize_t n;

	if ((strncmp(path, "models/", 7) != 0 && strncmp(path, "examples/", 9) != 0) ||
	    access(path, F_OK) == 0 || errno != ENOENT)
		return path;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return path;
	exe[n] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return path;
	*slash = '\0';
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (asprintf(&found, "%s%s/%s", exe, roots[i], path) >= 0) {
			real = realpath(found, NULL);	/* (kept for the run: f->path is it) */
			free(found);
			if (real)
				return real;
		}
	return path;
}

int input_open(struct input_file *f, const char *path)
{
	return open_input(f, input_shipped(path), 0);
}

int input_open_beside(struct input_file *f, const char *path)
{
	return open_input(f, path, 1);
}

void input_close(struct input_file *f)
{
	if (f->mapped)
		munmap((void *)f->data, f->size);
	else
		free((void *)f->data);
	f->data = NULL;
	f->size = 0;
	f->mapped = 0;
}

void input_lines_init(struct input_lines *it, const struct input_file *f)
{
	it->p = f->data;
	it->end = f->data ? f->data + f->size : NULL;	/* (NULL + 0 is undefined) */
	it->lineno = 0;
	/* a UTF-8 byte order mark, as some spreadsheets write */
	if (f->size >= 3 && memcmp(f->data, "\xef\xbb\xbf", 3) == 0)
		it->p += 3;
}

int input_next_line(struct input_lines *it, const char **line, size_t *len)
{
	const char *nl;
	size_t n;

	if (!it->p || it->p >= it->end)
		return 0;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	n = nl ? (size_t)(nl - it->p) : (size_t)(it->end - it->p);
	*line = it->p;
	if (n > 0 && it->p[n - 1] == '\r')
		n--;
	*len = n;
	it->p = nl ? nl + 1 : it->end;
	it->lineno++;
	return 1;
}

int csv_split(const char *line, size_t len, struct csv_field *fields, int max)
{
	const char *p = line, *end = line + len;
	int n = 0;

	for (;;) {
		const char *s;

		if (p < end && *p == '"') {
			/* quoted: up to the quote not followed by another quote */
			s = ++p;
			while (p < end && !(p[0] == '"' && (p + 1 == end || p[1] != '"')))
				p += (*p == '"') ? 2 : 1;
			if (n < max) {
				fields[n].s = s;
				fields[n].len = (uint32_t)(p - s);
				fields[n].quoted = 1;
			}
			if (p < end)
				p++;	/* the closing quote */
			while (p < end && *p != ',')
				p++;	/* text after the closing quote: kept out, as spreadsheets do */
		} else {
			s = p;
			while (p < end && *p != ',')
				p++;
			if (n < max) {
				fields[n].s = s;
				fields[n].len = (uint32_t)(p - s);
				fields[n].quoted = 0;
			}
		}
		n++;
		if (p >= end)
			return n;
		p++;	/* the comma */
	}
}

char *csv_strdup(const struct csv_field *f)
{
	char *out = malloc((size_t)f->len + 1), *o = out;

	if (!out)
		return NULL;
	for (uint32_t i = 0; i < f->len; i++) {
		*o++ = f->s[i];
		if (f->quoted && f->s[i] == '"' && i + 1 < f->len && f->s[i + 1] == '"')
			i++;
	}
	*o = '\0';
	return out;
}

int parse_u64(const struct csv_field *f, uint64_t *out)
{
	const char *s = f->s;
	uint32_t n = f->len, i = 0;
	uint64_t v = 0;

	if (n == 0)
		return NUM_EMPTY;
	if (s[0] == '-')
		return (n > 1 && s[1] >= '0' && s[1] <= '9') ? NUM_NEGATIVE : NUM_NOT_A_NUMBER;
	if (s[0] == '+')
		i = 1;
	if (i == n)
		return NUM_NOT_A_NUMBER;
	/* 19 digits always fit in 64 bits; the 20th needs a check */
	for (; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (d > 9)
			return NUM_NOT_A_NUMBER;
		if (v > (UINT64_MAX - d) / 10)
			return NUM_TOO_LARGE;
		v = v * 10 + d;
	}
	*out = v;
	return NUM_OK;
}

int parse_double(const struct csv_field *f, double *out)
{
	char buf[64], *endp;
	double v;

	if (f->len == 0)
		return NUM_EMPTY;
	if (f->len >= sizeof(buf))
		return NUM_NOT_A_NUMBER;
	memcpy(buf, f->s, f->len);
	buf[f->len] = '\0';
	errno = 0;
	v = strtod(buf, &endp);
	if (endp == buf || *endp != '\0' || isnan(v))
		return NUM_NOT_A_NUMBER;
	if (isinf(v) || errno == ERANGE)
		return v < 0 ? NUM_NEGATIVE : NUM_TOO_LARGE;
	if (v < 0 || (v == 0 && signbit(v)))
		return NUM_NEGATIVE;
	*out = v;
	return NUM_OK;
}

void input_number_error(const char *path, unsigned long lineno, const char *name,
			const struct csv_field *f, int why)
{
	int shown = f->len > 40 ? 40 : (int)f->len;

	switch (why) {
	case NUM_EMPTY:
		input_error(path, lineno, "%s is empty", name);
		break;
	case NUM_NEGATIVE:
		input_error(path, lineno, "%s is negative (%.*s)", name, shown, f->s);
		break;
	case NUM_TOO_LARGE:
		input_error(path, lineno, "%s is too large (%.*s)", name, shown, f->s);
		break;
	default:
		input_error(path, lineno, "%s is not a number ('%.*s')", name, shown, f->s);
	}
}

static void message(const char *kind, const char *path, unsigned long lineno, const char *fmt,
		    va_list ap)
{
	char text[1024];

	vsnprintf(text, sizeof(text), fmt, ap);
	if (path && lineno)
		fprintf(stderr, "%s: %s:%lu: %s%s\n", input_prog, path, lineno, kind, text);
	else if (path)
		fprintf(stderr, "%s: %s: %s%s\n", input_prog, path, kind, text);
	else
		fprintf(stderr, "%s: %s%s\n", input_prog, kind, text);
}

void input_error(const char *path, unsigned long lineno, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message("", path, lineno, fmt, ap);
	va_end(ap);
}

void input_warning(const char *path, unsigned long lineno, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message("warning: ", path, lineno, fmt, ap);
	va_end(ap);
}

int input_header_is(const char *line, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(line, prefix, n) == 0 && (len == n || line[n] == ',');
}
