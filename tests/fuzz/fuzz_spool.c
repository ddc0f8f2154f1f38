/* fuzz_spool.c - the spool decoder (runtime/format/decode.c) on any bytes: a spool of a
 * process killed at any moment, damaged on disk or written by someone else.  dyl-trace
 * runs it on what it is given, and the runtime on its own spool at exit.
 *
 * The input goes into a memfd (the converter reads with pread); every row is formatted
 * into a heap buffer of exactly DYL_ROW_MAX bytes, so that a write past it is caught. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "dyl_csv.h"

static int fd = -1;
static char *row;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why;
	struct dyl_row r;
	size_t hlen;

	if (fd < 0 && ((fd = memfd_create("fuzz-spool", MFD_CLOEXEC)) < 0 ||
		       !(row = malloc(DYL_ROW_MAX))))
		abort();
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	/* as dyl-trace reads it (the windows too), or, for an odd last byte, as the runtime
	 * does at exit: one conversion an input (most of its time is mmap and munmap) */
	int flags = size && (data[size - 1] & 1) ? 0 : DYL_CONV_WINDOWS;
	{
		struct dyl_conv *c = dyl_conv_open(fd, size, flags, &why);
		if (!c)
			return 0;
		const char *header = dyl_conv_header(c, &hlen);
		volatile char sum = 0;
		for (size_t i = 0; header && i < hlen; i++)
			sum ^= header[i];	/* every byte it says it has is readable */
		unsigned ncol = dyl_conv_ncolumns(c);
		size_t rows = 0;
		while (dyl_conv_next(c, &r) && rows++ < 1000000) {
			size_t n = dyl_format_row(row, DYL_ROW_MAX, &r, ncol);
			if (n == 0 || n > DYL_ROW_MAX || row[n - 1] != '\n')
				abort();
		}
		(void)dyl_conv_last_end_ns(c);
		(void)dyl_conv_damage(c, &why);
		dyl_conv_close(c);
	}
	return 0;
}
