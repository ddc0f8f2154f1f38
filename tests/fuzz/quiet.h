/* quiet.h - shared by the fuzz targets: the readers' one-line messages go to /dev/null
 * (millions of inputs, most of them bad); the sanitizers' reports still reach fd 2,
 * which stays open.  FUZZ_VERBOSE=1 keeps the messages. */
#ifndef FUZZ_QUIET_H
#define FUZZ_QUIET_H

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	FILE *null = getenv("FUZZ_VERBOSE") ? NULL : fopen("/dev/null", "w");

	(void)argc, (void)argv;
	if (null)
		stderr = null;	/* the stream the readers print to, not the descriptor */
	return 0;
}

#endif
