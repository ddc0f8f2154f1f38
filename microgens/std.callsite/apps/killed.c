/* killed.c - test_std_callsite.py's program killed after 4 calls: its trace has no
 * footer, so no module table (the rows come from its spool) */
#include <signal.h>
#include <stdio.h>
#include "cs.h"

int main(void)
{
	long t = 0;

	for (int i = 0; i < 4; i++)
		t += cs_work(i);
	printf("%ld\n", t);
	fflush(stdout);
	raise(SIGKILL);
	return 0;
}
