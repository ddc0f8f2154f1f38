/* dyl_front_app.c - the program of tests/tools/test_dyl_front.py, run under dyl record.
 * It calls cblas_ddot of the reference BLAS N times on vectors of 1000 doubles, then:
 *   dyl_front_app N out CODE    prints one line to stdout and one to stderr, exits CODE
 *   dyl_front_app N term        kills itself with SIGTERM
 *   dyl_front_app N wait FILE   creates FILE, then waits for a signal
 *   dyl_front_app N exec M      execs itself as dyl_front_app M out 0 (the same process)
 * Build: cc -O2 -o dyl_front_app dyl_front_app.c -I/usr/include/x86_64-linux-gnu \
 *            /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 -Wl,-rpath,/usr/lib/x86_64-linux-gnu/blas */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cblas.h>

int main(int argc, char **argv)
{
	static double x[1000], y[1000];
	double sum = 0;
	int n = argc > 1 ? atoi(argv[1]) : 1;
	const char *mode = argc > 2 ? argv[2] : "out";

	for (int i = 0; i < 1000; i++) {
		x[i] = i % 7;
		y[i] = 1.0 / (1 + i % 5);
	}
	for (int i = 0; i < n; i++)
		sum += cblas_ddot(1000, x, 1, y, 1);
	if (strcmp(mode, "term") == 0) {
		raise(SIGTERM);
		return 1;
	}
	if (strcmp(mode, "exec") == 0 && argc > 3) {
		char *again[] = {argv[0], argv[3], "out", "0", NULL};
		execv("/proc/self/exe", again);
		return 1;
	}
	if (strcmp(mode, "wait") == 0 && argc > 3) {
		FILE *f = fopen(argv[3], "w");
		if (f)
			fclose(f);
		pause();
		return 1;
	}
	printf("sum %.3f\n", sum);
	fprintf(stderr, "to stderr %d\n", n);
	return argc > 3 ? atoi(argv[3]) : 0;
}
