/* resolve.c - finding the original function a wrapper forwards to.
 *
 * In order:
 *  1. the library itself, if it is loaded anywhere: dlopen(RTLD_NOLOAD) finds it even
 *     in a local scope (a module loaded with dlopen(RTLD_LOCAL), as Python and
 *     ImageMagick do), where RTLD_NEXT sees nothing;
 *  2. the wrapper's successors (RTLD_NEXT, looked up from the wrapper's own object):
 *     another library defining the same name;
 *  3. the library loaded now, privately (RTLD_LOCAL), as the last resort.
 * A versioned symbol is looked up with dlvsym so that the version the program was
 * linked against is the one called.
 *
 * dlopen and dlsym are not async-signal-safe (they take locks and malloc), so signals
 * are blocked while a function is resolved: a handler that calls a wrapped function
 * would otherwise resolve it inside our interrupted dlopen.  It happens once per
 * function.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "internal.h"

static void *lookup(void *handle, const char *name, const char *version)
{
	return version ? dlvsym(handle, name, version) : dlsym(handle, name);
}

static void *open_lib(const struct dyl_lib *lib, int flags)
{
	void *h = NULL;

	if (lib->soname)
		h = dlopen(lib->soname, flags);
	if (!h && lib->path)
		h = dlopen(lib->path, flags);
	return h;
}

void *dyl_resolve(struct dyl_lib *lib, const char *name, const char *version,
		  dyl_next_fn next, const void *self)
{
	void *h, *fn = NULL;
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	dyl_busy++;
	h = __atomic_load_n(&lib->handle, __ATOMIC_ACQUIRE);
	if (!h) {
		h = open_lib(lib, RTLD_LAZY | RTLD_NOLOAD);
		if (h)
			__atomic_store_n(&lib->handle, h, __ATOMIC_RELEASE);
	}
	if (h)
		fn = lookup(h, name, version);
	if ((!fn || fn == self) && next) {
		fn = next(name, version);
		if (!fn && version)	/* another library may define it unversioned */
			fn = next(name, NULL);
	}
	if ((!fn || fn == self) && !h) {
		h = open_lib(lib, RTLD_LAZY | RTLD_LOCAL);
		if (h) {
			__atomic_store_n(&lib->handle, h, __ATOMIC_RELEASE);
			fn = lookup(h, name, version);
		}
	}
	dyl_busy--;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (fn && fn != self)
		return fn;
	/* No call can be made; returning would run garbage.  Say exactly why. */
	char msg[1024];
	int n = snprintf(msg, sizeof(msg),
			 "dyliberator: cannot find the original %s%s%s in %s (%s): %s\n", name,
			 version ? "@" : "", version ? version : "",
			 lib->soname ? lib->soname : "?", lib->path ? lib->path : "?",
			 dlerror() ? "not exported" : "library not loadable");
	if (n > 0 && write(2, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1) < 0)
		_exit(127);
	abort();
}
