/* readrows TRACE: every row of a trace through the tools' reader (runtime/format/read/rows.h),
 * nothing done with them: what reading costs dyl-trace, dyl-model and dyl-speedup before
 * their own work.  Prints the rows and the CPU ns a row ("read_ns_per_row N"). */
#include <stdio.h>
#include <time.h>
#include "input.h"
#include "rows.h"

static double cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	struct trace_src src;
	struct trace_row r;
	unsigned long long n = 0, sum = 0;
	int rc;

	input_prog = "readrows";
	if (argc != 2)
		return 2;
	double t0 = cpu_ns();
	if (rows_open(&src, argv[1]) != 0)
		return 2;
	while ((rc = rows_next(&src, &r)) > 0)
		n++, sum += (unsigned long long)r.t_ns + r.func;
	rows_close(&src);
	double t1 = cpu_ns();
	fprintf(stderr, "rows %llu read_ns_per_row %.2f (%llu)\n", n, n ? (t1 - t0) / n : 0.0, sum);
	return rc < 0 ? 2 : 0;
}
