/* hrapp.c - std.flow's host-read scenarios (test_host_reads.py): hr_fill writes a
 * buffer (a call's output), and the program then reads it, or not, or hands it to the
 * kernel, or takes its own faults.  Every scenario prints what the program computed,
 * which must be the same with the wrapper as without.  "base" is where the block starts
 * in its page: the test works the pages out from it. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hr.h"

#define N 65536L	/* 512 KiB of doubles: a block glibc maps by itself */
#define PER_PAGE 512L	/* doubles a page */

/* where block A starts in its page, and its size */
static void say_base(const double *a)
{
	printf("base=%lu size=%lu\n", (unsigned long)((uintptr_t)a & 4095), (unsigned long)(N * sizeof(double)));
}

static double *big(void)
{
	double *a = malloc(N * sizeof(double));
	if (!a)
		exit(3);
	say_base(a);
	return a;
}

/* the program reads two doubles: on the pages holding a[3 * 512] and a[5 * 512 + 100] */
static void s_read(int unused)
{
	(void)unused;
	double *a = big();
	hr_fill(a, N, 1);
	volatile double x = a[3 * PER_PAGE], y = a[5 * PER_PAGE + 100];
	hr_tick(0);
	printf("%g %g\n", x, y);
	free(a);
}

static void s_never(int unused)
{
	(void)unused;
	double *a = big();
	hr_fill(a, N, 1);
	hr_tick(0);
	free(a);
	puts("never read");
}

/* the next call reads the output; THEN_READ: the program too, after it (the bytes are
 * still the first call's, not yet read by the program) */
static void s_pass(int then_read)
{
	double *a = big();
	hr_fill(a, N, 1);
	double s = hr_sum(a, N);
	double x = then_read ? ((volatile double *)a)[3 * PER_PAGE] : 0;
	hr_tick(0);
	printf("%.1f %g\n", s, x);
	free(a);
}

/* the next call reads it through a struct: its own fault, inside the call */
static void s_pass_vec(int unused)
{
	(void)unused;
	double *a = big();
	hr_fill(a, N, 1);
	struct hr_vec v = { a, N };
	double s = hr_sum_vec(&v);
	hr_tick(0);
	printf("%.1f\n", s);
	free(a);
}

/* the next call hands its argument to the kernel itself (a raw read of /dev/zero): it
 * must find it unprotected */
static void s_load(int unused)
{
	(void)unused;
	double *a = big();
	hr_fill(a, N, 1);
	int fd = open("/dev/zero", O_RDONLY);
	long got = hr_load(a, N * (long)sizeof(double), fd);
	close(fd);
	hr_tick(0);
	printf("loaded %ld\n", got);
	free(a);
}

/* write(2), fwrite, then read(2) back into the protected buffer */
static void s_io(const char *w1, const char *w2)
{
	double *a = big();
	hr_fill(a, N, 7);
	int fd = open(w1, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, a, N * sizeof(double)) != (ssize_t)(N * sizeof(double)))
		perror("write");
	close(fd);
	hr_fill(a, N, 9);
	FILE *f = fopen(w2, "wb");
	if (!f || fwrite(a, sizeof(double), N, f) != (size_t)N)
		perror("fwrite");
	fclose(f);
	hr_fill(a, N, 0);
	fd = open(w1, O_RDONLY);
	ssize_t got = read(fd, a, N * sizeof(double));
	close(fd);
	hr_tick(0);
	printf("read %zd, a[5]=%g\n", got, a[5]);
	free(a);
}

/* read(2) into a block whose size the compiler knows: built with -D_FORTIFY_SOURCE=2,
 * it calls __read_chk, which reaches the C library's internal read past read's
 * interposer */
static void s_read_chk(const char *w1)
{
	double *a = malloc(N * sizeof(double));
	if (!a)
		exit(3);
	hr_fill(a, N, 0);
	int fd = open(w1, O_RDONLY);
	volatile size_t n = N * sizeof(double);	/* (not a constant: the checked form) */
	ssize_t got = read(fd, a, n);
	close(fd);
	hr_tick(0);
	printf("read %zd, a[5]=%g\n", got, a[5]);
	free(a);
}

/* glibc exports it still, but no longer declares it */
extern void (*bsd_signal(int sig, void (*h)(int)))(int);

static sigjmp_buf env;
static volatile int handled;

static void on_segv(int sig)
{
	(void)sig;
	handled++;
	siglongjmp(env, 1);
}

static void on_segv_info(int sig, siginfo_t *si, void *uc)
{
	(void)si, (void)uc;
	on_segv(sig);
}

/* the program's own handler for its own fault (a page it protected), while an output
 * of a call is protected and read: its handler sees its fault, and only that */
static void s_handler(int use_signal)
{
	double *a = big();
	char *own = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (use_signal == 1) {
		signal(SIGSEGV, on_segv);
	} else if (use_signal == 2) {	/* signal's other names: each its own symbol */
		bsd_signal(SIGSEGV, on_segv);
	} else if (use_signal == 3) {
		sysv_signal(SIGSEGV, on_segv);
	} else if (use_signal == 4) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
		sigset(SIGSEGV, on_segv);
#pragma GCC diagnostic pop
	} else {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_segv_info;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSEGV, &sa, NULL);
	}
	hr_fill(a, N, 2);
	volatile double x = a[PER_PAGE * 10];
	if (!sigsetjmp(env, 1)) {
		*(volatile char *)own = 1;
		puts("no fault");
	} else {
		puts("caught its own fault");
	}
	hr_tick(0);
	printf("%g handled=%d\n", x, handled);
	free(a);
}

/* its own fault, no handler: it dies of it */
static void s_die(int unused)
{
	(void)unused;
	double *a = big();
	char *own = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	hr_fill(a, N, 2);
	printf("%g\n", a[1]);
	fflush(stdout);
	*(volatile char *)own = 1;
	puts("survived");
}

/* two blocks mapped next to each other (the second right below the first), written by
 * two calls, the second written last: the program reads a page of each.  glibc puts the
 * second below the first unless a hole higher up fits it: then the pair is kept (so the
 * hole is filled) and the next pair tried.  Only the pair used prints its base. */
static void s_adjacent(int unused)
{
	(void)unused;
	enum { TRIES = 16 };
	double *kept[2 * TRIES], *a = NULL, *b = NULL;
	int n = 0;
	hr_tick(0);	/* (the wrapper's own mappings made before the blocks) */
	while (n < 2 * TRIES) {
		a = malloc(N * sizeof(double));
		b = malloc(N * sizeof(double));
		if (!a || !b)
			exit(3);
		if ((char *)b + N * sizeof(double) + 4096 == (char *)a)
			break;
		kept[n++] = a;
		kept[n++] = b;
		a = b = NULL;
	}
	if (!a) {
		puts("no adjacent pair");
		exit(4);
	}
	say_base(a);
	say_base(b);
	hr_fill(a, N, 1);
	hr_fill(b, N, 2);
	volatile double x = a[PER_PAGE * 4], y = b[PER_PAGE * 6];
	hr_tick(0);
	printf("%g %g\n", x, y);
	free(a);
	free(b);
	while (n)
		free(kept[--n]);
}

/* a thread that blocks every signal (SIGSEGV too) reads an output */
static void s_blocked(int unused)
{
	(void)unused;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	double *a = big();
	hr_fill(a, N, 3);
	volatile double x = a[PER_PAGE * 7];
	hr_tick(0);
	printf("%g\n", x);
	free(a);
}

/* outputs the runtime cannot protect: a stack array, a small heap block */
static void s_assumed(int unused)
{
	(void)unused;
	double st[512];
	double *small = malloc(100 * sizeof(double));
	hr_fill(st, 512, 1);
	hr_fill(small, 100, 2);
	hr_tick(0);
	printf("%g %g\n", st[3], small[4]);
	free(small);
}

static void *worker(void *arg)
{
	int k = (int)(intptr_t)arg;
	double *a = malloc(N * sizeof(double));
	hr_fill(a, N, k);
	volatile double x = a[PER_PAGE * k];
	hr_tick(k);
	free(a);
	return (void *)(intptr_t)(x == k + PER_PAGE * k);
}

static void s_threads(int unused)
{
	(void)unused;
	pthread_t t[2];
	void *r[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], &r[i]);
	printf("threads %ld %ld\n", (long)(intptr_t)r[0], (long)(intptr_t)r[1]);
}

/* The kernel handed a library's output on protected pages by calls that read and write
 * do not cover: each must do what it does without the wrapper (no EFAULT).  A path a
 * call wrote (hr_load reads sys-path.txt, which holds "sys-out.txt") opened by open,
 * openat, creat and fopen; getrandom, vmsplice, preadv2 and getdents64 into or from
 * pages hr_fill wrote; the commands of system and posix_spawn, and an exec whose
 * argument a call wrote (a child's). */
static void load_file(double *a, const char *name)
{
	int fd = open(name, O_RDONLY);
	if (fd < 0 || hr_load(a, 64, fd) < 0)
		exit(3);
	close(fd);
}

static void load_path(double *a)
{
	load_file(a, "sys-path.txt");
}

/* a forked child execs echo with the string at A (a call's output), after a call of its
 * own (LOAD: it loads the path again) or none; then the parent's last call */
static void exec_child(double *a, int load)
{
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		if (load)
			load_path(a);
		execl("/bin/echo", "echo", (char *)a, (char *)NULL);
		printf("exec %s\n", strerror(errno));
		exit(1);
	}
	int st;
	waitpid(c, &st, 0);
	hr_tick(0);
	printf("child status %d\n", st);
	free(a);
}

static void said(const char *what, long r)
{
	printf("%s %s\n", what, r >= 0 ? "ok" : strerror(errno));
}

static void s_sys(int unused)
{
	(void)unused;
	double *a = big();
	char *s = (char *)a, got[4096];
	int fd = open("sys-path.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "sys-out.txt", 12) != 12)
		exit(3);
	close(fd);

	load_path(a);
	said("open", fd = open(s, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	close(fd);
	load_path(a);
	said("openat", fd = openat(AT_FDCWD, s, O_RDONLY));
	close(fd);
	load_path(a);
	said("creat", fd = creat(s, 0644));
	close(fd);
	load_path(a);
	FILE *f = fopen(s, "r");
	said("fopen", f ? 0 : -1);
	if (f)
		fclose(f);

	hr_fill(a, N, 1);
	said("getrandom", getrandom(a + 4 * PER_PAGE, 64, 0) == 64 ? 0 : -1);
	hr_fill(a, N, 1);
	int p[2];
	struct iovec v = { a + 6 * PER_PAGE, 4096 };
	if (pipe(p) != 0)
		exit(3);
	long r = vmsplice(p[1], &v, 1, 0);
	said("vmsplice", r);
	if (r == 4096 && read(p[0], got, 4096) == 4096)
		printf("vmspliced %s\n", memcmp(got, a + 6 * PER_PAGE, 4096) ? "differ" : "same");
	hr_fill(a, N, 1);
	fd = open("sys-path.txt", O_RDONLY);
	v = (struct iovec){ a + 8 * PER_PAGE, 12 };
	r = preadv2(fd, &v, 1, 0, 0);
	said("preadv2", r);
	printf("preadv2 read %ld: %s\n", r, (char *)(a + 8 * PER_PAGE));
	close(fd);
	hr_fill(a, N, 1);
	fd = open(".", O_RDONLY | O_DIRECTORY);
	said("getdents64", getdents64(fd, a + 10 * PER_PAGE, 4096) > 0 ? 0 : -1);
	close(fd);
	/* a bad path while pages are protected: EFAULT, as without the wrapper */
	said("open-bad", open((const char *)16, O_RDONLY));

	/* the shell's command, and posix_spawn's argument, in pages a call wrote */
	fd = open("sys-cmd.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "echo by-system", 15) != 15)
		exit(3);
	close(fd);
	fflush(stdout);
	load_file(a, "sys-cmd.txt");
	said("system", system(s) == 0 ? 0 : -1);
	load_path(a);
	char *argv[] = { "echo", s, NULL };
	pid_t c;
	fflush(stdout);
	said("posix_spawn", posix_spawn(&c, "/bin/echo", NULL, NULL, argv, environ) == 0 &&
				    waitpid(c, NULL, 0) == c ? 0 : -1);

	exec_child(a, 1);
}

/* one output buffer filled by two calls, the second's bytes right after the first's (on
 * a page they share), then handed to write(2) whole: every page the two calls wrote is
 * read.  hr_fill gets the block as its argument (lifted before the call); hr_append
 * reaches it through a struct (the library's own fault on the shared page), as deflate
 * fills its output with Z_NO_FLUSH, then Z_FINISH */
static void s_shared(int through_struct)
{
	double *a = big();
	long n1 = 1000, n2 = 2000;
	if (through_struct) {
		struct hr_buf b = { a, 0 };
		hr_append(&b, n1, 1);
		hr_append(&b, n2, 2);
	} else {
		hr_fill(a, n1, 1);
		hr_fill(a + n1, n2, 2);
	}
	int fd = open("/dev/null", O_WRONLY);
	ssize_t w = write(fd, a, (n1 + n2) * sizeof(double));
	close(fd);
	hr_tick(0);
	printf("wrote %zd\n", w);
	free(a);
}

/* the program reads every other page of an output (64 ranges stay watched), a call
 * reads it all, then the program reads a page it had not read, in the last range:
 * still the first call's */
static void s_scattered(int unused)
{
	(void)unused;
	double *a = big(), s = 0;
	hr_fill(a, N, 1);
	for (long k = 0; k < N / PER_PAGE; k += 2)
		s += ((volatile double *)a)[k * PER_PAGE];
	s += hr_sum(a, N);
	s += ((volatile double *)a)[N - PER_PAGE + 1];	/* (in the last range) */
	hr_tick(0);
	printf("scattered %.1f\n", s);
	free(a);
}

/* The program's own protections of a call's output: a write barrier (the pages made
 * read-only; its handler counts each write's fault and opens the page) and a guard page
 * (PROT_NONE, its touch caught).  Each must work as without the wrapper: one fault a
 * page, and the guard's. */
#define OWN_PAGES 16L
static volatile int barrier_faults, guard_faults;
static char *own_block, *own_guard;

static void on_own_fault(int sig, siginfo_t *si, void *uc)
{
	char *p = si->si_addr;
	(void)sig, (void)uc;
	if (p >= own_guard && p < own_guard + 4096) {
		guard_faults++;
		siglongjmp(env, 1);
	}
	if (p >= own_block && p < own_guard) {
		barrier_faults++;
		mprotect((void *)((uintptr_t)p & ~4095ul), 4096, PROT_READ | PROT_WRITE);
		return;
	}
	signal(SIGSEGV, SIG_DFL);
}

static void s_own_protect(int unused)
{
	(void)unused;
	size_t size = (OWN_PAGES + 1) * 4096;
	double *a = aligned_alloc(4096, size);
	struct sigaction sa;
	if (!a)
		exit(3);
	own_block = (char *)a;
	own_guard = own_block + OWN_PAGES * 4096;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_own_fault;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	/* the guard first: the call does not write it (its extent does cover it) */
	mprotect(own_guard, 4096, PROT_NONE);
	hr_fill(a, OWN_PAGES * PER_PAGE, 1);
	mprotect(a, OWN_PAGES * 4096, PROT_READ);
	double s = 0;
	for (long i = 0; i < OWN_PAGES * PER_PAGE; i++)
		s += a[i];
	for (long k = 0; k < OWN_PAGES; k++)
		a[k * PER_PAGE] = -1;
	if (!sigsetjmp(env, 1)) {
		*(volatile char *)own_guard = 1;
		puts("guard opened");
	}
	hr_tick(0);
	printf("sum %.1f barrier faults %d guard faults %d\n", s, barrier_faults, guard_faults);
	mprotect(own_guard, 4096, PROT_READ | PROT_WRITE);
	free(a);
}

/* a forked child that makes no call execs with an argument a call of its parent wrote */
static void s_exec_unrecorded(int unused)
{
	(void)unused;
	double *a = big();
	int fd = open("sys-path.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "sys-out.txt", 12) != 12)
		exit(3);
	close(fd);
	load_path(a);
	exec_child(a, 0);
}

/* a thread that reads an output of the main thread's call and never calls again: its
 * read happened between the main thread's two fills (it is joined before the second),
 * so it belongs before the second, not at the run's end */
static double *late_a;
static void *late_reader(void *arg)
{
	double s = 0;
	for (long i = 0; i < N; i++)
		s += late_a[i];
	*(double *)arg = s;
	return NULL;
}

static void s_late_reader(int unused)
{
	(void)unused;
	double *a = big(), s1 = 0, s2 = 0;
	pthread_t t;
	hr_fill(a, N, 1);
	late_a = a;
	if (pthread_create(&t, NULL, late_reader, &s1) != 0 || pthread_join(t, NULL) != 0)
		exit(3);
	hr_fill(a, N, 2);
	for (long i = 0; i < N; i++)
		s2 += a[i];
	hr_tick(0);
	printf("late %.1f %.1f\n", s1, s2);
	free(a);
}

/* the child reads page 1, the parent page 2, each before its own next call */
static void s_fork(int unused)
{
	(void)unused;
	double *a = big();
	hr_fill(a, N, 1);
	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		volatile double x = a[PER_PAGE * 1 + 1];
		hr_tick(1);
		printf("child %g\n", x);
		exit(0);
	}
	int st;
	waitpid(p, &st, 0);
	volatile double y = a[PER_PAGE * 2 + 1];
	hr_tick(2);
	printf("parent %g child status %d\n", y, st);
	free(a);
}

/* the scenarios that take no file names: name, function, its argument */
static const struct {
	const char *name;
	void (*run)(int);
	int arg;
} scenarios[] = {
	{ "read", s_read, 0 },
	{ "never", s_never, 0 },
	{ "pass", s_pass, 0 },
	{ "read-after-read", s_pass, 1 },
	{ "pass-vec", s_pass_vec, 0 },
	{ "load", s_load, 0 },
	{ "handler", s_handler, 0 },
	{ "handler-signal", s_handler, 1 },
	{ "handler-bsd", s_handler, 2 },
	{ "handler-sysv", s_handler, 3 },
	{ "handler-sigset", s_handler, 4 },
	{ "sys", s_sys, 0 },
	{ "die", s_die, 0 },
	{ "adjacent", s_adjacent, 0 },
	{ "blocked", s_blocked, 0 },
	{ "assumed", s_assumed, 0 },
	{ "threads", s_threads, 0 },
	{ "late-reader", s_late_reader, 0 },
	{ "fork", s_fork, 0 },
	{ "shared", s_shared, 0 },
	{ "shared-struct", s_shared, 1 },
	{ "scattered", s_scattered, 0 },
	{ "own-protect", s_own_protect, 0 },
	{ "exec-unrecorded", s_exec_unrecorded, 0 },
};

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "read";
	if (!strcmp(s, "io")) {
		s_io(argc > 3 ? argv[2] : "w1.bin", argc > 3 ? argv[3] : "w2.bin");
		return 0;
	}
	if (!strcmp(s, "read-chk")) {
		s_read_chk(argc > 2 ? argv[2] : "w1.bin");
		return 0;
	}
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		if (!strcmp(s, scenarios[i].name)) {
			scenarios[i].run(scenarios[i].arg);
			return 0;
		}
	return 2;
}
