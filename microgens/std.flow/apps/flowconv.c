/* flowconv.c - a spool's FLOW chunks into TRACE.flow, as a reader does after a crash
 * (runtime/format/flowconv.c, with the rows still in the windows; no names: hexadecimal).
 *   flowconv SPOOL OUT      exit 2 with one line when it cannot */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dyl_decode.h"
#include "dyl_flowconv.h"

int main(int argc, char **argv)
{
	struct stat st;
	const char *why;

	if (argc != 3)
		return 2;
	int fd = open(argv[1], O_RDONLY), out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || out < 0 || fstat(fd, &st) != 0 ||
	    dyl_flow_convert(fd, (uint64_t)st.st_size, DYL_CONV_WINDOWS, 0, 0, DYL_FLOW_F_CUT, NULL, out, &why) != 0) {
		fprintf(stderr, "flowconv: %s: cannot convert\n", argv[1]);
		return 2;
	}
	return 0;
}
