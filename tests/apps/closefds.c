/* closefds.c - a daemon-style program for tests/runtime/test_trace_safety.py: it closes every
 * descriptor from 3 to 4095 (the runtime's trace and spool among them), then opens N
 * files and keeps them open to its end, so that the numbers the runtime had are the
 * program's own files when the runtime writes out.
 *   closefds N DIR CALLS [BEFORE]
 * Calls tiny_add BEFORE times (default 5; with 0 the runtime has only what it made at
 * start-up open) before the close, CALLS times after it (enough to fill
 * windows: write-outs while the files are open), then CALLS times on a new thread (a
 * new window of the spool), and writes a known line into each file before and after.
 * stdout: deterministic. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tiny.h"

static long adds(long n, int salt)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += tiny_add((int)i, salt);
	return s;
}

static long calls;

static void *worker(void *arg)
{
	*(long *)arg = adds(calls, 2);
	return NULL;
}

/* Writes LINE whole into FD (the program's own file). */
static int put(int fd, const char *line)
{
	size_t len = strlen(line);
	return write(fd, line, len) == (ssize_t)len ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: closefds N DIR CALLS [BEFORE]\n");
		return 2;
	}
	int n = atoi(argv[1]);
	const char *dir = argv[2];
	calls = atol(argv[3]);
	int *fds = calloc((size_t)n, sizeof(int));
	char path[4096], line[64];
	long before = argc == 5 ? atol(argv[4]) : 5;
	long sum = adds(before, 0), tsum = 0;
	pthread_t th;

	if (!fds)
		return 1;
	for (int fd = 3; fd < 4096; fd++)
		close(fd);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		fds[i] = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		snprintf(line, sizeof(line), "file %d\n", i);
		if (fds[i] < 0 || put(fds[i], line) != 0) {
			perror(path);
			return 1;
		}
	}
	sum += adds(calls, 1);
	if (pthread_create(&th, NULL, worker, &tsum) != 0 || pthread_join(th, NULL) != 0)
		return 1;
	for (int i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "end %d\n", i);
		if (put(fds[i], line) != 0) {
			perror("write");
			return 1;
		}
	}
	printf("closefds: %d files, %ld calls, sum %ld %ld\n", n, before + 2 * calls, sum, tsum);
	return 0;	/* the files stay open: the runtime writes the trace out after this */
}
