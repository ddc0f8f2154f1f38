/* spool2csv SPOOL [OUT]: a spool's rows as the runtime writes them into its trace at exit
 * (its header, then the rows; windows not copied out are read too), into OUT (default
 * standard output); the conversion's CPU time on stderr ("convert_ns_per_row N").
 * Built against this checkout's runtime/format/ or an older checkout's convert.c (the
 * same source: bench/spool/run.sh compares the two, and checks their bytes are equal);
 * with -DHAVE_CONVERT (a checkout with runtime/format/csvconv.c) the runtime's own loop. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if __has_include("dyl_csv.h")
#include "dyl_csv.h"
#define W 1
#else
#define W 0
struct dyl_csv_writer { int unused; };
#define dyl_csv_row(w, o, n, r, c) 0
#include "dyl_spool.h"	/* before runtime/format/ */
#endif

#ifndef HAVE_CONVERT
static char out[1 << 18];
#endif

static double cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static void put(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			_exit(3);
		p += w, n -= (size_t)w;
	}
}

static int put_cb(void *arg, const char *p, size_t n)
{
	put(*(int *)arg, p, n);
	return 0;
}

int main(int argc, char **argv)
{
	struct stat st;
	const char *why;
	int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
	int ofd = argc > 2 ? open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600) : 1;

	if (fd < 0 || ofd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "usage: spool2csv SPOOL [OUT]\n");
		return 2;
	}
	double t0 = cpu_ns();
	struct dyl_conv *c = dyl_conv_open(fd, (uint64_t)st.st_size, DYL_CONV_WINDOWS, &why);
	if (!c) {
		fprintf(stderr, "spool2csv: %s: %s\n", argv[1], why);
		return 2;
	}
	size_t hlen, o = 0;
	const char *h = dyl_conv_header(c, &hlen);
	unsigned long long rows = 0;
	put(ofd, h ? h : "", h ? hlen : 0);
#ifdef HAVE_CONVERT	/* the runtime's own loop (runtime/format/csvconv.c), in its blocks
			 * (DYL_CONVERT_BLOCK) or BLOCK bytes (the environment's) */
	(void)o;
	size_t size = getenv("BLOCK") ? (size_t)atol(getenv("BLOCK")) : DYL_CONVERT_BLOCK;
	char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	rows = dyl_csv_convert(c, buf, size, put_cb, &ofd);
#else
	struct dyl_row r;
	struct dyl_csv_writer w = { 0 };
	unsigned ncol = dyl_conv_ncolumns(c);
	while (dyl_conv_next(c, &r)) {
		if (o + DYL_ROW_MAX > sizeof(out)) {
			put(ofd, out, o);
			o = 0;
		}
		o += W ? dyl_csv_row(&w, out + o, DYL_ROW_MAX, &r, ncol) : dyl_format_row(out + o, DYL_ROW_MAX, &r, ncol);
		rows++;
	}
	put(ofd, out, o);
#endif
	dyl_conv_close(c);
	double t1 = cpu_ns();
	fprintf(stderr, "rows %llu convert_ns_per_row %.2f\n", rows, rows ? (t1 - t0) / rows : 0.0);
	return 0;
}
