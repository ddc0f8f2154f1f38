/* manynames: calls N functions of libnames (tests/runtime/test_names.py), each once, in
 * order, looked up by name in the global scope (so a preloaded wrapper's):
 *   manynames PREFIX N         prints "called N"
 *   manynames PREFIX N wait    then "ready" and waits on stdin (for its SIGKILL) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int names_anchor(void);	/* links libnames in */

int main(int argc, char **argv)
{
	char name[256];
	long sum = names_anchor();

	if (argc < 3)
		return 2;
	int n = atoi(argv[2]);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s%d", argv[1], i);
		int (*f)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, name);
		if (!f) {
			fprintf(stderr, "no %s\n", name);
			return 1;
		}
		sum += f(i);
	}
	printf("called %d (%ld)\n", n, sum);
	if (argc > 3 && !strcmp(argv[3], "wait")) {
		printf("ready\n");
		fflush(stdout);
		getchar();
	}
	return 0;
}
