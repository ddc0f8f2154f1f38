/* outfile.c - see outfile.h.
 *
 * The new file is made with mkstemp in FILE's folder (a rename within one file system
 * is atomic, and a reader of FILE sees the old or the new output, never half of it),
 * for its owner only (0600, less the umask), as the trace it comes from is: a copy or
 * a conversion of a trace holds the program's argument values.  rename replaces
 * a symlink named FILE with the output, never the file it points to.  What is not a
 * regular file (a device, a FIFO) is written directly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "input.h"
#include "outfile.h"

/* PATH names the same file as input IN (by device and inode: another name, a link or
 * "./x" for "x" are the same file). */
static int same_file(const struct stat *out, const char *in)
{
	struct stat st;
	int rc = strcmp(in, "-") == 0 ? fstat(0, &st) : stat(in, &st);

	return rc == 0 && st.st_dev == out->st_dev && st.st_ino == out->st_ino;
}

int outfile_open(struct outfile *o, const char *path, char *const *inputs, int n)
{
	struct stat st;
	const char *slash = strrchr(path, '/');
	int fd;
	mode_t mask;

	memset(o, 0, sizeof(*o));
	o->path = path;
	if (stat(path, &st) == 0) {
		for (int i = 0; i < n; i++)
			if (same_file(&st, inputs[i])) {
				input_error(path, 0, "is also an input (%s): refusing to write over it",
					    inputs[i]);
				return -1;
			}
		if (S_ISDIR(st.st_mode)) {
			input_error(path, 0, "is a folder");
			return -1;
		}
		/* /dev/null, /dev/stdout, a FIFO: written as they are (a file put in their
		 * place, by root in /dev, would break them for everyone) */
		if (!S_ISREG(st.st_mode)) {
			if (!(o->f = fopen(path, "w"))) {
				input_error(path, 0, "cannot write: %s", strerror(errno));
				return -1;
			}
			return 0;
		}
	}
	/* FOLDER/.NAME.XXXXXX: hidden, and beside FILE on its file system */
	if (asprintf(&o->tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
		     slash ? slash + 1 : path) < 0) {
		o->tmp = NULL;
		input_error(path, 0, "out of memory");
		return -1;
	}
	if ((fd = mkstemp(o->tmp)) < 0) {
		input_error(path, 0, "cannot create a file beside it: %s", strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0600 & ~mask) != 0 || !(o->f = fdopen(fd, "w"))) {
		input_error(o->tmp, 0, "%s", strerror(errno));
		close(fd);
		outfile_close(o, 0);
		return -1;
	}
	return 0;
}

int outfile_close(struct outfile *o, int ok)
{
	int rc = 0;

	if (o->f) {
		int bad = fflush(o->f) != 0 || ferror(o->f) || (o->tmp && fsync(fileno(o->f)) != 0);
		const char *kept = o->tmp ? " (left as it was)" : "";
		if (ok && bad)
			input_error(o->path, 0, "write error: %s%s", strerror(errno), kept);
		if (fclose(o->f) != 0 && ok && !bad) {
			input_error(o->path, 0, "write error: %s%s", strerror(errno), kept);
			bad = 1;
		}
		o->f = NULL;
		ok = ok && !bad;
		rc = bad ? -1 : 0;
	}
	if (!o->tmp)
		return rc;
	if (ok && rename(o->tmp, o->path) != 0) {
		input_error(o->path, 0, "cannot replace it: %s (left as it was)", strerror(errno));
		ok = 0;
		rc = -1;
	}
	if (!ok)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	return rc;
}
