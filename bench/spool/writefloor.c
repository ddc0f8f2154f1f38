/* writefloor CSV OUT ROWS: the floor under a conversion into a file: CSV's bytes written
 * into OUT with write(2) alone, in blocks of 256 KiB as the runtime writes its trace (the
 * first block of CSV, repeated until as many bytes are written), nothing formatted.
 * Prints the CPU ns a row of ROWS ("write_ns_per_row N"). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char buf[256 * 1024];

static double cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	struct stat st;
	int in = argc == 4 ? open(argv[1], O_RDONLY) : -1;
	int out = argc == 4 ? open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600) : -1;
	double rows = argc == 4 ? atof(argv[3]) : 0;
	ssize_t n = in >= 0 ? read(in, buf, sizeof(buf)) : -1;

	if (out < 0 || n <= 0 || rows <= 0 || fstat(in, &st) != 0) {
		fprintf(stderr, "usage: writefloor CSV OUT ROWS\n");
		return 2;
	}
	double t0 = cpu_ns();
	for (off_t left = st.st_size; left > 0;) {
		ssize_t w = write(out, buf, left < n ? (size_t)left : (size_t)n);
		if (w <= 0)
			return 3;
		left -= w;
	}
	close(out);
	fprintf(stderr, "write_ns_per_row %.2f\n", (cpu_ns() - t0) / rows);
	return 0;
}
