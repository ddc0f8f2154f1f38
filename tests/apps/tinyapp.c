/* tinyapp.c - the process scenarios of tests/runtime/test_process.py, one per mode:
 *   tinyapp MODE ARGS...
 * Everything printed on stdout is deterministic (it is compared with and without the
 * wrapper); numbers that are not (pids, signal counts) go to the file named by an
 * argument when a test needs them. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tiny.h"

static long arg(char **argv, int argc, int i, long dflt)
{
	return i < argc ? atol(argv[i]) : dflt;
}

static long adds(long n, int salt)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += tiny_add((int)i, salt);
	return s;
}

/* --- threads: NT threads x N calls, all running at once --- */
struct worker {
	pthread_t th;
	int id;
	long n, sum;
};

static pthread_barrier_t start_line;

static void *work(void *p)
{
	struct worker *w = p;
	pthread_barrier_wait(&start_line);
	w->sum = adds(w->n, w->id);
	return NULL;
}

static int threads(long nt, long n)
{
	struct worker w[64];
	if (nt > 64)
		nt = 64;
	pthread_barrier_init(&start_line, NULL, (unsigned)nt);
	for (int i = 0; i < nt; i++) {
		w[i].id = i;
		w[i].n = n;
		pthread_create(&w[i].th, NULL, work, &w[i]);
	}
	for (int i = 0; i < nt; i++) {
		pthread_join(w[i].th, NULL);
		printf("thread %d: %ld calls, sum %ld\n", i, n, w[i].sum);
	}
	return 0;
}

/* --- threads still calling when main exits --- */
static long spun;

static void *spin(void *p)
{
	for (long i = 0;; i++) {
		tiny_add((int)i, 1);
		__atomic_fetch_add(&spun, 1, __ATOMIC_RELAXED);
	}
	return p;
}

static int exit_running(long nt, long n)
{
	pthread_t th;
	for (int i = 0; i < nt; i++)
		pthread_create(&th, NULL, spin, NULL);
	printf("main: %ld\n", adds(n, 0));
	/* exit while they are surely calling (and have rows in their buffers) */
	while (__atomic_load_n(&spun, __ATOMIC_RELAXED) < nt * 20000)
		usleep(1000);
	fflush(stdout);
	exit(0);
}

/* --- fork: parent and child both call --- */
static int do_fork(long before, long in_child, long after, const char *how)
{
	printf("parent before fork: %ld\n", adds(before, 1));
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		long s = 0;
		for (long i = 0; i < in_child; i++)
			s += tiny_inner((int)i);
		printf("child: %ld\n", s);
		fflush(stdout);
		if (strcmp(how, "exec") == 0) {
			char n[32];
			snprintf(n, sizeof(n), "%ld", after);
			execl("/proc/self/exe", "tinyapp", "calls", n, (char *)NULL);
			perror("execl");
			_exit(127);
		}
		if (strcmp(how, "_exit") == 0)
			_exit(3);
		exit(4);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	printf("parent after: %ld\n", adds(after, 2));
	return 0;
}

/* --- the parent exits first; the child records afterwards --- */
static int orphan(long before, long in_child)
{
	adds(before, 1);
	int fds[2];
	if (pipe(fds) != 0)
		return 1;
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(fds[1]);
		/* EOF when the parent has exited (its trace is complete by then) */
		while (read(fds[0], &c, 1) > 0)
			;
		printf("orphan child: %ld\n", adds(in_child, 5));
		fflush(stdout);
		exit(0);
	}
	close(fds[0]);
	printf("parent done\n");
	fflush(stdout);
	exit(0);
}

/* --- exec: this image calls, then becomes another wrapped program --- */
static int do_exec(long before, long after)
{
	char n[32];
	printf("before exec: %ld\n", adds(before, 1));
	fflush(stdout);
	snprintf(n, sizeof(n), "%ld", after);
	execl("/proc/self/exe", "tinyapp", "calls", n, (char *)NULL);
	perror("execl");
	return 127;
}

/* --- an exec that fails: the image goes on --- */
static int exec_fails(long before, long after)
{
	printf("before: %ld\n", adds(before, 1));
	execl("/nonexistent/program", "program", (char *)NULL);
	printf("execl: %s\n", strerror(errno));
	execlp("no-such-program-anywhere", "program", (char *)NULL);
	printf("execlp: %s\n", strerror(errno));
	printf("after: %ld\n", adds(after, 2));
	return 0;
}

/* --- an exec that fails before any call, then N calls; "ready", and it waits for its
 * SIGKILL: the image took its name at start-up and gave it back at the exec --- */
static int exec_fails_then_killed(long n)
{
	char line[16];
	execl("/nonexistent/program", "program", (char *)NULL);
	printf("ready %ld\n", adds(n, 1));
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	return 0;
}

/* --- errno across wrapped calls and the runtime's own work --- */
static int errnos(long n)
{
	long bad = 0;
	for (long i = 0; i < n; i++) {
		errno = 0;
		if (tiny_fail_errno() != -1 || errno != EDOM)
			bad++;
		errno = ERANGE;
		tiny_add((int)i, 1);
		if (errno != ERANGE)
			bad++;
		errno = EILSEQ;
		tiny_outer((int)i);
		if (errno != EILSEQ)
			bad++;
	}
	printf("errno: %ld calls, %ld wrong\n", 3 * n, bad);
	return bad != 0;
}

/* --- nesting: through the PLT and through a callback --- */
static int add_one(int x)
{
	return tiny_add(x, 1);
}

static int nest(long n)
{
	long s = 0, c = 0;
	for (long i = 0; i < n; i++) {
		s += tiny_outer((int)i);
		c += tiny_apply(add_one, (int)i);
	}
	printf("outer sum %ld, apply sum %ld\n", s, c);
	return 0;
}

/* --- a signal handler calling a wrapped function --- */
static volatile sig_atomic_t in_handler_calls;

static void on_alarm(int sig)
{
	int saved = errno;
	tiny_add(sig, 1);
	in_handler_calls++;
	errno = saved;
}

static int signals(long n_sleep, long n_add, long interval_us, const char *out)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, interval_us }, { 0, interval_us } };
	setitimer(ITIMER_REAL, &it, NULL);
	long s = 0;
	for (long i = 0; i < n_sleep; i++) {
		tiny_sleep_us(200);
		s += adds(n_add, 3);
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	printf("main: %ld sleeps, %ld adds, sum %ld\n", n_sleep, n_sleep * n_add, s);
	FILE *f = fopen(out, "w");
	if (f) {
		fprintf(f, "%d\n", (int)in_handler_calls);
		fclose(f);
	}
	return 0;
}

/* --- a second process on the same trace: waits on stdin --- */
static int wait_stdin(void)
{
	char line[16];
	printf("ready %d\n", tiny_add(1, 2));
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	printf("done %d\n", tiny_add(3, 4));
	return 0;
}

/* --- waits on stdin before its first call: what the wrapper made at start-up is seen
 * from outside --- */
static int wait_first(void)
{
	char line[16];
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	printf("done %d\n", tiny_add(3, 4));
	return 0;
}

/* --- killed with calls in every thread's buffer: NT threads make N calls each and
 * stay alive, the main thread makes N; "ready", then it waits for its SIGKILL --- */
static pthread_barrier_t made;

static void *make_then_stay(void *p)
{
	struct worker *w = p;
	w->sum = adds(w->n, w->id);
	pthread_barrier_wait(&made);
	for (;;)
		pause();
	return NULL;
}

static int kill_me(long nt, long n)
{
	struct worker w[64];
	char line[16];
	if (nt > 64)
		nt = 64;
	pthread_barrier_init(&made, NULL, (unsigned)nt + 1);
	for (int i = 0; i < nt; i++) {
		w[i].id = i + 1;
		w[i].n = n;
		pthread_create(&w[i].th, NULL, make_then_stay, &w[i]);
	}
	long s = adds(n, 0);
	pthread_barrier_wait(&made);
	printf("ready %ld\n", s);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	return 0;
}

/* --- a forked child killed: the parent makes N calls, forks; the child makes N,
 * says "ready PID" and waits for its SIGKILL; the parent waits for the child --- */
static int fork_kill_me(long n)
{
	char line[16];
	long s = adds(n, 0);
	pid_t pid = fork();
	if (pid == 0) {
		s += adds(n, 1);
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			_exit(1);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("child %s\n", WIFSIGNALED(status) ? "killed" : "exited");
	return s == 0;
}

/* --- longjmp out of a wrapped call (libjpeg's error handling does this from a
 * callback): the calls after it are at depth 0 again --- */
static jmp_buf escape;

static int bail_out(int x)
{
	longjmp(escape, x + 1);
}

static int jumps(long n)
{
	long got = 0;
	for (long i = 0; i < n; i++) {
		int r = setjmp(escape);
		if (r == 0)
			tiny_apply(bail_out, (int)i);	/* never returns */
		else
			got += r;
		got += tiny_add((int)i, 1);
	}
	printf("jumps: %ld\n", got);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "calls";

	if (!strcmp(mode, "calls")) {
		long n = arg(argv, argc, 2, 10);
		printf("calls: %ld sum %ld\n", n, adds(n, 0));
		return 0;
	}
	if (!strcmp(mode, "threads"))
		return threads(arg(argv, argc, 2, 8), arg(argv, argc, 3, 1000));
	if (!strcmp(mode, "exit-running"))
		return exit_running(arg(argv, argc, 2, 4), arg(argv, argc, 3, 1000));
	if (!strcmp(mode, "fork"))
		return do_fork(arg(argv, argc, 2, 10), arg(argv, argc, 3, 10), arg(argv, argc, 4, 10),
			       argc > 5 ? argv[5] : "exit");
	if (!strcmp(mode, "orphan"))
		return orphan(arg(argv, argc, 2, 10), arg(argv, argc, 3, 10));
	if (!strcmp(mode, "exec"))
		return do_exec(arg(argv, argc, 2, 10), arg(argv, argc, 3, 10));
	if (!strcmp(mode, "exec-fail-kill-me"))
		return exec_fails_then_killed(arg(argv, argc, 2, 10));
	if (!strcmp(mode, "exec-fail"))
		return exec_fails(arg(argv, argc, 2, 10), arg(argv, argc, 3, 10));
	if (!strcmp(mode, "_exit")) {
		printf("calls: %ld\n", adds(arg(argv, argc, 2, 10), 0));
		fflush(stdout);
		_exit(5);
	}
	if (!strcmp(mode, "errno"))
		return errnos(arg(argv, argc, 2, 1000));
	if (!strcmp(mode, "longjmp"))
		return jumps(arg(argv, argc, 2, 5));
	if (!strcmp(mode, "nest"))
		return nest(arg(argv, argc, 2, 100));
	if (!strcmp(mode, "signals"))
		return signals(arg(argv, argc, 2, 100), arg(argv, argc, 3, 100), arg(argv, argc, 4, 300),
			       argc > 5 ? argv[5] : "/dev/null");
	if (!strcmp(mode, "abort")) {	/* a fatal signal that is sent, not a fault */
		printf("calls: %ld\n", adds(arg(argv, argc, 2, 10), 0));
		fflush(stdout);
		abort();
	}
	if (!strcmp(mode, "segv")) {
		printf("calls: %ld\n", adds(arg(argv, argc, 2, 10), 0));
		fflush(stdout);
		*(volatile int *)0 = 1;
		return 0;
	}
	if (!strcmp(mode, "wait"))
		return wait_stdin();
	if (!strcmp(mode, "wait-first"))
		return wait_first();
	if (!strcmp(mode, "fork-kill-me"))
		return fork_kill_me(arg(argv, argc, 2, 100));
	if (!strcmp(mode, "kill-me"))
		return kill_me(arg(argv, argc, 2, 2), arg(argv, argc, 3, 1000));
	fprintf(stderr, "tinyapp: unknown mode %s\n", mode);
	return 2;
}
