/* dyl_process.h - the exec family and _exit, interposed from each wrapper.
 *
 * A process image that ends without exit() (exec, _exit) runs no atexit handler and no
 * destructor, so the rows the runtime still holds would be lost.  These trampolines
 * catch those calls, let the runtime write its rows out (dyl_image_ends), then call the
 * next definition (the C library's, or another preloaded wrapper's).
 *
 * Why here and not in libdylrt.so: interposition needs the definition to come before
 * the C library in the global scope.  The wrapper is preloaded, so it does; the runtime
 * is only the wrapper's dependency and comes after the program's own dependencies
 * (libc among them), where it interposes nothing.
 *
 * The definitions are weak (a wrapper made of several files links) and exported.
 * Generated wrappers include this file through dyl_wrap.h (the generator never wraps these
 * names itself); DYL_NO_PROCESS_HOOKS turns it off.  Only shared objects (-fPIC, not -fPIE)
 * get them.
 */
#ifndef DYL_PROCESS_H
#define DYL_PROCESS_H

#if !defined(DYL_NO_PROCESS_HOOKS) && !defined(__cplusplus) && defined(__PIC__) && \
	!defined(__PIE__)

#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>

#ifndef RTLD_NEXT	/* <dlfcn.h> without _GNU_SOURCE */
#define RTLD_NEXT ((void *)-1l)
#endif

#define DYL_HOOK __attribute__((visibility("default"), weak))

/* the next definition of NAME after this wrapper, looked up once */
static void *dyl_hook_next(const char *name, void **cache)
{
	void *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = dlsym(RTLD_NEXT, name);
		__atomic_store_n(cache, fn, __ATOMIC_RELEASE);
	}
	return fn;
}

#define DYL_HOOK_NEXT(name, type) \
	({ static void *dyl_cache_; (type)dyl_hook_next(#name, &dyl_cache_); })

/* The new image's environment: ENVP with MARK (dyl_proc_exec's "DYL_EXEC_OF=PID") in
 * place of any DYL_EXEC_OF it had, into OUT (room for ENVP's entries and two more). */
static void dyl_exec_env(char **out, char *const *envp, const char *mark)
{
	static const char key[] = "DYL_EXEC_OF=";
	size_t o = 0;

	for (size_t i = 0; envp && envp[i]; i++) {
		size_t k = 0;
		while (k < sizeof(key) - 1 && envp[i][k] == key[k])
			k++;
		if (k < sizeof(key) - 1)
			out[o++] = envp[i];
	}
	out[o++] = (char *)mark;
	out[o] = NULL;
}

/* Runs CALL (an exec with the environment ENV) with ENVP plus MARK as ENV: an array on
 * this stack (a vfork child may be here: no allocation); CALL as it is without MARK. */
#define DYL_EXEC_WITH(mark, envp, r, call_with_env, call_as_is)             \
	do {                                                                 \
		if (!(mark)) {                                               \
			r = call_as_is;                                      \
			break;                                               \
		}                                                            \
		size_t n_ = 0;                                               \
		while ((envp) && (envp)[n_])                                 \
			n_++;                                                \
		char *env[n_ + 2];                                           \
		dyl_exec_env(env, envp, mark);                               \
		r = call_with_env;                                           \
	} while (0)

DYL_HOOK int execve(const char *path, char *const argv[], char *const envp[])
{
	int (*next)(const char *, char *const[], char *const[]) =
		DYL_HOOK_NEXT(execve, int (*)(const char *, char *const[], char *const[]));
	const char *mark = dyl_proc_exec();
	int r;
	dyl_image_ends(DYL_IMAGE_EXEC);
	DYL_EXEC_WITH(mark, envp, r, next(path, argv, env), next(path, argv, envp));
	dyl_image_goes_on();
	return r;
}

DYL_HOOK int execv(const char *path, char *const argv[])
{
	int (*next)(const char *, char *const[]) =
		DYL_HOOK_NEXT(execv, int (*)(const char *, char *const[]));
	int (*with_env)(const char *, char *const[], char *const[]) =
		DYL_HOOK_NEXT(execve, int (*)(const char *, char *const[], char *const[]));
	const char *mark = dyl_proc_exec();
	int r;
	dyl_image_ends(DYL_IMAGE_EXEC);
	DYL_EXEC_WITH(mark, dyl_env_list(), r, with_env(path, argv, env), next(path, argv));
	dyl_image_goes_on();
	return r;
}

DYL_HOOK int execvp(const char *file, char *const argv[])
{
	int (*next)(const char *, char *const[]) =
		DYL_HOOK_NEXT(execvp, int (*)(const char *, char *const[]));
	int (*with_env)(const char *, char *const[], char *const[]) =
		DYL_HOOK_NEXT(execvpe, int (*)(const char *, char *const[], char *const[]));
	const char *mark = dyl_proc_exec();
	int r;
	dyl_image_ends(DYL_IMAGE_EXEC);
	DYL_EXEC_WITH(mark, dyl_env_list(), r, with_env(file, argv, env), next(file, argv));
	dyl_image_goes_on();
	return r;
}

DYL_HOOK int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int (*next)(const char *, char *const[], char *const[]) =
		DYL_HOOK_NEXT(execvpe, int (*)(const char *, char *const[], char *const[]));
	const char *mark = dyl_proc_exec();
	int r;
	dyl_image_ends(DYL_IMAGE_EXEC);
	DYL_EXEC_WITH(mark, envp, r, next(file, argv, env), next(file, argv, envp));
	dyl_image_goes_on();
	return r;
}

DYL_HOOK int fexecve(int fd, char *const argv[], char *const envp[])
{
	int (*next)(int, char *const[], char *const[]) =
		DYL_HOOK_NEXT(fexecve, int (*)(int, char *const[], char *const[]));
	const char *mark = dyl_proc_exec();
	int r;
	dyl_image_ends(DYL_IMAGE_EXEC);
	DYL_EXEC_WITH(mark, envp, r, next(fd, argv, env), next(fd, argv, envp));
	dyl_image_goes_on();
	return r;
}

/* execl, execlp and execle collect their arguments and go through the v-forms. */
#define DYL_HOOK_COLLECT(first, last_out)                                    \
	va_list ap;                                                          \
	size_t n = 1;                                                        \
	va_start(ap, first);                                                 \
	while (va_arg(ap, char *))                                           \
		n++;                                                         \
	va_end(ap);                                                          \
	char *argv[n + 1];                                                   \
	va_start(ap, first);                                                 \
	argv[0] = (char *)first;                                             \
	for (size_t i = 1; i <= n; i++)                                      \
		argv[i] = va_arg(ap, char *);                                \
	last_out;                                                            \
	va_end(ap)

DYL_HOOK int execl(const char *path, const char *arg, ...)
{
	DYL_HOOK_COLLECT(arg, (void)0);
	return execv(path, argv);
}

DYL_HOOK int execlp(const char *file, const char *arg, ...)
{
	DYL_HOOK_COLLECT(arg, (void)0);
	return execvp(file, argv);
}

DYL_HOOK int execle(const char *path, const char *arg, ...)
{
	char *const *envp;
	DYL_HOOK_COLLECT(arg, envp = va_arg(ap, char *const *));
	return execve(path, argv, envp);
}

DYL_HOOK __attribute__((noreturn)) void _exit(int status)
{
	void (*next)(int) = DYL_HOOK_NEXT(_exit, void (*)(int));
	dyl_image_ends(DYL_IMAGE_EXIT);
	next(status);
	__builtin_unreachable();
}

DYL_HOOK __attribute__((noreturn)) void _Exit(int status)
{
	void (*next)(int) = DYL_HOOK_NEXT(_Exit, void (*)(int));
	dyl_image_ends(DYL_IMAGE_EXIT);
	next(status);
	__builtin_unreachable();
}

#undef DYL_HOOK_COLLECT
#undef DYL_EXEC_WITH
#undef DYL_HOOK_NEXT
#undef DYL_HOOK

#endif
#endif
