/* app.c - test_std_diff.py's scenarios, one per argv[1]: each prints, per wrapped call,
 * the bytes in and out the trace must show */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dd.h"

static double stat_arr[300];
static void expect(long in, long out) { printf("%ld %ld\n", in, out); }
/* bytes of [NOW, NOW + N) in 8-byte blocks (aligned in the address space, clipped to
 * the range) with a byte that differs from OLD */
static long changed8(const unsigned char *old, const unsigned char *now, long n)
{
	long total = 0;
	uintptr_t a = (uintptr_t)now, b = a + n;
	for (uintptr_t blk = a & ~(uintptr_t)7; blk < b; blk += 8) {
		uintptr_t s = blk > a ? blk : a, e = blk + 8 < b ? blk + 8 : b;
		if (memcmp(old + (s - a), now + (s - a), e - s))
			total += (long)(e - s);
	}
	return total;
}
static void refill(double *p, long n, double seed) { for (long i = 0; i < n; i++) p[i] = seed + i * 0.5 + 1; }

__attribute__((noinline)) static void stack_user(void)
{
	char local[60];
	memset(local, 1, sizeof(local));
	fill((double *)(void *)local, 7, 1.0);	/* 56 of its bytes, all changed */
	__asm__ volatile("" : : "r"(local) : "memory");
	expect(-1, 56);	/* in: the frame's live bytes, 60 and what the frame keeps */
}

/* an array in a new frame, over the stack a wrapped call used just before: its first
 * 800 bytes written, the rest holding what that call left */
__attribute__((noinline)) static long stack_fresh(int v)
{
	char local[4000];
	memset(local, v, 800);
	long r = sum((const double *)(void *)local, 100);
	__asm__ volatile("" : : "r"(local) : "memory");
	return r;
}

/* Values no block of the run ever held before: a thread that starts after another ended
 * takes over its malloc arena, and a block at an address 16 bytes below a freed one,
 * with refill's pattern and a seed one less, holds the same doubles where they overlap
 * (what std.diff last saw there: rightly not new). */
static long next_value = 1;

static void *worker(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < 200; i++) {
		long n = 16 + (i * 37 + id * 11) % 3000;
		double *p = malloc(n * 8);
		long base = __atomic_fetch_add(&next_value, n, __ATOMIC_RELAXED);
		for (long k = 0; k < n; k++)
			p[k] = (double)(base + k);
		sum(p, (int)n);
		free(p);
	}
	return NULL;
}

static double *handler_buf;
static volatile long handler_sum;
static void on_alarm(int sig) { handler_sum += sum(handler_buf, 16); }

static int scenario_heap(void)
{
	double *a = malloc(8000);
	refill(a, 1000, 1);
	sum(a, 1000); expect(8000 + 4, 0);	/* all new */
	sum(a, 1000); expect(4, 0);		/* nothing changed */
	a[10] = -1;
	sum(a, 1000); expect(8 + 4, 0);		/* one double */
	((unsigned char *)a)[20 * 8 + 3] ^= 0x40;
	sum(a, 1000); expect(8 + 4, 0);		/* one byte: its 8-byte block */
	sum(a + 500, 500); expect(4, 0);	/* from inside: nothing changed */
	double *y = calloc(100, 8);
	fill(y, 100, 2); expect(12, 800);	/* zeros are no input */
	fill(y, 50, 3); expect(12, 400);
	fill(y, 50, 3); expect(12, 0);		/* the same values again */
	double *x = malloc(800);
	refill(x, 100, 7);
	scale(x, 100, 2); expect(800 + 12, 800);	/* in-out */
	double *c = calloc(30, 8);
	/* a unchanged; x changed by scale, which counted it as its output: data a
	 * wrapped call produced is no input of the next (an accelerator keeps it) */
	both(a, x, c, 30); expect(4, 240);
	x[0] = 1;
	both(a, x, c, 30); expect(8 + 4, 8);
	char *p = malloc(100);
	memset(p, 9, 100);
	p = realloc(p, 5000);			/* moves: a region new to std.diff */
	memset(p + 100, 0, 4900);		/* (realloc leaves the rest as it was) */
	sum((double *)p, 1); expect(104 + 4, 0);	/* its bytes, 8-byte blocks */
	return 0;
}

static int scenario_pages(char **argv)
{
	/* many pages: watched ones are compared only where written */
	long n = 1 << 19;	/* 4 MiB */
	double *a = malloc(n * 8);
	refill(a, n, 3);
	sum(a, (int)n); expect(n * 8 + 4, 0);
	sum(a, (int)n); expect(4, 0);
	a[1] = 0; a[n / 2] = 0; a[n - 1] = 0;
	sum(a, (int)n); expect(24 + 4, 0);
	/* 300 bytes in the middle zeroed, then written by the kernel (read(2)); the
	 * 8-byte blocks around them are what counts */
	unsigned char *mid = (unsigned char *)a + 3 * 4096 + 100, before[320];
	unsigned char *blk = (unsigned char *)((uintptr_t)mid & ~(uintptr_t)7);
	long span = (long)((((uintptr_t)mid + 300 + 7) & ~(uintptr_t)7) - (uintptr_t)blk);
	memcpy(before, blk, span);
	memset(mid, 0, 300);
	sum(a, (int)n); expect(changed8(before, blk, span) + 4, 0);
	memcpy(before, blk, span);
	int fd = open("/proc/self/exe", O_RDONLY);
	if (read(fd, mid, 300) != 300) return 3;
	close(fd);
	sum(a, (int)n); expect(changed8(before, blk, span) + 4, 0);
	fill(a + 1000, 3000, 7); expect(12, 3000 * 8);	/* output: across pages */
	sum(a, (int)n); expect(4, 0);		/* already counted as the fill's output */
	void (*stats)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "dyl_diff_stats");
	uint64_t st[16] = { 0 };
	if (!stats)
		return 0;	/* the plain run */
	stats(st);
	/* calls, looks, tracked, compared, watched compared, ...; watching */
	FILE *f = fopen(argv[2], "w");	/* not on stdout: the plain run has none */
	fprintf(f, "%lu %lu %d\n", (unsigned long)st[2], (unsigned long)st[3], *(int *)&st[8]);
	fclose(f);
	return 0;
}

static int scenario_reuse(void)
{
	/* a block made of memory another block left: what is there is no input */
	mallopt(M_MMAP_THRESHOLD, 1 << 26);	/* from the heap, not a fresh mapping */
	long n = 1 << 17;	/* 1 MiB */
	double *p = malloc(n * 8);
	refill(p, n, 5);
	sum(p, (int)n); expect(n * 8 + 4, 0);
	free(p);
	double *c = malloc(n * 8);
	printf("%d\n", c == p);	/* the same memory, stale data in it */
	fill(c, (int)n, 3.0); expect(-1, n * 8);
	return 0;
}

static int scenario_reuse_small(void)
{
	/* a block under 128 KiB (compared whole) made of memory a freed one left */
	double *a = malloc(2000);
	refill(a, 250, 1);
	sum(a, 250); expect(2000 + 4, 0);
	free(a);
	double *b = malloc(2000);	/* the same memory again, from malloc's free lists */
	refill(b, 100, 2);		/* new data in its first 800 bytes (over malloc's words) */
	sum(b, 250); expect(b == a ? 800 + 4 : -1, 0);	/* the rest: what sum saw */
	free(b);
	double *c = calloc(250, 8);	/* zeros where data was: no input either */
	sum(c, 250); expect(c == a ? 4 : -1, 0);
	return 0;
}

static int scenario_born(void)
{
	/* a block made of memory that a block no call saw left: what was there at its
	 * malloc is no input; the 800 bytes the program writes are */
	double *junk = malloc(8000);
	refill(junk, 1000, 7);
	__asm__ volatile("" : : "r"(junk) : "memory");
	free(junk);
	double *o = malloc(8000);
	int same = o == junk;	/* (an exact fit: malloc gives the same chunk back) */
	refill(o, 100, 3);
	scale(o, 1000, 2.0); expect(same ? 800 + 12 : -1, 8000);
	return 0;
}

static int scenario_dead_stack(void)
{
	stack_fresh(1);	/* (a stack pointer seen: this thread's stack is watched) */
	churn(6000);
	stack_fresh(2);
	expect(-1, 0);	/* (printed after the calls: printf's frames would be data) */
	expect(4, 0);
	expect(-1, 0);	/* the 800 bytes and the scalar, and little else in that frame */
	return 0;
}

static int scenario_ptrarray(void)
{
	char **ls = malloc(5 * sizeof(char *));
	for (int i = 0; i < 5; i++) { ls[i] = calloc(100 + i, 1); ls[i][0] = 'a'; }
	rows((const char *const *)ls, 5); expect(40 + 5 * 8 + 4, 0);
	bump(ls, 5); expect(4, 5 * 8);
	char *one = calloc(4000, 1);		/* rows carved out of one block: counted once */
	for (int i = 0; i < 5; i++) { ls[i] = one + 800 * i; ls[i][1] = 'b'; }
	rows((const char *const *)ls, 5); expect(40 + 5 * 8 + 4, 0);
	return 0;
}

static int scenario_stack(void)
{
	stack_user();
	return 0;
}

static int scenario_static(void)
{
	fill(stat_arr, 300, 3); expect(12, 2400);
	fill(stat_arr + 200, 1, 3); expect(12, 0);
	fill(stat_arr + 200, 1, 4); expect(12, 8);
	sum(stat_arr, 300); expect(4, 0);
	return 0;
}

static int scenario_mmap(void)
{
	unsigned char *m = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(m + 8192, 5, 100);
	sum((double *)(m + 1024), 1); expect(104 + 4, 0);
	unsigned char *g = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	g[0] = 1;
	mprotect(g, 8192, PROT_NONE);		/* unreadable: counted as nothing, no crash */
	sum((double *)g, 0); expect(4, 0);
	return 0;
}

static int scenario_nested(void)
{
	double *a = malloc(800);
	refill(a, 100, 2);
	outer(a, 100); expect(800 + 4, 0);	/* the inner sum: not estimated */
	return 0;
}

static int scenario_threads(void)
{
	pthread_t t[4];
	for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
	printf("done\n");
	return 0;
}

static int scenario_signals(void)
{
	handler_buf = calloc(16, 8);
	signal(SIGPROF, on_alarm);
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	setitimer(ITIMER_PROF, &it, NULL);
	double *big = malloc(1 << 20);
	long s = 0;
	for (int i = 0; i < 400; i++) { big[i] = i; s += sum(big, 1 << 17); }
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_PROF, &off, NULL);
	printf("%ld\n", s);
	return 0;
}

static int scenario_fork(void)
{
	double *a = malloc(1200);
	refill(a, 150, 4);
	sum(a, 150);
	pid_t pid = fork();
	if (pid == 0) {
		sum(a, 150);		/* nothing changed since the parent looked */
		a[3] = 0;
		sum(a, 150);
		_exit(0);
	}
	int st; waitpid(pid, &st, 0);
	a[0] = 0; a[1] = 0;
	sum(a, 150);
	printf("%d\n", WEXITSTATUS(st));
	return 0;
}

int main(int argc, char **argv)
{
	const char *what = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(what, "heap"))
		return scenario_heap();
	if (!strcmp(what, "pages"))
		return scenario_pages(argv);
	if (!strcmp(what, "reuse"))
		return scenario_reuse();
	if (!strcmp(what, "reuse_small"))
		return scenario_reuse_small();
	if (!strcmp(what, "born"))
		return scenario_born();
	if (!strcmp(what, "dead_stack"))
		return scenario_dead_stack();
	if (!strcmp(what, "ptrarray"))
		return scenario_ptrarray();
	if (!strcmp(what, "stack"))
		return scenario_stack();
	if (!strcmp(what, "static"))
		return scenario_static();
	if (!strcmp(what, "mmap"))
		return scenario_mmap();
	if (!strcmp(what, "nested"))
		return scenario_nested();
	if (!strcmp(what, "threads"))
		return scenario_threads();
	if (!strcmp(what, "signals"))
		return scenario_signals();
	if (!strcmp(what, "fork"))
		return scenario_fork();
	return 0;
}
