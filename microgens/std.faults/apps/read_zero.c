/* read_zero.c - pread(2) from /dev/zero into fresh pages: the kernel takes the faults, in
 * its copy (test_std_faults.py).  pread, not read: read is the runtime's own (it records
 * pipe reads, runtime/include/dyl_procs.h), which no wrapper of libc wraps. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	size_t n = 40 * 4096;
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open("/dev/zero", O_RDONLY);
	madvise(p, n, MADV_NOHUGEPAGE);
	printf("%zd\n", pread(fd, p, n, 0));
	return 0;
}
