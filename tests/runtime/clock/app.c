/* app.c - test_clock.py's program: 3 sleeps of 20 ms, each after about 1000 short calls */
#include <stdio.h>
#include "clk.h"
int main(void) {
	int x = 0;
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < (i < 2 ? 992 : 991); j++)
			x = tick(x);
		sleepy(20000);
	}
	printf("%d\n", x);
	return 0;
}
