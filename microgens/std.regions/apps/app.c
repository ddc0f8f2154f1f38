/* app.c - test_std_regions.py's scenarios, one per argv[1]: each prints its name and the
 * sizes the trace must show */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dlfcn.h>
#include <fcntl.h>
#include "regs.h"

static double stat_arr[300];
/* static objects with others after them: .data, .rodata */
static double data_arr[100] = { 1 };
__attribute__((used)) static double data_next[7] = { 2 };
static const double table[50] = { 1, 2, 3 };
__attribute__((used)) static const double table_next[5] = { 4 };
double *stat_pub_ptr(void);
double *stat_priv_ptr(void);
double *sts_pub_ptr(void);

/* facts the trace is checked against that may differ from run to run (addresses): in a
 * file, since the plain and the wrapped runs must print the same */
static void fact(const char *name, long v)
{
	FILE *f = fopen("facts.txt", "a");
	fprintf(f, "%s %ld\n", name, v);
	fclose(f);
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		write(out, buf, (size_t)n);
	close(in);
	close(out);
}

static double *main_arr;
static void *stack_worker(void *arg)
{
	fill(main_arr, 50, 1.0);		/* the main thread's stack array */
	fill(main_arr + 10, 1, 1.0);		/* from its middle */
	return NULL;
}

/* a worker that lists its stack (its first charge) and lends a stack array to another */
static double *lent;
static pthread_mutex_t lend_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t lend_cv = PTHREAD_COND_INITIALIZER;
static int lend_state;
static void *lender(void *arg)
{
	double arr[50];
	double *h = malloc(64);
	fill(h, 1, 0);			/* its first charge: its stack is listed */
	memset(arr, 0, sizeof(arr));
	pthread_attr_t a; void *lo; size_t size;
	pthread_getattr_np(pthread_self(), &a);
	pthread_attr_getstack(&a, &lo, &size);
	pthread_attr_destroy(&a);
	fact("lender_to_stack_end", (long)((char *)lo + size - (char *)arr));
	pthread_mutex_lock(&lend_mu);
	lent = arr;
	lend_state = 1;
	pthread_cond_broadcast(&lend_cv);
	while (lend_state != 2)
		pthread_cond_wait(&lend_cv, &lend_mu);
	pthread_mutex_unlock(&lend_mu);
	__asm__ volatile("" : : "r"(arr) : "memory");
	free(h);
	return NULL;
}
static void *borrower(void *arg)
{
	pthread_mutex_lock(&lend_mu);
	while (lend_state != 1)
		pthread_cond_wait(&lend_cv, &lend_mu);
	pthread_mutex_unlock(&lend_mu);
	fill(lent, 50, 2.0);
	pthread_mutex_lock(&lend_mu);
	lend_state = 2;
	pthread_cond_broadcast(&lend_cv);
	pthread_mutex_unlock(&lend_mu);
	return NULL;
}
extern void *__libc_stack_end;	/* ld.so's: where main's frames end */
static void *dead_stack;
static void *short_lived(void *arg)
{
	double arr[8];
	fill(arr, 8, 0);		/* listed... */
	dead_stack = arr;		/* ...and gone once the thread has ended */
	return NULL;
}

/* one 60-byte array in this frame, nothing else worth keeping there */
__attribute__((noinline)) static long stack_user(void)
{
	char local[60];
	memset(local, 1, sizeof(local));
	fill((double *)(void *)local, 7, 1.0);	/* 56 of its bytes */
	__asm__ volatile("" : : "r"(local) : "memory");
	return local[59];
}

static void *storm(void *arg)
{
	long id = (long)arg, s = 0;
	for (int i = 0; i < 5000; i++) {
		size_t n = 8 + (size_t)((i * 37 + id * 11) % 500) * 8;
		double *p = malloc(n);
		fill(p, (int)(n / 8), 1.0);
		s += sum(p, (int)(n / 8));
		if (i % 3 == 0)
			p = realloc(p, n * 2);
		free(p);
	}
	return (void *)s;
}

static double *handler_buf;
static volatile long handler_sum;
static void on_alarm(int sig) { handler_sum += sum(handler_buf, 16); }

static int scenario_heap(void)
{
	double *a = malloc(8000), *b = calloc(50, 8), *c = malloc(16);
	c = realloc(c, 4000);
	void *d; posix_memalign(&d, 64, 777);
	double *e = aligned_alloc(256, 2048), *f = memalign(128, 1000), *g = valloc(3000);
	double *h = reallocarray(NULL, 30, 16);
	fill(a, 1, 0); fill(b, 1, 0); fill(c, 1, 0); fill(d, 1, 0);
	fill(e, 1, 0); fill(f, 1, 0); fill(g, 1, 0); fill(h, 1, 0);
	fill(a + 100, 1, 0);	/* from inside the block: 8000 - 800 */
	free(e);
	fill(e, 0, 0);		/* freed: no known region */
	printf("8000 400 4000 777 2048 1000 3000 480 7200 0\n");
	return 0;
}

static int scenario_mmap(void)
{
	double *m = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fill(m, 1, 0);
	fill(m + 1024, 1, 0);			/* 8 KiB in */
	munmap(m + 4096, 32768);		/* a hole: [0, 32K) and [64K... gone */
	fill(m + 1024, 1, 0);			/* the head that is left */
	m = mremap(m, 32768, 3 * 65536, MREMAP_MAYMOVE);
	fill(m, 1, 0);
	munmap(m, 3 * 65536);
	printf("65536 57344 24576 196608\n");
	return 0;
}

static int scenario_stack(void)
{
	printf("%ld\n", stack_user());
	return 0;
}

static int scenario_static(void)
{
	fill(stat_arr, 300, 3);
	fill(stat_arr + 200, 1, 3);
	printf("2400 800\n");
	return 0;
}

static int scenario_statics(void)
{
	/* the program's own, sized by its .symtab (they are local symbols) */
	fill(data_arr, 100, 3);		/* .data, data_next after it */
	fill(data_arr + 37, 1, 3);	/* from its middle */
	fill(data_next, 1, 3);
	sum(table, 50);			/* .rodata, const: input */
	sum(table + 10, 1);
	/* a library's: its .dynsym (global) and .symtab (static), stripped: .dynsym */
	fill(stat_pub_ptr(), 40, 1);
	fill(stat_priv_ptr(), 24, 1);
	fill(stat_priv_ptr() + 4, 1, 1);
	fill(sts_pub_ptr(), 40, 1);
	printf("800 504 56 %d %d 320 192 160 320\n", 400 + 4, 320 + 4);
	return 0;
}

static int scenario_literal(void)
{
	const char *lit = "N", *word = "nameless";
	letter(lit);			/* a string literal: "N" and its NUL */
	sum((const double *)(const void *)word, 0);	/* nameless data, not as a string */
	fact("literal_from_table", (long)(word - (const char *)table));
	printf("%d\n", letter(lit));
	return 0;
}

static int scenario_gone(char **argv)
{
	/* libraries no longer on disk as they were loaded: one deleted, one replaced by
	 * another version (another size of stat_priv): .dynsym (in memory) only */
	copy_file(argv[2], "deleted.so");
	void *h = dlopen("./deleted.so", RTLD_NOW | RTLD_LOCAL);
	unlink("deleted.so");
	double *(*pub)(void) = (double *(*)(void))dlsym(h, "stat_pub_ptr");
	double *(*priv)(void) = (double *(*)(void))dlsym(h, "stat_priv_ptr");
	fill(pub(), 40, 1);
	fill(priv(), 24, 1);
	copy_file(argv[2], "replaced.so");
	h = dlopen("./replaced.so", RTLD_NOW | RTLD_LOCAL);
	copy_file(argv[3], "replaced.tmp");
	rename("replaced.tmp", "replaced.so");
	pub = (double *(*)(void))dlsym(h, "stat_pub_ptr");
	priv = (double *(*)(void))dlsym(h, "stat_priv_ptr");
	fill(pub(), 40, 1);
	fill(priv(), 24, 1);
	printf("320 320\n");
	return 0;
}

static int scenario_stackthread(void)
{
	double arr[50];
	memset(arr, 0, sizeof(arr));
	main_arr = arr;
	fact("main_to_frames_end", (long)((char *)__libc_stack_end - (char *)arr));
	pthread_t t;
	pthread_create(&t, NULL, stack_worker, NULL);
	pthread_join(t, NULL);
	/* a worker's stack array lent to another worker */
	pthread_t l, b;
	pthread_create(&l, NULL, lender, NULL);
	pthread_create(&b, NULL, borrower, NULL);
	pthread_join(l, NULL);
	pthread_join(b, NULL);
	/* the stack of a thread that ended is no region any more */
	pthread_create(&t, NULL, short_lived, NULL);
	pthread_join(t, NULL);
	fill(dead_stack, 0, 0);
	__asm__ volatile("" : : "r"(arr) : "memory");
	printf("%d %d %d 0\n", 400, 320, 400);
	return 0;
}

static int scenario_classes(void)
{
	double *x = malloc(800), *y = malloc(1600), *z = malloc(240);
	memset(x, 0, 800); memset(y, 0, 1600);
	both(x, y, z, 30);		/* in: x, y and n; out: z */
	both(x, x + 50, z, 30);		/* one region through two pointers: once */
	both(x, y, x + 60, 30);		/* a region both read and written */
	printf("%d %d %d\n", 800 + 1600 + 4, 800 + 4, 800 + 1600 + 4);
	return 0;
}

static int scenario_ptrarray(void)
{
	char **ls = malloc(5 * sizeof(char *));
	for (int i = 0; i < 5; i++) { ls[i] = malloc(100 + i); ls[i][0] = 'a'; }
	rows((const char *const *)ls, 5);
	bump(ls, 5);
	char *one = malloc(4000);	/* rows carved out of one block: counted once */
	for (int i = 0; i < 5; i++) ls[i] = one + 800 * i;
	rows((const char *const *)ls, 5);
	printf("%d %d\n", 40 + 100 + 101 + 102 + 103 + 104 + 4, 40 + 4000 + 4);
	return 0;
}

static int scenario_threads(void)
{
	pthread_t t[8];
	long total = 0;
	for (long i = 0; i < 8; i++) pthread_create(&t[i], NULL, storm, (void *)i);
	for (int i = 0; i < 8; i++) { void *r; pthread_join(t[i], &r); total += (long)r; }
	printf("%ld\n", total);
	return 0;
}

static int scenario_signals(void)
{
	/* a handler calling a wrapped function while the thread is in malloc and free */
	handler_buf = calloc(16, 8);
	signal(SIGPROF, on_alarm);
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	setitimer(ITIMER_PROF, &it, NULL);
	long s = 0;
	for (int i = 0; i < 3000000; i++) { char *p = malloc(32 + i % 64); __asm__ volatile("" : : "r"(p) : "memory"); p[0] = 1; s += p[0]; free(p); }
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_PROF, &off, NULL);
	printf("%ld\n", s);
	return 0;
}

static int scenario_fork(void)
{
	double *a = malloc(1200);
	fill(a, 1, 0);
	pid_t pid = fork();
	if (pid == 0) {
		double *b = malloc(2400);
		fill(b, 1, 0); fill(a, 1, 0);
		_exit(0);
	}
	int st; waitpid(pid, &st, 0);
	printf("%d\n", WEXITSTATUS(st));
	return 0;
}

int main(int argc, char **argv)
{
	const char *what = argv[1];
	if (!strcmp(what, "heap"))
		return scenario_heap();
	if (!strcmp(what, "mmap"))
		return scenario_mmap();
	if (!strcmp(what, "stack"))
		return scenario_stack();
	if (!strcmp(what, "static"))
		return scenario_static();
	if (!strcmp(what, "statics"))
		return scenario_statics();
	if (!strcmp(what, "literal"))
		return scenario_literal();
	if (!strcmp(what, "gone"))
		return scenario_gone(argv);
	if (!strcmp(what, "stackthread"))
		return scenario_stackthread();
	if (!strcmp(what, "classes"))
		return scenario_classes();
	if (!strcmp(what, "ptrarray"))
		return scenario_ptrarray();
	if (!strcmp(what, "threads"))
		return scenario_threads();
	if (!strcmp(what, "signals"))
		return scenario_signals();
	if (!strcmp(what, "fork"))
		return scenario_fork();
	return 0;
}
