/* exit.c - write the trace out before the process image goes away without exit():
 * the exec family and _exit.  These interpose the C library's functions (the runtime
 * is preloaded with the wrapper) and then call the originals. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
#include "internal.h"

#define REAL(name) ((__typeof__(&name))real_sym(#name))

static void *real_sym(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static void before_image_ends(void)
{
	int saved = errno;

	/* a vfork child shares our memory but not our pid: the buffers are its parent's */
	if (!dyl_busy && getpid() == dyl_rt.pid)
		dyl_finish();
	errno = saved;
}

DYL_API int execve(const char *path, char *const argv[], char *const envp[])
{
	before_image_ends();
	return REAL(execve)(path, argv, envp);
}

DYL_API int execv(const char *path, char *const argv[])
{
	before_image_ends();
	return REAL(execv)(path, argv);
}

DYL_API int execvp(const char *file, char *const argv[])
{
	before_image_ends();
	return REAL(execvp)(file, argv);
}

DYL_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	before_image_ends();
	return REAL(execvpe)(file, argv, envp);
}

DYL_API int fexecve(int fd, char *const argv[], char *const envp[])
{
	before_image_ends();
	return REAL(fexecve)(fd, argv, envp);
}

/* execl, execlp and execle collect their arguments and go through the v-forms. */
#define COLLECT_ARGS(first, last_out)                                        \
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

DYL_API int execl(const char *path, const char *arg, ...)
{
	COLLECT_ARGS(arg, (void)0);
	return execv(path, argv);
}

DYL_API int execlp(const char *file, const char *arg, ...)
{
	COLLECT_ARGS(arg, (void)0);
	return execvp(file, argv);
}

DYL_API int execle(const char *path, const char *arg, ...)
{
	char *const *envp;
	COLLECT_ARGS(arg, envp = va_arg(ap, char *const *));
	return execve(path, argv, envp);
}

DYL_API void _exit(int status)
{
	before_image_ends();
	REAL(_exit)(status);
	__builtin_unreachable();
}

DYL_API void _Exit(int status)
{
	before_image_ends();
	REAL(_Exit)(status);
	__builtin_unreachable();
}
