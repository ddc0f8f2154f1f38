/* procapp.c - processes calling libtiny, for tests/runtime/test_proc_events.py.
 *   procapp fork            forks 2 children (each sleeps in tiny_sleep_us), waits for each
 *   procapp spawn           posix_spawn of itself as a child, then waitpid
 *   procapp vfork           vfork, the child execs itself as a child; then waitpid
 *   procapp exec            calls libtiny, then execs itself as a child (same pid)
 *   procapp child US        one call of tiny_sleep_us(US), then exits (says whether
 *                           DYL_EXEC_OF is in its environment)
 *   procapp writer K N      K writes of N bytes (byte i of the stream: i % 251) to stdout
 *   procapp reader          reads stdin to its end (readv and read), checks the bytes,
 *                           prints how many
 *   procapp errno           the errors of read, write, waitpid and dup2 under the hooks
 *   procapp clone           clone() as fork (its own stack, SIGCHLD): the child calls
 *                           libtiny and returns; then waitpid
 *   procapp mtfork N        a thread calls libtiny while main forks N children that
 *                           _exit at once, and waits for each
 * Each prints what it did, so that the plain and wrapped runs can be compared. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tiny.h"

extern char **environ;

static int child(int us)
{
	/* (the exec hooks' DYL_EXEC_OF is gone before main) */
	printf("child: DYL_EXEC_OF %s\n", getenv("DYL_EXEC_OF") ? "set" : "unset");
	fflush(stdout);
	tiny_sleep_us(us);
	return tiny_add(1, 2) == 3 ? 0 : 1;
}

/* waits for PID; 0 when it exited with 0 */
static int reap(pid_t pid)
{
	int st = 0;
	pid_t r = waitpid(pid, &st, 0);

	return r == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

static int forks(void)
{
	pid_t kids[2];

	for (int i = 0; i < 2; i++) {
		kids[i] = fork();
		if (kids[i] == 0)
			exit(child(20000 * (i + 1)));
		if (kids[i] < 0)
			return 1;
	}
	tiny_sleep_us(5000);	/* the parent works while they do */
	int bad = reap(kids[0]) + reap(kids[1]);
	printf("forked 2, bad %d\n", bad);
	return bad;
}

static int spawn(const char *self)
{
	pid_t pid;
	char *argv[] = { (char *)self, "child", "10000", NULL };

	tiny_add(0, 0);
	if (posix_spawn(&pid, self, NULL, NULL, argv, environ) != 0)
		return 1;
	int bad = reap(pid);
	printf("spawned 1, bad %d\n", bad);
	return bad;
}

static int vforks(const char *self)
{
	tiny_add(0, 0);
	pid_t pid = vfork();
	if (pid == 0) {
		execl(self, self, "child", "10000", (char *)NULL);
		_exit(127);
	}
	int bad = pid < 0 || reap(pid);
	printf("vforked 1, bad %d\n", bad);
	return bad;
}

static int writer(int k, int n)
{
	char *buf = malloc((size_t)n);
	long at = 0;

	tiny_add(0, 0);
	for (int c = 0; c < k; c++) {
		for (int i = 0; i < n; i++)
			buf[i] = (char)(at++ % 251);
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(1, buf + done, (size_t)(n - done));
			if (w < 0)
				return 1;
			done += w;
		}
	}
	free(buf);
	return 0;
}

static int reader(void)
{
	char a[700], b[300];
	long at = 0, bad = 0;

	tiny_add(0, 0);
	for (int i = 0;; i++) {
		struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
		ssize_t n = i % 2 ? readv(0, iov, 2) : read(0, a, sizeof(a));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t j = 0; j < n; j++, at++)
			bad += (unsigned char)(j < (ssize_t)sizeof(a) ? a[j] : b[j - sizeof(a)]) !=
			       at % 251;
	}
	printf("read %ld bytes, bad %ld\n", at, bad);
	return bad != 0;
}

/* errno as each failing call leaves it: the hooks must keep it */
static int errnos(void)
{
	int fds[2];
	char c = 0;

	tiny_add(0, 0);
	signal(SIGPIPE, SIG_IGN);
	long r;
#define SHOW(what, call) (errno = 0, r = (long)(call), printf("%s: %ld %d\n", what, r, errno))
	SHOW("read(-1)", read(-1, &c, 1));
	if (pipe(fds) != 0)
		return 1;
	close(fds[0]);
	SHOW("write(closed pipe)", write(fds[1], &c, 1));
	SHOW("waitpid(no child)", waitpid(-1, NULL, 0));
	SHOW("dup2(-1)", dup2(-1, 5));
	close(fds[1]);
	SHOW("read(closed)", read(fds[1], &c, 1));
#undef SHOW
	return 0;
}

static int clone_child(void *arg)
{
	(void)arg;
	exit(child(1000));
}

static int clones(void)
{
	static char stack[256 * 1024] __attribute__((aligned(16)));

	tiny_add(0, 0);
	pid_t pid = clone(clone_child, stack + sizeof(stack), SIGCHLD, NULL);
	int bad = pid < 0 || reap(pid);
	printf("cloned 1, bad %d\n", bad);
	return bad;
}

static volatile int stop, started;

static void *busy(void *arg)
{
	(void)arg;
	while (!stop) {
		tiny_add(1, 1);
		started = 1;
	}
	return NULL;
}

static int mtfork(int n)
{
	pthread_t th;
	int bad = 0;

	if (pthread_create(&th, NULL, busy, NULL) != 0)
		return 1;
	while (!started)	/* its calls under way (on a busy machine it may start late, */
		sched_yield();	/* after the forks: no call recorded, no trace) */
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		bad += pid < 0 || reap(pid);
	}
	stop = 1;
	pthread_join(th, NULL);
	printf("forked %d, bad %d\n", n, bad);
	return bad != 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (!strcmp(m, "fork"))
		return forks();
	if (!strcmp(m, "spawn"))
		return spawn(argv[0]);
	if (!strcmp(m, "vfork"))
		return vforks(argv[0]);
	if (!strcmp(m, "exec")) {
		tiny_add(1, 1);
		fflush(stdout);
		execl(argv[0], argv[0], "child", "1000", (char *)NULL);
		return 127;
	}
	if (!strcmp(m, "child") && argc > 2)
		return child(atoi(argv[2]));
	if (!strcmp(m, "writer") && argc > 3)
		return writer(atoi(argv[2]), atoi(argv[3]));
	if (!strcmp(m, "reader"))
		return reader();
	if (!strcmp(m, "clone"))
		return clones();
	if (!strcmp(m, "errno"))
		return errnos();
	if (!strcmp(m, "mtfork") && argc > 2)
		return mtfork(atoi(argv[2]));
	fprintf(stderr, "usage: procapp fork|spawn|vfork|clone|exec|child US|writer K N|reader|errno|mtfork N\n");
	return 2;
}
