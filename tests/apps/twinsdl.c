/* twinsdl.c - loads two modules (twinmod.c, each linked to its own libtwin: twin.h,
 * same function, different code) with dlopen, then runs each one's mod_run(N) and
 * prints the results.  The first is loaded RTLD_LOCAL, or RTLD_GLOBAL with a 4th
 * argument "global"; the second always RTLD_LOCAL.  Without a wrapper the dynamic
 * linker binds each module's twin_step in its own scope: the global scope first, then
 * the module and its dependencies. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int (*load(const char *path, int global))(int)
{
	void *h = dlopen(path, RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));

	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		exit(1);
	}
	return (int (*)(int))dlsym(h, "mod_run");
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	int n = atoi(argv[3]);
	int (*first)(int) = load(argv[1], argc > 4 && !strcmp(argv[4], "global"));
	int (*second)(int) = load(argv[2], 0);

	if (!first || !second)
		return 1;
	printf("first: %d\n", first(n));
	printf("second: %d\n", second(n));
	return 0;
}
