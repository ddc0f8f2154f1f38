/* bigoff.c - produce() and consume() on 100 doubles at 4.5 GiB into a 5 GiB mapping
 * (MAP_NORESERVE: only the pages touched are memory), then at its start: an access past
 * 2^32 bytes into its region, which std.flow cannot write in its packed 2-word form. */
#include <stdio.h>
#include <sys/mman.h>
#include "fl.h"

int main(void)
{
	size_t size = (size_t)5 << 30, off = ((size_t)9 << 29) / sizeof(double);
	double *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	produce(p + off, 100);
	printf("%g\n", consume(p + off, 100));
	produce(p, 100);
	printf("%g\n", consume(p, 100));
	munmap(p, size);
	return 0;
}
