/* app.c - test_std_faults.py's program.  Calls of reference BLAS writing into fresh
 * pages (each one a first-touch fault in the call) or into pages already touched (no
 * fault), in the main thread, in threads, in a forked child, after an exec, from a
 * signal handler. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "blas.h"

#define PAGE 4096
#define PER_PAGE (PAGE / (int)sizeof(double))

static double *src;	/* touched: the calls' input */

/* PAGES pages no one touched yet; no huge pages (one fault would fill 512 pages) */
static double *fresh(int pages)
{
	void *p = mmap(NULL, (size_t)pages * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, (size_t)pages * PAGE, MADV_NOHUGEPAGE);
	return p;
}

/* dcopy_ of PAGES pages of src into Y */
static double copy(double *y, int pages)
{
	int n = pages * PER_PAGE, one = 1;
	dcopy_(&n, src, &one, y, &one);
	return y[n - 1];
}

static pthread_barrier_t go;

static void *worker(void *arg)
{
	int pages = (int)(long)arg;
	double *y = fresh(pages);
	double s = copy(y, 1);	/* its first call: one fault */
	pthread_barrier_wait(&go);
	s += copy(y, pages);	/* the threads fault at the same time: pages - 1 each */
	return (void *)(long)s;
}

static void *one_call(void *arg)
{
	int pages = (int)(long)arg;
	return (void *)(long)copy(fresh(pages), pages);
}

/* a thread's first call (its event opens) takes no descriptor of the program's */
static void *fd_check(void *arg)
{
	double *y = fresh(1);
	int before = dup(0);
	close(before);
	copy(y, 1);
	int after = dup(0);
	close(after);
	return (void *)(long)(before == after);
}

static double *tick_buf;
static volatile long ticks;
static void on_alarm(int sig)
{
	copy(tick_buf, 1);	/* touched: no fault */
	ticks++;
}

/* The scenarios, one per mode: each adds what its calls return to *S (printed at the
 * end) and returns 0, or an exit status to end with at once. */
static int scenario_pages(int argc, char **argv, double *s)
{
	/* pages N...: N fresh pages, then the same pages again, for each N */
	pthread_t t;
	void *same;
	*s += copy(fresh(1), 1);	/* the first call: the trace opens */
	pthread_create(&t, NULL, fd_check, NULL);
	pthread_join(t, &same);
	printf("a thread's first call left the first free fd free: %d\n", (int)(long)same);
	for (int i = 2; i < argc; i++) {
		int n = atoi(argv[i]);
		double *y = fresh(n);
		*s += copy(y, n);
		*s += copy(y, n);
	}
	return 0;
}

static int scenario_dgemm(int argc, char **argv, double *s)
{
	/* dgemm M: C = A B into a fresh C of M x M, then into the same C again */
	int m = atoi(argv[2]), cpages = (m * m * 8 + PAGE - 1) / PAGE;
	double one = 1, zero = 0;
	double *c = fresh(cpages);
	dgemm_("N", "N", &m, &m, &m, &one, src, &m, src, &m, &zero, c, &m, 1, 1);
	dgemm_("N", "N", &m, &m, &m, &one, src, &m, src, &m, &zero, c, &m, 1, 1);
	*s = c[m * m - 1];
	return 0;
}

static int scenario_threads(int argc, char **argv, double *s)
{
	/* threads N...: one thread per N, each writing N fresh pages at once */
	int n = argc - 2;
	pthread_t t[16];
	pthread_barrier_init(&go, NULL, (unsigned)n);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)atoi(argv[2 + i]));
	for (int i = 0; i < n; i++) {
		void *r;
		pthread_join(t[i], &r);
		*s += (long)r;
	}
	return 0;
}

static int scenario_many(int argc, char **argv, double *s)
{
	/* many N: N threads one after the other, a call each; then whether more than
	 * one perf event (the main thread's) is still mapped */
	*s += copy(fresh(1), 1);
	for (int i = 0; i < atoi(argv[2]); i++) {
		pthread_t t;
		void *r;
		pthread_create(&t, NULL, one_call, (void *)1L);
		pthread_join(t, &r);
		*s += (long)r;
	}
	char line[512];
	int events = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	while (fgets(line, sizeof(line), f))
		events += strstr(line, "perf_event") != NULL;
	fclose(f);
	printf("rings left by threads that ended: %d\n", events > 1);
	return 0;
}

static int scenario_fork(int argc, char **argv, double *s)
{
	/* fork PARENT CHILD [_Fork]: the parent's call, the child's own in a thread of
	 * the child's and in the child, the parent's again after */
	int p = atoi(argv[2]), c = atoi(argv[3]);
	*s += copy(fresh(p), p);
	fflush(stdout);
	pid_t pid = argc > 4 && !strcmp(argv[4], "_Fork") ? _Fork() : fork();
	if (pid == 0) {
		pthread_t t;
		void *r;
		pthread_create(&t, NULL, one_call, (void *)(long)c);
		pthread_join(t, &r);
		*s += (long)r + copy(fresh(c), c);
		printf("child %g\n", *s);
		exit(0);
	}
	int status = -1;
	waitpid(pid, &status, 0);
	printf("child's wait status: %d\n", status);
	*s += copy(fresh(p), p);
	return 0;
}

static int scenario_exec(int argc, char **argv, double *s)
{
	/* exec N: a call into N fresh pages, then this program again, in pages mode */
	*s += copy(fresh(atoi(argv[2])), atoi(argv[2]));
	printf("%g\n", *s);
	fflush(stdout);
	execl("/proc/self/exe", argv[0], "pages", argv[2], (char *)NULL);
	perror("exec");
	return 1;
}

static int scenario_signals(int argc, char **argv, double *s)
{
	/* signals N: N calls, interrupted by calls from a SIGALRM handler */
	struct itimerval it = { { 0, 200 }, { 0, 200 } }, off = { { 0, 0 }, { 0, 0 } };
	tick_buf = fresh(1);
	copy(tick_buf, 1);
	double *y = fresh(1);
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < atoi(argv[2]); i++)
		*s += copy(y, 1);
	setitimer(ITIMER_REAL, &off, NULL);
	printf("ticked: %d\n", ticks > 0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "pages";
	double s = 0;
	int rc = 0;

	src = malloc(1024 * PAGE);
	for (int i = 0; i < 1024 * PER_PAGE; i++)
		src[i] = i % 97;
	if (!strcmp(mode, "pages"))
		rc = scenario_pages(argc, argv, &s);
	else if (!strcmp(mode, "dgemm"))
		rc = scenario_dgemm(argc, argv, &s);
	else if (!strcmp(mode, "threads"))
		rc = scenario_threads(argc, argv, &s);
	else if (!strcmp(mode, "many"))
		rc = scenario_many(argc, argv, &s);
	else if (!strcmp(mode, "fork"))
		rc = scenario_fork(argc, argv, &s);
	else if (!strcmp(mode, "exec"))
		rc = scenario_exec(argc, argv, &s);
	else if (!strcmp(mode, "signals"))
		rc = scenario_signals(argc, argv, &s);
	if (rc)
		return rc;
	printf("%g\n", s);
	return 0;
}
