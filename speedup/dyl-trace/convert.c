/* convert.c - dyl-trace convert: the CSV of a run that left its rows in its spool
 * (DYL_CONVERT=later), written at the trace's own path, as the runtime writes it at exit.
 *
 * The runtime's own converter does it (runtime/format/: decode.c, csv.c, events.c): the
 * spool's header, its rows numbered from 0, the thread events' lines, then the footer the
 * process left in the spool.  So the file is the one DYL_CONVERT=exit would have left,
 * byte for byte.  It is made beside the trace (mkstemp: 0600, as the runtime makes
 * traces: they hold argument values), synced, renamed over the trace, and then the
 * spool goes.  The trace's flock is held meanwhile: a new run of the program that
 * starts then waits for it (up to 0.5 s, runtime/trace.c's claim), then replaces the
 * converted trace as any finished one, or writes TRACE.<pid> if it is still held.
 *
 * Safety: the trace and its spool are never followed through a symlink and must be this
 * user's (the runtime's rules, doc/safety.md); the spool is removed only while its name
 * is still the file that was read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "convert.h"
#include "dyl_csv.h"
#include "dyl_events.h"
#include "dyl_keys.h"
#include "input.h"
#include "outfile.h"

#define EXIT_BAD_INPUT 2
#define STUB_MAX (256 * 1024)	/* a trace whose rows are in its spool: header and footer */
#define ROWS_IN_SPOOL DYL_KEY_NL(DYL_KEY_ROWS_IN_SPOOL)	/* its line, in the stub */
#define TOTAL_NS DYL_KEY_NL(DYL_KEY_TOTAL_NS)	/* the footer's line */

/* The value of '\n# KEY=' in TEXT (LEN bytes), or -1. */
static long long note(const char *text, size_t len, const char *key)
{
	char pat[64];
	int n = snprintf(pat, sizeof(pat), DYL_KEY_NL("%s"), key);
	const char *p = memmem(text, len, pat, (size_t)n);
	long long v = 0;

	if (!p)
		return -1;
	for (p += n; p < text + len && *p >= '0' && *p <= '9' && v < (1LL << 50); p++)
		v = v * 10 + (*p - '0');
	return v;
}

/* Opens PATH for reading as the runtime would write it: no symlink, a regular file of
 * this user's.  The descriptor, or -1 after a message. */
static int open_own(const char *path, int flags, struct stat *st)
{
	/* O_NONBLOCK: a FIFO planted there opens at once, and is refused below */
	int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0) {
		input_error(path, 0, errno == ELOOP ? "a symbolic link: refusing to convert through it"
				      : "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || st->st_uid != geteuid()) {
		input_error(path, 0, "not a regular file of this user's: refusing to convert it");
		close(fd);
		return -1;
	}
	return fd;
}

static int put_block(void *f, const char *data, size_t len)
{
	return fwrite(data, 1, len, f) != len;
}

/* Writes the CSV of the finished spool C (FD, SIZE bytes) to F.  0, or -1 (a write
 * error, said by the caller). */
static int write_csv(FILE *f, struct dyl_conv *c, int fd, uint64_t size)
{
	static char out[DYL_CONVERT_BLOCK];
	size_t len;
	const char *text = dyl_conv_header(c, &len);

	if (fwrite(text, 1, len, f) != len)
		return -1;
	dyl_conv_set_seq(c, 0);
	dyl_csv_convert(c, out, sizeof(out), put_block, f);
	if (ferror(f))
		return -1;
	char *events = dyl_events_text(c, fd, size, &len);
	int bad = events && fwrite(events, 1, len, f) != len;
	dyl_events_free(events);
	text = dyl_conv_footer(c, &len);
	return bad || fwrite(text, 1, len, f) != len ? -1 : 0;
}

/* The finished spool SPOOL (already open: FD, ST) of the trace whose process was PID
 * (-1: any).  Its decoder, or NULL after a message. */
static struct dyl_conv *open_spool(const char *spool, int fd, const struct stat *st, long long pid)
{
	const char *why;
	size_t hlen, flen;
	struct dyl_conv *c = dyl_conv_open(fd, (uint64_t)st->st_size, 0, &why);

	if (!c) {
		input_error(spool, 0, "%s", why);
		return NULL;
	}
	const char *header = dyl_conv_header(c, &hlen);
	if (!header || !dyl_conv_footer(c, &flen)) {
		input_error(spool, 0, "its process did not finish (no footer in the spool): "
			    "dyl-trace cat reads the rows it recovers");
		dyl_conv_close(c);
		return NULL;
	}
	if (pid >= 0 && note(header, hlen, DYL_KEY_PID) != pid) {
		input_error(spool, 0, "the spool of another process than its trace's (pid)");
		dyl_conv_close(c);
		return NULL;
	}
	return c;
}

/* TRACE (a trace whose rows are in its spool, or a finished spool) into OUTPATH. */
static int to_file(const char *trace, const char *outpath)
{
	char spool[4096 + 16], head[STUB_MAX];
	struct stat st;
	struct outfile of;
	long long pid = -1;
	int fd = open_own(trace, O_RDONLY, &st);

	if (fd < 0)
		return EXIT_BAD_INPUT;
	ssize_t n = pread(fd, head, sizeof(head), 0);
	if (n >= 8 && !memcmp(head, DYL_SPOOL_MAGIC, 8)) {
		snprintf(spool, sizeof(spool), "%s", trace);	/* the spool itself */
	} else if (n > 0 && memmem(head, (size_t)n, ROWS_IN_SPOOL, DYL_KEY_LEN(ROWS_IN_SPOOL)) &&
		   dyl_spool_name(spool, sizeof(spool), trace) == 0) {
		pid = note(head, (size_t)n, DYL_KEY_PID);
		close(fd);
		if ((fd = open_own(spool, O_RDONLY, &st)) < 0)
			return EXIT_BAD_INPUT;
	} else {
		input_error(trace, 0, "its rows are not in a spool (DYL_CONVERT): nothing to "
			    "convert");
		close(fd);
		return EXIT_BAD_INPUT;
	}
	struct dyl_conv *c = open_spool(spool, fd, &st, pid);
	char *inputs[2] = { (char *)trace, spool };
	int rc = EXIT_BAD_INPUT;
	if (c && outfile_open(&of, outpath, inputs, 2) == 0) {
		int bad = write_csv(of.f, c, fd, (uint64_t)st.st_size);
		if (bad)
			input_error(outpath, 0, "write error: %s", strerror(errno));
		rc = outfile_close(&of, !bad) == 0 && !bad ? 0 : EXIT_BAD_INPUT;
	}
	dyl_conv_close(c);
	close(fd);
	return rc;
}

/* TRACE (FD, ST), locked, if it is a trace whose rows are in its spool: 1, its first
 * bytes in HEAD (*N of them).  Else the exit code, after a message: 0 when it holds its
 * rows already, EXIT_BAD_INPUT for anything else. */
static int lock_stub(const char *trace, int fd, const struct stat *st, char *head, ssize_t *n)
{
	if (flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
		input_error(trace, 0, "held by a process that is still running");
		return EXIT_BAD_INPUT;
	}
	*n = pread(fd, head, STUB_MAX, 0);
	if (*n >= 8 && !memcmp(head, DYL_SPOOL_MAGIC, 8)) {
		input_error(trace, 0, "a spool: name its trace, or write the CSV elsewhere with -o FILE");
		return EXIT_BAD_INPUT;
	}
	if (*n > 0 && memmem(head, (size_t)*n, ROWS_IN_SPOOL, DYL_KEY_LEN(ROWS_IN_SPOOL)))
		return 1;
	char tail[4096];
	off_t at = st->st_size > (off_t)sizeof(tail) ? st->st_size - (off_t)sizeof(tail) : 0;
	ssize_t t = *n > 0 ? pread(fd, tail, sizeof(tail), at) : 0;
	if (t > 0 && memmem(tail, (size_t)t, TOTAL_NS, DYL_KEY_LEN(TOTAL_NS))) {
		/* (converted already: `dyl-trace convert trace.csv*` may name such files) */
		fprintf(stderr, "dyl-trace: %s: its rows are in it already\n", trace);
		return 0;
	}
	input_error(trace, 0, "not a trace whose rows are in its spool "
		    "(DYL_CONVERT): nothing to convert");
	return EXIT_BAD_INPUT;
}

/* The CSV of the spool C (SFD, SST) written beside TRACE and renamed over it, while TRACE
 * is still the file read (ST).  0, or EXIT_BAD_INPUT after a message: TRACE as it was. */
static int write_over(const char *trace, const struct stat *st, struct dyl_conv *c, int sfd,
		      const struct stat *sst)
{
	struct stat now;
	int rc = EXIT_BAD_INPUT, out = -1;
	char *tmp = NULL;
	FILE *f = NULL;
	const char *slash = strrchr(trace, '/');

	if (asprintf(&tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - trace + 1) : 0, trace,
		     slash ? slash + 1 : trace) < 0) {
		input_error(trace, 0, "out of memory");
		return EXIT_BAD_INPUT;
	}
	if ((out = mkstemp(tmp)) < 0 || !(f = fdopen(out, "w"))) {	/* (mkstemp: 0600) */
		input_error(trace, 0, "cannot create a file beside it: %s", strerror(errno));
		goto out;
	}
	out = -1;	/* f's now */
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	int bad = write_csv(f, c, sfd, (uint64_t)sst->st_size) != 0 || fflush(f) != 0 ||
		  fsync(fileno(f)) != 0;
	bad |= fclose(f) != 0;
	f = NULL;
	if (bad) {
		input_error(trace, 0, "write error: %s (left as it was)", strerror(errno));
		goto out;
	}
	/* the trace is still the file read (not replaced by a new run meanwhile) */
	if (lstat(trace, &now) != 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
		input_error(trace, 0, "replaced while it was converted: left as it is");
		goto out;
	}
	if (rename(tmp, trace) != 0) {
		input_error(trace, 0, "cannot replace it: %s (left as it was)", strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = NULL;
	rc = 0;
out:
	if (f)
		fclose(f);
	if (out >= 0)
		close(out);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	return rc;
}

/* TRACE's rows, from its spool, into TRACE itself; then the spool goes. */
static int in_place(const char *trace)
{
	char spool[4096 + 16], head[STUB_MAX];
	struct stat st, sst, now;
	int rc, sfd = -1;
	ssize_t n;
	struct dyl_conv *c = NULL;
	int fd = open_own(trace, O_RDONLY, &st);

	if (fd < 0)
		return EXIT_BAD_INPUT;
	if ((rc = lock_stub(trace, fd, &st, head, &n)) != 1)
		goto out;
	rc = EXIT_BAD_INPUT;
	if (dyl_spool_name(spool, sizeof(spool), trace) != 0) {
		input_error(trace, 0, "its name is too long");
		goto out;
	}
	if ((sfd = open_own(spool, O_RDONLY, &sst)) < 0 ||
	    !(c = open_spool(spool, sfd, &sst, note(head, (size_t)n, DYL_KEY_PID))))
		goto out;
	if (write_over(trace, &st, c, sfd, &sst) != 0)
		goto out;
	if (lstat(spool, &now) == 0 && now.st_dev == sst.st_dev && now.st_ino == sst.st_ino)
		unlink(spool);
	rc = 0;
out:
	dyl_conv_close(c);
	if (sfd >= 0)
		close(sfd);
	close(fd);	/* (and its lock) */
	return rc;
}

int cmd_convert(char **files, int n, const char *outpath)
{
	int rc = 0;

	input_what = "trace";
	if (outpath) {
		if (n != 1) {
			fprintf(stderr, "dyl-trace: convert -o FILE takes one trace (%d given)\n", n);
			return EXIT_BAD_INPUT;
		}
		return to_file(files[0], outpath);
	}
	for (int i = 0; i < n; i++)
		if (in_place(files[i]) != 0)
			rc = EXIT_BAD_INPUT;
	return rc;
}
