/* read_zero.c - read(2) from /dev/zero into fresh pages: the kernel takes the faults, in
 * its copy (test_std_faults.py). */
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
	printf("%zd\n", read(fd, p, n));
	return 0;
}
