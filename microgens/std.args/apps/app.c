/* app.c - test_std_args.py's program: two calls of scale, two of named */
#include <stdio.h>
#include "args.h"
int main(void) {
	double y[4] = {1, 2, 3, 4}; int n = 4; double a = 2.5; point p = {1, 2};
	char mode[2] = {'N', 'X'};	/* a Fortran character: no NUL after it */
	printf("%g\n", scale(&n, &a, y, "T", p, 7ul));
	printf("%g\n", scale(&n, &a, y, NULL == y ? "N" : "N", p, 18446744073709551615ul));
	printf("%d\n", named("a \"name\"\tof forty characters, and more", mode, 1));
	printf("%d\n", named("short", mode, 1));
	return 0;
}
