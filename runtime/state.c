/* state.c - the process's state and what every other file of the runtime may use: the
 * bottom of the runtime's layers (tests/runtime/layers.py draws them).  It calls no other file
 * of the runtime.
 *
 * The process-wide state is one struct per owner (internal.h: dyl_proc, dyl_costs,
 * dyl_out, dyl_spool, dyl_meta); dyl_self and dyl_busy are the calling thread's.
 * dyl_hooks holds what the features (above the core) ask the core to call: the core
 * knows them only as pointers installed at start-up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"

struct dyl_proc dyl_proc = { .lock = PTHREAD_MUTEX_INITIALIZER };
struct dyl_costs dyl_costs;
struct dyl_out dyl_out = { .fd = -1, .io = PTHREAD_MUTEX_INITIALIZER };
struct dyl_spool dyl_spool = { .fd = -1 };
struct dyl_meta dyl_meta = { .lock = PTHREAD_MUTEX_INITIALIZER };
TLS struct dyl_thread *dyl_self;
TLS int dyl_busy;
struct dyl_hooks dyl_hooks;
TLS int dyl_leave_pending;

void dyl_cost_sum(struct dyl_cost *to, const struct dyl_cost *c)
{
#define ADD(f) __atomic_fetch_add(&to->f, __atomic_load_n(&c->f, __ATOMIC_RELAXED), __ATOMIC_RELAXED)
	ADD(outer);
	ADD(outer_ns);
	ADD(inner);
	ADD(inner_ns);
	ADD(whole);
	ADD(outside);
	ADD(samples);
#undef ADD
}

void dyl_cost_add(uint64_t ticks)
{
	struct dyl_thread *t = dyl_self;

	__atomic_fetch_add(&dyl_costs.sum.whole, ticks, __ATOMIC_RELAXED);
	if (!t || t->depth == 0)	/* no call open on this thread */
		__atomic_fetch_add(&dyl_costs.sum.outside, ticks, __ATOMIC_RELAXED);
}

int dyl_fd_high(int fd)
{
	if (fd < 0)
		return fd;
	int h = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, DYL_FD_FLOOR);
	if (h < 0)
		return fd;	/* (RLIMIT_NOFILE under the floor: the low number stays) */
	syscall(SYS_close, fd);
	return h;
}

void dyl_warn_once(const char *key, const char *fmt, ...)
{
	char tagged[130];
	va_list ap;
	int saved = errno;

	DYL_BUSY_IN();
	snprintf(tagged, sizeof(tagged), "|%.127s|", key);
	pthread_mutex_lock(&dyl_meta.lock);
	if (strstr(dyl_meta.warned, tagged)) {
		pthread_mutex_unlock(&dyl_meta.lock);
		DYL_BUSY_OUT();
		errno = saved;
		return;
	}
	if (strlen(dyl_meta.warned) + strlen(tagged) < sizeof(dyl_meta.warned))
		strcat(dyl_meta.warned, tagged);
	pthread_mutex_unlock(&dyl_meta.lock);
	fputs("dyliberator: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	DYL_BUSY_OUT();
	errno = saved;
}

#ifdef DYL_DEBUG
/* An invariant failed (DYL_ASSERT, debug builds only): say where, with write(2) alone
 * (no stdio lock, no allocation: it may fail inside either), and stop. */
void dyl_assert_fail(const char *what, const char *file, int line)
{
	char msg[512];
	int n = snprintf(msg, sizeof(msg), "dyliberator: %s:%d: assertion failed: %s\n", file,
			 line, what);
	if (n > 0)
		(void)!write(2, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
	abort();
}
#endif
