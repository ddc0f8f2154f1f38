/* flow_maps.c - mappings handed to a library call, for std.flow's names of mapping
 * objects (tests/tools/test_flow_real.py): a file mapped read-only, and an anonymous
 * mapping filled by the program.  Both are summed by the reference BLAS's dasum_.
 *
 *   flow_maps FILE          (FILE: at least 8192 bytes of doubles)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "../../examples/blas.h"

int main(int argc, char **argv)
{
	int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1, n = 1024, one = 1;
	if (fd < 0) {
		fprintf(stderr, "usage: flow_maps FILE\n");
		return 2;
	}
	double *file = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fd, 0);	/* SITE FILE */
	int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS;
	double *anon = mmap(NULL, 8192, prot, flags, -1, 0);	/* SITE ANON */
	if (file == MAP_FAILED || anon == MAP_FAILED)
		return 1;
	for (int i = 0; i < n; i++)
		anon[i] = i % 4;
	printf("%.1f %.1f\n", dasum_(&n, file, &one), dasum_(&n, anon, &one));
	munmap(file, 8192);
	munmap(anon, 8192);
	close(fd);
	return 0;
}
