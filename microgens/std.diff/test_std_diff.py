"""std.diff: bytes in and out from what changed in the buffers (the full method), on real
code.  Each scenario's program knows what it changed and prints the sizes the trace
must show; every scenario runs twice, with pages watched (userfaultfd) and with whole
buffers compared (DYL_DIFF_WATCH=0), and both must give the same numbers.  Then
reference BLAS, with its output unchanged."""
import os
import pytest

from dyltest import EXAMPLES, REF_BLAS, Trace, build_c, c_library, run_both, wrap, write_ppm

HEADER = r'''
long sum(const double *x, int n);
void fill(double *y, int n, double v);
void scale(double *x, int n, double f);
long both(const double *a, const double *b, double *c, int n);
int rows(const char *const *lines, int n);
int bump(char **lines, int n);
long outer(const double *x, int n);
long churn(int n);
'''
SOURCE = r'''
long sum(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i]; return (long)s; }
void fill(double *y, int n, double v) { for (int i = 0; i < n; i++) y[i] = v; }
void scale(double *x, int n, double f) { for (int i = 0; i < n; i++) x[i] *= f; }
long both(const double *a, const double *b, double *c, int n) { for (int i = 0; i < n; i++) c[i] = a[i] + b[i]; return n; }
int rows(const char *const *lines, int n) { int t = 0; for (int i = 0; i < n; i++) t += lines[i][0]; return t; }
int bump(char **lines, int n) { for (int i = 0; i < n; i++) lines[i][0]++; return n; }
/* a wrapped call inside a wrapped call (resolved through the wrapper: not -Bsymbolic) */
long outer(const double *x, int n) { return sum(x, n); }
/* leaves N bytes of its own below its caller's frame: data of no later frame's */
long churn(int n) { volatile char buf[8192]; for (int i = 0; i < n && i < 8192; i++) buf[i] = (char)(i * 7 + 1); return buf[n / 2]; }
'''
# Every scenario prints, one line per wrapped call it makes, "IN OUT" as the program
# knows them: the bytes it changed in the buffer since the call before (+ the sizeof of
# the arguments passed by value), and the bytes the call changes.  "?" where only a
# range can be said (printed as LO-HI).
APP = r'''
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

static void *worker(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < 200; i++) {
		long n = 16 + (i * 37 + id * 11) % 3000;
		double *p = malloc(n * 8);
		refill(p, n, id + i);
		sum(p, (int)n);
		free(p);
	}
	return NULL;
}

static double *handler_buf;
static volatile long handler_sum;
static void on_alarm(int sig) { handler_sum += sum(handler_buf, 16); }

int main(int argc, char **argv)
{
	const char *what = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(what, "heap")) {
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
	} else if (!strcmp(what, "pages")) {
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
	} else if (!strcmp(what, "reuse")) {
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
	} else if (!strcmp(what, "reuse_small")) {
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
	} else if (!strcmp(what, "born")) {
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
	} else if (!strcmp(what, "dead_stack")) {
		stack_fresh(1);	/* (a stack pointer seen: this thread's stack is watched) */
		churn(6000);
		stack_fresh(2);
		expect(-1, 0);	/* (printed after the calls: printf's frames would be data) */
		expect(4, 0);
		expect(-1, 0);	/* the 800 bytes and the scalar, and little else in that frame */
	} else if (!strcmp(what, "ptrarray")) {
		char **ls = malloc(5 * sizeof(char *));
		for (int i = 0; i < 5; i++) { ls[i] = calloc(100 + i, 1); ls[i][0] = 'a'; }
		rows((const char *const *)ls, 5); expect(40 + 5 * 8 + 4, 0);
		bump(ls, 5); expect(4, 5 * 8);
		char *one = calloc(4000, 1);		/* rows carved out of one block: counted once */
		for (int i = 0; i < 5; i++) { ls[i] = one + 800 * i; ls[i][1] = 'b'; }
		rows((const char *const *)ls, 5); expect(40 + 5 * 8 + 4, 0);
	} else if (!strcmp(what, "stack")) {
		stack_user();
	} else if (!strcmp(what, "static")) {
		fill(stat_arr, 300, 3); expect(12, 2400);
		fill(stat_arr + 200, 1, 3); expect(12, 0);
		fill(stat_arr + 200, 1, 4); expect(12, 8);
		sum(stat_arr, 300); expect(4, 0);
	} else if (!strcmp(what, "mmap")) {
		unsigned char *m = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		memset(m + 8192, 5, 100);
		sum((double *)(m + 1024), 1); expect(104 + 4, 0);
		unsigned char *g = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		g[0] = 1;
		mprotect(g, 8192, PROT_NONE);		/* unreadable: counted as nothing, no crash */
		sum((double *)g, 0); expect(4, 0);
	} else if (!strcmp(what, "nested")) {
		double *a = malloc(800);
		refill(a, 100, 2);
		outer(a, 100); expect(800 + 4, 0);	/* the inner sum: not estimated */
	} else if (!strcmp(what, "threads")) {
		pthread_t t[4];
		for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, worker, (void *)i);
		for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
		printf("done\n");
	} else if (!strcmp(what, "signals")) {
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
	} else if (!strcmp(what, "fork")) {
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
	}
	return 0;
}
'''


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    # the regions' extents are what these scenarios are about: every pointer to its
    # region's end, as before lengths (their n would bound x: test_std_diff_lengths.py)
    d = tmp_path_factory.mktemp('diff')
    lib, h = c_library(d, 'dd', HEADER, SOURCE)
    app = build_c(d, APP, 'app', f'-I{d}', lib, f'-Wl,-rpath,{d}', '-lpthread', '-ldl')
    w = wrap(d, '--lib', lib, '--header', h, '-g', 'std.diff:lengths=off')
    return d, app, w


MODES = {'watch': {}, 'compare': {'DYL_DIFF_WATCH': '0'}}


def run_scenario(built, what, mode):
    d, app, w = built
    r, tp = run_both([app, what, f'{what}-{mode}.stats'], w, d, env=MODES[mode], trace=f'{what}-{mode}.csv')
    t = Trace(tp)
    assert t.meta['regions_heap'] == 'tracked'
    assert t.meta['diff'].startswith('watched pages' if mode == 'watch' else 'whole buffers'), t.meta
    return r, t.by_seq()


# the sizeof of what each function of libdd returns: output of every call
RESULT = {'sum': 8, 'fill': 0, 'scale': 0, 'both': 8, 'rows': 4, 'bump': 4, 'outer': 8, 'churn': 8,
          'dgemm_': 0}


def sizes(rows):
    """(in, out) of each row, out without the return value (the app's own counts are of
    its buffers): the return value is checked here, once for all"""
    for r in rows:
        assert int(r['out_bytes']) >= RESULT[r['func']], r
    return [(int(r['in_bytes']), int(r['out_bytes']) - RESULT[r['func']]) for r in rows]


def expected(stdout):
    return [tuple(int(x) for x in line.split()) for line in stdout.splitlines()]


@pytest.mark.parametrize('mode', MODES)
@pytest.mark.parametrize('what', ['heap', 'reuse_small', 'born', 'ptrarray', 'static', 'mmap'])
def test_exact_bytes(built, what, mode):
    r, rows = run_scenario(built, what, mode)
    assert sizes(rows) == expected(r.stdout)


@pytest.mark.parametrize('mode', MODES)
def test_pages_written_by_the_program_and_the_kernel(built, mode):
    r, rows = run_scenario(built, 'pages', mode)
    assert sizes(rows) == expected(r.stdout)
    with open(os.path.join(built[0], f'pages-{mode}.stats')) as f:
        tracked, compared, watching = f.read().split()
    if mode == 'watch':
        assert watching == '1'
        # 8 looks over 4 MiB: the watched ones compare the pages written, not the buffer
        assert int(compared) < int(tracked) / 3, (tracked, compared)
    else:
        assert watching == '0' and compared == tracked


@pytest.mark.parametrize('mode', MODES)
def test_reused_memory(built, mode):
    r, rows = run_scenario(built, 'reuse', mode)
    lines = r.stdout.decode().split('\n')
    assert lines[1] == '1', 'malloc gave the freed memory back'
    (first, fill), want = sizes(rows), expected('\n'.join([lines[0], lines[2]]))
    assert first == want[0] and fill[1] == want[1][1]
    # the new block was copied at its malloc (the first block's data, and the words
    # malloc wrote into the memory while it was free: its free-list links and chunk
    # header): none of it is input, only the scalars
    assert fill[0] == 12, fill


@pytest.mark.parametrize('mode', MODES)
def test_stack_array_charged_by_its_frame(built, mode):
    r, rows = run_scenario(built, 'stack', mode)
    (row,) = rows
    assert int(row['out_bytes']) == 56
    # in: the 60 bytes set to 1 (and the alignment padding in the last 8-byte block), and
    # the scalars; not the saved registers and return address above the frame's data,
    # never the kilobytes of the whole stack
    assert 60 + 12 <= int(row['in_bytes']) <= 60 + 12 + 4, row


@pytest.mark.parametrize('mode', MODES)
def test_stack_a_wrapped_call_used_is_no_input(built, mode):
    r, rows = run_scenario(built, 'dead_stack', mode)
    (_, churn, fresh), want = sizes(rows), expected(r.stdout)
    assert churn == want[1]
    # the 800 bytes and the 4 of n, plus at most a few words of the frame (none of the
    # 3,200 bytes churn left in the array's rest: taken as seen at the end of its call)
    assert 800 + 4 <= fresh[0] <= 800 + 4 + 64, fresh


@pytest.mark.parametrize('mode', MODES)
def test_nested_calls_are_not_estimated(built, mode):
    r, rows = run_scenario(built, 'nested', mode)
    outer, inner = rows
    assert (outer['func'], inner['func'], inner['depth']) == ('outer', 'sum', '1')
    assert sizes([outer]) == expected(r.stdout)
    assert inner['in_bytes'] == '' and inner['out_bytes'] == ''


@pytest.mark.parametrize('mode', MODES)
def test_threads_each_exact(built, mode):
    r, rows = run_scenario(built, 'threads', mode)
    assert len(rows) == 800
    # sum(p, n) on a block of n doubles, all of them new: n * 8 + 4, whatever the thread
    for row in rows:
        assert int(row['out_bytes']) == 8       # the long sum returns
        assert int(row['in_bytes']) >= 16 * 8 + 4
        assert (int(row['in_bytes']) - 4) % 8 == 0


def test_signal_handlers_calling_in(built):
    r, rows = run_scenario(built, 'signals', 'watch')
    # the loop's sums see one changed double (none the first time: 0.0 is zeros); the
    # handler's see nothing new in its buffer, or have no estimate when they came inside
    # a wrapped call (depth 1) or inside std.diff itself (it is not re-entered)
    assert {x['in_bytes'] for x in rows if x['depth'] == '0'} <= {'4', '12', ''}
    assert sum(x['in_bytes'] == '12' for x in rows) >= 399
    assert all(x['in_bytes'] == '' for x in rows if x['depth'] != '0')


@pytest.mark.parametrize('mode', MODES)
def test_fork_child_starts_watching_again(built, mode):
    d, app, w = built
    r, tp = run_both([app, 'fork'], w, d, env=MODES[mode], trace=f'fork-{mode}.csv')
    parent = sizes(Trace(tp).by_seq())
    children = [f for f in os.listdir(d) if f.startswith(f'fork-{mode}.csv.')]
    assert len(children) == 1
    child = sizes(Trace(os.path.join(d, children[0])).by_seq())
    assert parent == [(1200 + 4, 0), (16 + 4, 0)]
    assert child == [(4, 0), (8 + 4, 0)]


def test_modes_agree_on_reference_blas(tmp_path):
    """dgemm_ from Fortran-style C: C = A B with fresh operands each time: A and B are
    input, C output, exactly; the scalars passed by pointer from the caller's frame add
    a few bytes of input."""
    src = os.path.join(EXAMPLES, 'apps', 'blas_fortran.c')
    app = build_c(tmp_path, src, 'blas_fortran', REF_BLAS, f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')
    w = wrap(tmp_path, '--lib', REF_BLAS, '--header', os.path.join(EXAMPLES, 'blas.h'),
             '-f', 'dgemm_', '-g', 'std.diff')
    got = {}
    for mode, env in MODES.items():
        r, tp = run_both([app], w, tmp_path, env=env, trace=f'blas-{mode}.csv')
        got[mode] = sizes(Trace(tp).by_seq())
    assert got['watch'] == got['compare']
    assert got['watch'], 'dgemm_ was called'


# --- real libraries -----------------------------------------------------------------

GEMM_APP = r'''
#include <stdio.h>
#include <stdlib.h>
#include "blas.h"
/* every scalar of the call in one heap block, so that the expected bytes are exact */
struct scalars { char ta, tb; int m, n, k, lda, ldb, ldc; double alpha, beta; };
int main(int argc, char **argv)
{
	int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
	struct scalars *s = malloc(sizeof(*s));
	*s = (struct scalars){ 'N', 'N', m, n, k, m, k, m, 1.0, 0.0 };
	double *a = malloc(sizeof(double) * m * k), *b = malloc(sizeof(double) * k * n);
	double *c = malloc(sizeof(double) * m * n);
	for (int i = 0; i < m * k; i++) a[i] = i % 7 + 1;
	for (int i = 0; i < k * n; i++) b[i] = i % 5 + 1;
	for (int round = 0; round < 3; round++) {
		if (round == 2)
			for (int i = 0; i < m * k; i++) a[i] += 0.5;	/* new A, new C */
		dgemm_(&s->ta, &s->tb, &s->m, &s->n, &s->k, &s->alpha, a, &s->lda, b, &s->ldb,
		       &s->beta, c, &s->ldc, 1, 1);
	}
	printf("%g\n", c[m * n - 1]);
	return 0;
}
'''


@pytest.mark.parametrize('mode', MODES)
def test_blas_dgemm_exact_and_unchanged_data_not_counted(tmp_path, mode):
    app = build_c(tmp_path, GEMM_APP, 'gemm', f'-I{EXAMPLES}', REF_BLAS,
                  f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')   # not the libblas.so.3 alternative
    w = wrap(tmp_path, '--lib', REF_BLAS, '--header', os.path.join(EXAMPLES, 'blas.h'),
             '-f', 'dgemm_', '-g', 'std.diff')
    m, n, k = 137, 123, 151     # A, B and C over 32 pages each: watched
    _, tp = run_both([app, str(m), str(n), str(k)], w, tmp_path, env=MODES[mode])
    first, again, new_a = sizes(Trace(tp).by_seq())
    # the scalars block: 8-byte blocks of (ta tb pad m) (n k) (lda ldb) (ldc pad) alpha,
    # not beta (0.0: zero bytes, as fresh memory is); two hidden lengths by value
    scalars, hidden = 5 * 8, 2 * 8
    assert first == (8 * (m * k + k * n) + scalars + hidden, 8 * m * n)
    assert again == (hidden, 0)              # the same operands, the same product
    assert new_a == (8 * m * k + hidden, 8 * m * n)


@pytest.mark.skipif(not os.path.exists('/usr/include/openssl/evp.h'), reason='needs libssl-dev')
def test_openssl_evp_unchanged(tmp_path):
    app = build_c(tmp_path, os.path.join(EXAMPLES, 'apps', 'evp_encrypt.c'), 'evp', '-lcrypto')
    w = wrap(tmp_path, '--lib', 'libcrypto.so.3', '--app', app, '-f', 'EVP_EncryptUpdate',
             '-g', 'std.diff')
    _, tp = run_both([app, '6', '4096', '2'], w, tmp_path)
    rows = Trace(tp).by_seq()
    assert len(rows) == 12
    # EVP_EncryptUpdate(ctx, out, &outl, in, inl): fresh plaintext in, ciphertext out,
    # plus what changes in the context (IV, buffered bytes) and outl
    for r in rows:
        assert 4096 + 4 <= int(r['in_bytes']) <= 4096 + 4 + 512, r
        assert 4096 <= int(r['out_bytes']) <= 4096 + 256, r


@pytest.mark.skipif(not (os.path.exists('/usr/bin/cjpeg') and os.path.exists('/usr/bin/djpeg')),
                    reason='needs libjpeg-turbo-progs')
def test_cjpeg_djpeg_unchanged(tmp_path):
    w = wrap(tmp_path, '--lib', 'libjpeg.so.62', '--app', '/usr/bin/cjpeg', '--app', '/usr/bin/djpeg',
             '-f', 'jpeg_write_scanlines', '-f', 'jpeg_read_scanlines', '-g', 'std.diff')
    width, height = 64, 48
    write_ppm(tmp_path / 'in.ppm', width, height)
    r, tp = run_both(['/usr/bin/cjpeg', '-quality', '80', 'in.ppm'], w, tmp_path, trace='c.csv')
    (tmp_path / 'out.jpg').write_bytes(r.stdout)
    rows = Trace(tp).by_seq()
    assert len(rows) == height
    # each call gets one new row through the row-pointer array: its bytes are input
    assert all(width * 3 <= int(x['in_bytes']) for x in rows)
    _, tp = run_both(['/usr/bin/djpeg', 'out.jpg'], w, tmp_path, trace='d.csv')
    rows = Trace(tp).by_seq()
    assert rows and sum(int(x['out_bytes']) for x in rows) >= width * 3 * height * 0.9


def test_defs_win_over_the_estimate(built):
    d, app, _ = built
    (d / 'fill.defs').write_text('libdd*::fill::postfix { output_size = 8 * (int64_t)n; work_size = n; }\n')
    w = wrap(d, '--lib', os.path.join(d, 'libdd.so'), '--header', os.path.join(d, 'dd.h'),
             '-g', 'std.diff:lengths=off', '--defs', str(d / 'fill.defs'), name='defs.so')
    r, tp = run_both([app, 'static', 'x'], w, d, trace='defs.csv')
    rows = Trace(tp).by_seq()
    fills = [x for x in rows if x['func'] == 'fill']
    # out: the user's n * 8 (not what changed: 0 for the second call); in: std.diff's
    assert [(int(x['in_bytes']), int(x['out_bytes']), int(x['work'])) for x in fills] == \
        [(12, 2400, 300), (12, 8, 1), (12, 8, 1)]
    body = open(os.path.join(d, 'defs.d', 'wrap.c')).read()
    body = body[body.index('DYL_EXPORT void (fill)'):]
    # the estimate's end comes before the user's code, which has the last word
    assert body.index('dyl_diff_after') < body.index('output_size != DYL_NONE')
