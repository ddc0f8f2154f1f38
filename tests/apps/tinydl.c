/* tinydl.c - loads MODULE with dlopen(RTLD_LOCAL) and runs mod_run(N).  Not linked
 * to libtiny.so. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	int (*run)(int) = (int (*)(int))dlsym(h, "mod_run");
	if (!run)
		return 1;
	printf("mod_run: %d\n", run(atoi(argv[2])));
	return 0;
}
