/* libio.c - io.h */
#include <stdio.h>
#include <unistd.h>
#include "io.h"

void fill(unsigned char *buf, long n, int seed)
{
	for (long i = 0; i < n; i++)
		buf[i] = (unsigned char)((i + seed) % 255 + 1);
}

/* (the whole buffer in one write: stdout is a pipe or a file in the tests) */
static long all(int fd, const unsigned char *p, long n)
{
	long done = 0;
	while (done < n) {
		ssize_t k = write(fd, p + done, (size_t)(n - done));
		if (k <= 0)
			return -1;
		done += k;
	}
	return done;
}

long fill_send(unsigned char *buf, long n, int seed, int fd)
{
	fill(buf, n, seed);
	return all(fd, buf, n);
}

long send_buf(const unsigned char *buf, long n, int fd)
{
	return all(fd, buf, n);
}

long send_file(const unsigned char *buf, long n)
{
	long k = (long)fwrite(buf, 1, (size_t)n, stdout);
	fflush(stdout);
	return k;
}
