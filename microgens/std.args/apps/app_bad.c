/* app_bad.c - test_std_args.py's program of bad strings: tag() with a good one, a pointer
 * to nothing (1), NULL, and one that runs into a page that is not mapped; errno set
 * before each call and printed as the library saw it (the wrapper must not change it). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "args.h"
int main(void) {
	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || munmap(m + page, page) != 0)
		return 1;
	memcpy(m + page - 3, "abc", 3);	/* no NUL before the unmapped page */
	const char *args[] = { "sha256", (const char *)1, NULL, m + page - 3 };
	for (int i = 0; i < 4; i++) {
		errno = 1000 + i;
		printf("%d\n", tag(args[i]));
	}
	return 0;
}
