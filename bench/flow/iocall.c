/* iocall.c - what an interposed I/O function costs when host_reads has nothing
 * protected (the program makes no wrapped call): N calls each of write(2) of 64 bytes
 * to /dev/null, pread(2) of 64 bytes from /dev/zero, open+close of /dev/null, and
 * getrandom of 16 bytes.  Prints each one's CPU ns a call (getrusage, the process).
 *   iocall N */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <unistd.h>

static double cpu_ns(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e9 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e3;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	char buf[64] = { 0 };
	int null = open("/dev/null", O_WRONLY), zero = open("/dev/zero", O_RDONLY);
	if (null < 0 || zero < 0 || n <= 0)
		return 2;
	double t = cpu_ns();
	for (long i = 0; i < n; i++)
		if (write(null, buf, sizeof(buf)) != sizeof(buf))
			return 1;
	double t1 = cpu_ns();
	printf("write_ns %.1f\n", (t1 - t) / n);
	for (long i = 0; i < n; i++)
		if (pread(zero, buf, sizeof(buf), 0) != sizeof(buf))
			return 1;
	double t2 = cpu_ns();
	printf("pread_ns %.1f\n", (t2 - t1) / n);
	for (long i = 0; i < n; i++)
		close(open("/dev/null", O_RDONLY));
	double t3 = cpu_ns();
	printf("open_close_ns %.1f\n", (t3 - t2) / n);
	for (long i = 0; i < n; i++)
		if (getrandom(buf, 16, 0) != 16)
			return 1;
	printf("getrandom_ns %.1f\n", (cpu_ns() - t3) / n);
	return 0;
}
