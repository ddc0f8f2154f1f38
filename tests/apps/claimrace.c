/* claimrace.c - preloaded before a wrapper: the process's first open of $RACE_PATH
 * returns the file that was there, and right after it another file takes the name, as
 * when another process claims a finished trace between our open and our checks (a
 * window only load makes wide).  RACE_LOCK=1: the new file is held locked, as a live
 * claimant's is.  RACE_HOLD=MS instead: no new file; the file opened is held locked for
 * MS ms, as by another claimant deciding on it (a thread closes its own open of it
 * then).  Test only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

typedef int (*open_fn)(const char *, int, ...);

static int raced;

static void *release(void *arg)
{
	int fd = (int)(long)arg;
	const char *hold = getenv("RACE_HOLD");

	usleep((useconds_t)atoi(hold) * 1000);
	close(fd);
	return NULL;
}

static void race(const char *path)
{
	const char *name = getenv("RACE_PATH"), *lock = getenv("RACE_LOCK");
	const char *hold = getenv("RACE_HOLD");
	char tmp[4096];
	pthread_t th;

	if (raced || !name || strcmp(path, name) != 0)
		return;
	raced = 1;
	if (hold) {
		int fd = ((open_fn)dlsym(RTLD_NEXT, "open"))(name, O_RDONLY | O_CLOEXEC, 0);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    pthread_create(&th, NULL, release, (void *)(long)fd) == 0)
			pthread_detach(th);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.racer", name);
	int fd = ((open_fn)dlsym(RTLD_NEXT, "open"))(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
						      0600);
	if (fd < 0)
		return;
	/* (kept open: a lock of another open file conflicts in this process too) */
	if (lock && *lock == '1')
		flock(fd, LOCK_EX | LOCK_NB);
	else
		close(fd);
	rename(tmp, name);
}

#define RACED_OPEN(fn)                                                  \
	int fn(const char *path, int flags, ...)                        \
	{                                                               \
		va_list ap;                                             \
		va_start(ap, flags);                                    \
		int mode = va_arg(ap, int);                             \
		va_end(ap);                                             \
		int fd = ((open_fn)dlsym(RTLD_NEXT, #fn))(path, flags, mode); \
		if (fd >= 0)                                            \
			race(path);                                     \
		return fd;                                              \
	}

RACED_OPEN(open)
RACED_OPEN(open64)
