/* spool.c - a trace whose process did not finish, read from the runtime's spool.
 *
 * While a program runs, its calls are in the spool beside the trace (DIR/.NAME.dylspool,
 * runtime/include/dyl_spool.h); the CSV is written from it when the program ends.  A
 * program killed before that (SIGKILL, a power cut of the terminal) leaves a trace
 * without its '# total_ns' footer, often empty, and the spool.  Every input file passes
 * through here: a spool given by name, or a trace without footer that has its spool
 * beside it, becomes the CSV the runtime would have written (without the footer: the
 * run's length is not known), converted by the runtime's own code (convert.c).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dyl_spool.h"
#include "input.h"
#include "spool.h"

static int is_spool(const char *data, size_t size)
{
	return size >= 8 && memcmp(data, DYL_SPOOL_MAGIC, 8) == 0;
}

/* Does the CSV trace in DATA end with its footer? */
static int finished(const char *data, size_t size)
{
	size_t tail = size < 4096 ? size : 4096;
	return memmem(data + size - tail, tail, "# total_ns=", 11) != NULL;
}

/* The value of '# pid=' in a trace's first lines, or -1.  Read within SIZE: a mapped
 * file has no NUL after its last byte (strtol could run past it). */
static long pid_of(const char *data, size_t size)
{
	const char *p = memmem(data, size < 4096 ? size : 4096, "\n# pid=", 7);
	long pid = 0;

	if (!p)
		return -1;
	for (p += 7; p < data + size && *p >= '0' && *p <= '9' && pid < (1L << 40); p++)
		pid = pid * 10 + (*p - '0');
	return pid;
}

struct text {
	char *s;
	size_t len, room;
};

static int put(struct text *t, const char *s, size_t n)
{
	if (t->len + n > t->room) {
		size_t room = t->room ? t->room : 1 << 20;
		while (room < t->len + n)
			room *= 2;
		char *bigger = realloc(t->s, room);
		if (!bigger)
			return -1;
		t->s = bigger;
		t->room = room;
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	return 0;
}

/* The CSV of the spool FD (SIZE bytes), for F; 0, or -1 after one message. */
static int convert(struct input_file *f, const char *spool, int fd, uint64_t size, long want_pid)
{
	const char *why;
	struct dyl_conv *c = dyl_conv_open(fd, size, DYL_CONV_WINDOWS, &why);
	struct text t = { 0 };
	char row[DYL_ROW_MAX], note[256];
	size_t hlen;

	if (!c) {
		input_error(spool, 0, "%s", why);
		return -1;
	}
	const char *header = dyl_conv_header(c, &hlen);
	if (!header || !hlen) {
		input_error(spool, 0, "no header in it: the process died as the spool was made");
		dyl_conv_close(c);
		return -1;
	}
	if (want_pid >= 0 && pid_of(header, hlen) != want_pid) {
		/* the trace names another process than the spool: not its spool */
		dyl_conv_close(c);
		return 1;
	}
	int bad = put(&t, header, hlen);
	struct dyl_row r;
	unsigned ncol = dyl_conv_ncolumns(c);
	while (!bad && dyl_conv_next(c, &r))
		bad = put(&t, row, dyl_format_row(row, sizeof(row), &r, ncol));
	int n = snprintf(note, sizeof(note),
			 "# recovered_from=%s\n# last_end_ns=%llu\n", spool,
			 (unsigned long long)dyl_conv_last_end_ns(c));
	/* the runtime could not write the spool (a full disk): why its rows end there */
	uint32_t flags;
	int full = pread(fd, &flags, sizeof(flags), offsetof(struct dyl_spool_head, zero)) ==
		   sizeof(flags) && (flags & DYL_SPOOL_DISK_FULL);
	if (full && (size_t)n < sizeof(note))
		n += snprintf(note + n, sizeof(note) - (size_t)n, "# error=disk full (the spool "
			      "could not be written further)\n");
	if (!bad)
		bad = put(&t, note, (size_t)n);
	const char *lost;
	uint64_t at = dyl_conv_damage(c, &lost);
	if (!bad && at)
		input_warning(spool, 0, "damaged at byte %llu (sizes that do not add up): %s",
			      (unsigned long long)at, lost);
	else if (!bad && dyl_conv_cut_short(c))
		input_warning(spool, 0, "its last part was cut short (%s); the rows before it "
			      "are read", full ? "the disk was full" : "the process died while writing it");
	dyl_conv_close(c);
	if (bad) {
		free(t.s);
		input_error(spool, 0, "out of memory");
		return -1;
	}
	input_close(f);
	f->data = t.s;
	f->size = t.len;
	f->mapped = 0;
	return 0;
}

static int map_and_convert(struct input_file *f, const char *spool, long want_pid)
{
	struct stat st;
	int fd = open(spool, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 1;	/* no spool: the trace is what there is */
	if (fstat(fd, &st) != 0 || st.st_size == 0) {
		close(fd);
		return 1;
	}
	int rc = convert(f, spool, fd, (uint64_t)st.st_size, want_pid);
	close(fd);
	return rc;
}

int spool_recover(struct input_file *f)
{
	char spool[4096 + 16];

	if (f->data && is_spool(f->data, f->size)) {
		/* the spool itself: read again from its file */
		int rc = strcmp(f->path, "-") ? map_and_convert(f, f->path, -1) : 1;
		if (rc > 0)
			input_error(f->path, 0, "a spool is read from its file, not from a pipe");
		return rc != 0 ? -1 : 0;
	}
	if (!strcmp(f->path, "-") || (f->data && finished(f->data, f->size)))
		return 0;
	if (f->data && memcmp(f->data, "# dyliberator trace", f->size < 19 ? f->size : 19) != 0)
		return 0;	/* not a trace of ours (a model, say) */
	if (dyl_spool_name(spool, sizeof(spool), f->path) != 0)
		return 0;
	long pid = f->data ? pid_of(f->data, f->size) : -1;
	int rc = map_and_convert(f, spool, pid);
	if (rc == 0)
		input_warning(f->path, 0, "the process did not finish; its rows are read from "
			      "its spool %s", spool);
	return rc < 0 ? -1 : 0;
}
