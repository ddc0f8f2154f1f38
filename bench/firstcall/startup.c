/* startup.c - what a short process costs: runs a command N times, one after another,
 * and prints the mean CPU time (user + system, from the children's rusage: microsecond
 * resolution, unlike time(1)) and minor page faults per process.
 *   startup N COMMAND [ARG...]       (stdout of COMMAND to /dev/null) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: startup N COMMAND [ARG...]\n");
		return 2;
	}
	int n = atoi(argv[1]);
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0) {
			int fd = open("/dev/null", O_WRONLY);
			dup2(fd, 1);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		int st;
		if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "startup: %s failed\n", argv[2]);
			return 1;
		}
	}
	struct rusage u;
	getrusage(RUSAGE_CHILDREN, &u);
	double us = (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 + u.ru_utime.tv_usec + u.ru_stime.tv_usec;
	printf("%.1f %.1f\n", us / n, (double)u.ru_minflt / n);
	return 0;
}
