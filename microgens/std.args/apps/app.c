/* app.c - test_std_args.py's program: two calls of scale */
#include <stdio.h>
#include "args.h"
int main(void) {
	double y[4] = {1, 2, 3, 4}; int n = 4; double a = 2.5; point p = {1, 2};
	printf("%g\n", scale(&n, &a, y, "T", p, 7ul));
	printf("%g\n", scale(&n, &a, y, NULL == y ? "N" : "N", p, 18446744073709551615ul));
	return 0;
}
