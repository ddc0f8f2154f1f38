/* sweep.c - the calls a model needs: `sweep W...` calls sleepk(W) five times each, one
 * after another, for dyl-model to time the faster twin (run.py). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/prctl.h>
#include "sleepk.h"

int main(int argc, char **argv)
{
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	for (int i = 1; i < argc; i++)
		for (int r = 0; r < 5; r++)
			sleepk(atol(argv[i]));
	return 0;
}
