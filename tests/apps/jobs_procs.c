/* jobs_procs.c - processes that call a sleeping kernel (bench/threads/sleepk.h) at once,
 * for dyl-speedup's run timeline (tests/tools/test_jobs_sleep.py, doc/jobs-timeline.md).
 *   jobs_procs fork SCALE   the parent forks a child that calls sleepk(40000 * SCALE) while
 *                           the parent works 10 ms * SCALE (a sleep of its own), waits for
 *                           it, then calls sleepk(10000 * SCALE)
 *   jobs_procs pipe SCALE   a | b: a calls sleepk(20000 * SCALE) then writes 8 bytes, twice;
 *                           b reads 8 bytes, works 2 ms * SCALE, reads 8 bytes, reads the end
 *                           of the file; the parent waits for both
 * Every process exits through exit(), so that its wrapper writes its trace, and calls
 * sleepk(0) first: the wrapper writes no trace for a process without a wrapped call. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "sleepk.h"

/* The program's own work: a sleep of MS milliseconds, no library call wrapped. */
static void work(long ms)
{
	struct timespec t = { ms / 1000, ms % 1000 * 1000000L };

	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

static void wait_for(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

static int fork_shape(long scale)
{
	pid_t c = fork();

	if (c < 0)
		return 1;
	if (c == 0) {
		sleepk(40000 * scale);
		exit(0);
	}
	work(10 * scale);
	wait_for(c);
	sleepk(10000 * scale);
	return 0;
}

static int pipe_shape(long scale)
{
	int fd[2];
	char buf[8];
	pid_t a, b;

	sleepk(0);
	if (pipe(fd) != 0)
		return 1;
	if ((a = fork()) == 0) {
		close(fd[0]);
		for (int i = 0; i < 2; i++) {
			sleepk(20000 * scale);
			if (write(fd[1], "12345678", 8) != 8)
				exit(1);
		}
		exit(0);
	}
	if ((b = fork()) == 0) {
		sleepk(0);
		close(fd[1]);
		if (read(fd[0], buf, 8) != 8)
			exit(1);
		work(2 * scale);
		if (read(fd[0], buf, 8) != 8 || read(fd[0], buf, 8) != 0)
			exit(1);
		exit(0);
	}
	close(fd[0]);
	close(fd[1]);
	wait_for(a);
	wait_for(b);
	return a < 0 || b < 0;
}

int main(int argc, char **argv)
{
	long scale = argc > 2 ? atol(argv[2]) : 1;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (argc > 1 && strcmp(argv[1], "fork") == 0)
		return fork_shape(scale);
	if (argc > 1 && strcmp(argv[1], "pipe") == 0)
		return pipe_shape(scale);
	fprintf(stderr, "usage: jobs_procs fork|pipe [SCALE]\n");
	return 2;
}
