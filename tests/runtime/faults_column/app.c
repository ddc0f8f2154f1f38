/* app.c - test_faults_column.py's program: 40 calls, then (with 'wait') waits to be
 * killed */
#include <stdio.h>
#include <string.h>
#include "twice.h"
int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < 40; i++)
		s += twice(i);
	printf("ready %d\n", s);
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "wait"))
		getchar();	/* killed here */
	return 0;
}
