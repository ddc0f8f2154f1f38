/* livebench - std.flow's memory per live heap block (issue 23's goal: at most 16 bytes
 * a block plus the sites): one wrapped call (the spool exists), then N blocks of 32
 * bytes from one site, all live; prints the peak RSS (VmHWM) in KiB at that point,
 * before the exit's conversion.   livebench N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptrs.h"

static long hwm_kib(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			v = atol(line + 6);
	if (f)
		fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	void **live = malloc((size_t)n * sizeof(*live));
	double one = 1;

	if (!live)
		return 1;
	long s = p1(&one);
	for (long i = 0; i < n; i++) {
		live[i] = malloc(32);
		__asm__ volatile("" : : "r"(live[i]) : "memory");
	}
	printf("peak_kib %ld\n", hwm_kib());
	if (getenv("LIVEBENCH_STATUS"))	/* the kinds of memory, to see where it went */
		system("grep -E 'Rss|VmHWM' /proc/$PPID/status >&2; awk '/^[0-9a-f]+-/ {m=$0} /^Rss:/ && $2 > 8000 {print $2, m}' /proc/$PPID/smaps >&2");
	for (long i = 0; i < n; i++)
		free(live[i]);
	free(live);
	return s == 42;
}
