/* loader.c - test_std_regions_dwarf.py's loader: dlopens each plugin, calls its run,
 * dlcloses it */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	double s = 0;
	void *prev = NULL;
	int same = 1;
	for (int i = 1; i < argc; i++) {
		void *h = dlopen(argv[i], RTLD_NOW);
		double (*run)(int) = (double (*)(int))dlsym(h, "run");
		Dl_info di;
		dladdr((void *)run, &di);
		if (prev && di.dli_fbase != prev)
			same = 0;
		prev = di.dli_fbase;
		s += run(i);
		dlclose(h);
	}
	printf("%.1f same=%d\n", s, same);
	return 0;
}
