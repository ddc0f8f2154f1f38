/* flow_spool.c - a killed run's flow: no TRACE.flow was written at exit, but the spool
 * (the trace itself, or DIR/.NAME.dylspool beside it) keeps the FLOW chunks written out
 * so far.  The runtime's own converter (runtime/format/flowconv.c) turns them into the file's
 * bytes, here into memory (a memfd read back), with the CUT flag set. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dyl_decode.h"
#include "dyl_flowconv.h"
#include "dyl_spool.h"
#include "flow_file.h"
#include "input.h"

int flow_file_spool(struct flow_file *ff, const char *trace);

/* An open spool holding FLOW chunks: TRACE itself, or its spool.  Its fd and size; -1
 * when none; -2 after one message (a spool that is a link, a FIFO). */
static int open_spool(const char *trace, uint64_t *size)
{
	char spool[4096 + 16];
	const char *paths[2] = { trace, NULL };
	struct stat st;

	if (dyl_spool_name(spool, sizeof(spool), trace) == 0)
		paths[1] = spool;
	for (int i = 0; i < 2 && paths[i]; i++) {
		/* the trace as named; its spool never through a symbolic link; neither may
		 * be a FIFO (input.h) */
		int fd = input_open_regular(paths[i], i == 1, &st);
		if (fd < 0 && i == 1 && (fd == INPUT_NOT_REGULAR || errno == ELOOP)) {
			input_error(paths[i], 0, "%s", input_open_why(fd, errno, &st));
			return -2;
		}
		if (fd < 0)
			continue;
		if (st.st_size > 0 && dyl_flow_in_spool(fd, (uint64_t)st.st_size)) {
			*size = (uint64_t)st.st_size;
			return fd;
		}
		close(fd);
	}
	return -1;
}

/* The memfd's bytes into a new buffer.  0, or -1. */
static int read_back(int fd, struct flow_file *ff)
{
	struct stat st;
	char *buf;
	size_t got = 0;

	if (fstat(fd, &st) != 0 || !(buf = malloc((size_t)st.st_size + 1)))
		return -1;
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + got, (size_t)st.st_size - got, (off_t)got);
		if (n <= 0) {
			free(buf);
			return -1;
		}
		got += (size_t)n;
	}
	ff->data = buf;
	ff->size = got;
	ff->from_spool = 1;
	return 0;
}

int flow_file_spool(struct flow_file *ff, const char *trace)
{
	uint64_t size;
	const char *why = "no memory";
	int fd = open_spool(trace, &size), out;

	if (fd < 0)
		return fd == -2 ? -1 : 1;
	out = memfd_create("dyl-flow", MFD_CLOEXEC);
	if (out < 0 || dyl_flow_convert(fd, size, DYL_CONV_WINDOWS, 0, -1, DYL_FLOW_F_CUT, NULL,
					out, &why) != 0 || read_back(out, ff) != 0) {
		input_error(ff->path, 0, "missing, and its run's spool cannot be converted: %s", why);
		close(fd);
		if (out >= 0)
			close(out);
		return -1;
	}
	close(fd);
	close(out);
	input_warning(ff->path, 0, "missing: read from the run's spool (the run did not finish)");
	return 0;
}
