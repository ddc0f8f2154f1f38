"""std.faults: the page faults each call took, on reference BLAS.  Calls writing into
fresh pages (mapped, never touched: one first-touch fault a page) show that many, calls
writing into touched pages none; each thread counts its own, a forked child its own
(after _Fork too, which runs no atfork handler), an exec'd image and calls from a signal
handler too; beside std.papi; where perf events are forbidden (a seccomp filter) the
column stays empty with one notice; an unprivileged user counts user-mode faults only."""
import glob
import os
import shutil
import subprocess
import tempfile

import pytest

from dyltest import EXAMPLES, REF_BLAS, ROOT, TIMEOUT, Trace, build_c, run_both, wrap

BLAS_H = os.path.join(EXAMPLES, 'blas.h')
LINK = [f'-I{EXAMPLES}', '-pthread', REF_BLAS, f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}']
SLACK = 3   # faults a call may take besides its output's pages (its stack, a COW page)

APP = r'''
/* Calls of reference BLAS writing into fresh pages (each one a first-touch fault in the
 * call) or into pages already touched (no fault), in the main thread, in threads, in a
 * forked child, after an exec, from a signal handler. */
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

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "pages";
	double s = 0;

	src = malloc(1024 * PAGE);
	for (int i = 0; i < 1024 * PER_PAGE; i++)
		src[i] = i % 97;
	if (!strcmp(mode, "pages")) {
		/* pages N...: N fresh pages, then the same pages again, for each N */
		pthread_t t;
		void *same;
		s += copy(fresh(1), 1);	/* the first call: the trace opens */
		pthread_create(&t, NULL, fd_check, NULL);
		pthread_join(t, &same);
		printf("a thread's first call left the first free fd free: %d\n", (int)(long)same);
		for (int i = 2; i < argc; i++) {
			int n = atoi(argv[i]);
			double *y = fresh(n);
			s += copy(y, n);
			s += copy(y, n);
		}
	}
	else if (!strcmp(mode, "dgemm")) {
		/* dgemm M: C = A B into a fresh C of M x M, then into the same C again */
		int m = atoi(argv[2]), cpages = (m * m * 8 + PAGE - 1) / PAGE;
		double one = 1, zero = 0;
		double *c = fresh(cpages);
		dgemm_("N", "N", &m, &m, &m, &one, src, &m, src, &m, &zero, c, &m, 1, 1);
		dgemm_("N", "N", &m, &m, &m, &one, src, &m, src, &m, &zero, c, &m, 1, 1);
		s = c[m * m - 1];
	}
	else if (!strcmp(mode, "threads")) {
		/* threads N...: one thread per N, each writing N fresh pages at once */
		int n = argc - 2;
		pthread_t t[16];
		pthread_barrier_init(&go, NULL, (unsigned)n);
		for (int i = 0; i < n; i++)
			pthread_create(&t[i], NULL, worker, (void *)(long)atoi(argv[2 + i]));
		for (int i = 0; i < n; i++) {
			void *r;
			pthread_join(t[i], &r);
			s += (long)r;
		}
	}
	else if (!strcmp(mode, "many")) {
		/* many N: N threads one after the other, a call each; then whether more than
		 * one perf event (the main thread's) is still mapped */
		s += copy(fresh(1), 1);
		for (int i = 0; i < atoi(argv[2]); i++) {
			pthread_t t;
			void *r;
			pthread_create(&t, NULL, one_call, (void *)1L);
			pthread_join(t, &r);
			s += (long)r;
		}
		char line[512];
		int events = 0;
		FILE *f = fopen("/proc/self/maps", "r");
		while (fgets(line, sizeof(line), f))
			events += strstr(line, "perf_event") != NULL;
		fclose(f);
		printf("rings left by threads that ended: %d\n", events > 1);
	}
	else if (!strcmp(mode, "fork")) {
		/* fork PARENT CHILD [_Fork]: the parent's call, the child's own in a thread of
		 * the child's and in the child, the parent's again after */
		int p = atoi(argv[2]), c = atoi(argv[3]);
		s += copy(fresh(p), p);
		fflush(stdout);
		pid_t pid = argc > 4 && !strcmp(argv[4], "_Fork") ? _Fork() : fork();
		if (pid == 0) {
			pthread_t t;
			void *r;
			pthread_create(&t, NULL, one_call, (void *)(long)c);
			pthread_join(t, &r);
			s += (long)r + copy(fresh(c), c);
			printf("child %g\n", s);
			exit(0);
		}
		int status = -1;
		waitpid(pid, &status, 0);
		printf("child's wait status: %d\n", status);
		s += copy(fresh(p), p);
	}
	else if (!strcmp(mode, "exec")) {
		/* exec N: a call into N fresh pages, then this program again, in pages mode */
		s += copy(fresh(atoi(argv[2])), atoi(argv[2]));
		printf("%g\n", s);
		fflush(stdout);
		execl("/proc/self/exe", argv[0], "pages", argv[2], (char *)NULL);
		perror("exec");
		return 1;
	}
	else if (!strcmp(mode, "signals")) {
		/* signals N: N calls, interrupted by calls from a SIGALRM handler */
		struct itimerval it = { { 0, 200 }, { 0, 200 } }, off = { { 0, 0 }, { 0, 0 } };
		tick_buf = fresh(1);
		copy(tick_buf, 1);
		double *y = fresh(1);
		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
		for (int i = 0; i < atoi(argv[2]); i++)
			s += copy(y, 1);
		setitimer(ITIMER_REAL, &off, NULL);
		printf("ticked: %d\n", ticks > 0);
	}
	printf("%g\n", s);
	return 0;
}
'''

# Runs a program where perf_event_open fails with EACCES, as in a container whose
# seccomp profile forbids perf events.
NOPERF = r'''
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (argc < 2 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		perror("noperf");
		return 127;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
'''

# read(2) from /dev/zero into fresh pages: the kernel takes the faults, in its copy
READ_APP = r'''
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	size_t n = 40 * 4096;
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open("/dev/zero", O_RDONLY);
	madvise(p, n, MADV_NOHUGEPAGE);
	printf("%zd\n", read(fd, p, n));
	return 0;
}
'''


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('faults')
    app = build_c(d, APP, 'app', *LINK)
    lib = ['--lib', REF_BLAS, '--header', BLAS_H, '-f', 'dcopy_', '-f', 'dgemm_']
    return d, app, wrap(d, *lib, '-g', 'std.faults'), lib


def faults(rows):
    return [int(r['faults']) for r in rows]


def run_app(built, tmp_path, *args, w=None):
    d, app, wrapper, _ = built
    _, path = run_both([app, *args], w or wrapper, tmp_path)
    return Trace(path)


def traces(tmp_path):
    """Every trace file the run left: {file name: Trace}"""
    return {os.path.basename(p): Trace(p) for p in glob.glob(str(tmp_path / 'trace.csv*'))}


def check_pages(t, sizes):
    """the trace of 'pages SIZES...': the main thread's calls by seq (the first into one
    fresh page, then each size's fresh pages and the same pages again), a thread's one"""
    main = [r for r in t.by_seq() if r['tid'] == str(t.meta['pid'])]
    other = [r for r in t.rows if r['tid'] != str(t.meta['pid'])]
    got = faults(main)
    assert 1 <= got[0] <= 1 + SLACK
    for i, n in enumerate(sizes):
        fresh, again = got[1 + 2 * i], got[2 + 2 * i]
        assert n <= fresh <= n + SLACK, (n, got)
        assert again == 0, (n, got)
    assert len(other) == 1 and 1 <= int(other[0]['faults']) <= 1 + SLACK


def test_fresh_pages_count_touched_pages_do_not(built, tmp_path):
    sizes = [1, 10, 100, 300]
    t = run_app(built, tmp_path, 'pages', *map(str, sizes))
    assert t.columns[-1] == 'faults'
    check_pages(t, sizes)
    assert t.meta['faults'] in ('user-mode and kernel faults',
                                'user-mode faults only (kernel.perf_event_paranoid=2)')
    # what one fault costs an untraced run, measured at start-up (here about 1.4 us): a
    # number of nanoseconds, not a time checked.  No fault takes under a tenth of a
    # microsecond; where transparent huge pages are always on, the runtime times one
    # 2 MiB fault alone, and the time slice another job takes from it is in it
    assert 100 <= int(t.meta['fault_ns']) < 1_000_000_000, t.meta


def test_dgemm_into_a_fresh_matrix(built, tmp_path):
    # 256 x 256 doubles: 128 pages (reference dgemm_ touches each twice: a read, then
    # the write that copies the zero page)
    t = run_app(built, tmp_path, 'dgemm', '256')
    first, again = faults(t.by_seq())
    assert first >= 128 and again < 16


def test_threads_count_their_own(built, tmp_path):
    sizes = [16, 64, 160, 400]
    t = run_app(built, tmp_path, 'threads', *map(str, sizes))
    by_tid = {}
    for r in t.by_seq():
        by_tid.setdefault(r['tid'], []).append(int(r['faults']))
    assert len(by_tid) == len(sizes)
    assert all(len(v) == 2 and 1 <= v[0] <= 1 + SLACK for v in by_tid.values())
    # the big calls ran together: a count of the process's faults would mix them
    got = sorted(v[1] for v in by_tid.values())
    for n, f in zip(sizes, got):
        assert n - 1 <= f <= n - 1 + SLACK, (sizes, got)


def test_threads_that_end_unmap_their_ring(built, tmp_path):
    t = run_app(built, tmp_path, 'many', '300')   # (run_both: the output says 0)
    assert len(t.rows) == 301 and all(1 <= f <= 1 + SLACK for f in faults(t.rows))


@pytest.mark.parametrize('how', ['fork', '_Fork'])
def test_forked_child_counts_its_own(built, tmp_path, how):
    d, app, wrapper, _ = built
    res, path = run_both([app, 'fork', '20', '50', how], wrapper, tmp_path)
    assert b"child's wait status: 0" in res.stdout
    if how == 'fork':
        tr = traces(tmp_path)
        parent = tr.pop('trace.csv')
        (child,) = tr.values()
        assert [20 <= f <= 20 + SLACK for f in faults(parent.by_seq())] == [True, True]
        assert [50 <= f <= 50 + SLACK for f in faults(child.rows)] == [True, True]
    else:
        # _Fork runs no atfork handler (the runtime's neither, so the child's rows may
        # land in its parent's file): the child must not read its parent's ring, which
        # is not mapped in it (a crash, or garbage where something else is mapped since)
        values = []
        for p in glob.glob(str(tmp_path / 'trace.csv*')):
            for line in open(p):
                f = line.rstrip('\n').split(',')
                if len(f) > 3 and f[2] == 'dcopy_':
                    values.append(int(f[-1]))
        # the child's thread opens its own ring first, then the forked thread its own
        want = [20, 20, 50, 50]
        assert [w <= v <= w + SLACK for v, w in zip(sorted(values), want)] == [True] * 4, values


def test_exec_image_counts(built, tmp_path):
    d, app, wrapper, _ = built
    run_both([app, 'exec', '7'], wrapper, tmp_path)
    tr = traces(tmp_path)
    first = tr.pop('trace.csv')
    (execd,) = tr.values()
    assert [7 <= f <= 7 + SLACK for f in faults(first.rows)] == [True]
    check_pages(execd, [7])


def test_calls_from_a_signal_handler(built, tmp_path):
    t = run_app(built, tmp_path, 'signals', '50000')
    got = faults(t.rows)
    assert len(got) > 50000 + 2     # the handler's calls are recorded too
    assert sum(got) <= 2 + SLACK    # two calls into a fresh page; the rest touched


def test_beside_papi(built, tmp_path):
    d, app, _, lib = built
    w = wrap(d, *lib, '-g', 'std.papi', '-g', 'std.faults', name='papi.so')
    sizes = [10, 100]
    cmd = [app, 'pages', *map(str, sizes)]
    env = dict(os.environ)
    env.pop('LD_PRELOAD', None)
    plain = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=TIMEOUT)
    path = str(tmp_path / 't.csv')
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT,
                       env=dict(env, LD_PRELOAD=w, DYL_TRACE=path))
    assert plain.returncode == r.returncode == 0 and plain.stdout == r.stdout
    # std.papi's notice where there are no counters (this VM), nothing else
    assert all(line.startswith('dyliberator: ') and 'PAPI' in line
               for line in r.stderr.splitlines())
    t = Trace(path)
    assert t.columns[-3:] == ['PAPI_TOT_INS', 'PAPI_TOT_CYC', 'faults']
    # the first call's count holds none of PAPI's own set-up
    check_pages(t, sizes)
    filled = {r['PAPI_TOT_INS'] != '' for r in t.rows}
    assert len(filled) == 1     # all rows have counters, or none (no counters here)


def test_forbidden_perf_leaves_the_column_empty(built, tmp_path):
    d, app, wrapper, _ = built
    noperf = build_c(d, NOPERF, 'noperf')
    env = dict(os.environ)
    env.pop('LD_PRELOAD', None)
    plain = subprocess.run([noperf, app, 'threads', '3', '5'], capture_output=True, text=True,
                           env=env, timeout=TIMEOUT)
    path = str(tmp_path / 't.csv')
    r = subprocess.run([noperf, app, 'threads', '3', '5'], capture_output=True, text=True,
                       env=dict(env, LD_PRELOAD=wrapper, DYL_TRACE=path), timeout=TIMEOUT)
    assert plain.returncode == r.returncode == 0 and plain.stdout == r.stdout
    assert r.stderr == ('dyliberator: page faults cannot be counted here (perf_event_open: '
                        'Permission denied; kernel.perf_event_paranoid='
                        + open('/proc/sys/kernel/perf_event_paranoid').read().strip()
                        + '): the faults column stays empty\n')
    t = Trace(path)
    assert len(t.rows) == 4 and all(x['faults'] == '' for x in t.rows)
    assert t.meta['faults'].startswith('not counted (perf_event_open: Permission denied')


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which('setpriv'),
                    reason='needs root and setpriv to run as an unprivileged user')
def test_unprivileged_user_counts_user_mode_faults(built, tmp_path):
    """As root, the faults the kernel takes in read(2)'s copy into fresh pages count; an
    unprivileged user under perf_event_paranoid 2 falls back to user-mode faults."""
    d, app, wrapper, _ = built
    rd = build_c(d, READ_APP, 'rd')
    rw = wrap(d, '--lib', 'libc.so.6', '--header', '/usr/include/unistd.h', '-f', 'read',
              '-g', 'std.faults', name='read.so')
    root = Trace(run_both([rd], rw, tmp_path, trace='root.csv')[1])
    assert root.meta['faults'] == 'user-mode and kernel faults'
    assert 40 <= faults(root.rows)[0] <= 40 + SLACK
    # a directory the user can reach: the programs, the wrappers, the runtime and the
    # traces.  The wrappers find libdylrt.so by their runpath, the clone's build/, which
    # the user may not reach (a clone under /root, 0700): LD_LIBRARY_PATH, searched
    # first, names the copy
    shared = tempfile.mkdtemp(prefix='dyl-faults-')
    try:
        os.chmod(shared, 0o777)
        for f in (app, wrapper, rd, rw, os.path.join(ROOT, 'build', 'libdylrt.so')):
            shutil.copy(f, shared)
        nobody = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups']
        env = dict(os.environ)
        env.pop('LD_PRELOAD', None)

        def as_nobody(prog, wrapper, *args):
            cmd = [os.path.join(shared, os.path.basename(prog)), *args]
            path = os.path.join(shared, os.path.basename(prog) + '.csv')
            plain = subprocess.run(nobody + cmd, capture_output=True, env=env, timeout=TIMEOUT)
            # (preloaded past setpriv: the wrapped read would be setpriv's too, as root)
            pre = os.path.join(shared, os.path.basename(wrapper))
            r = subprocess.run(nobody + ['env', f'DYL_TRACE={path}', f'LD_LIBRARY_PATH={shared}',
                                         f'LD_PRELOAD={pre}'] + cmd,
                               capture_output=True, env=env, timeout=TIMEOUT)
            assert plain.returncode == r.returncode == 0
            assert (plain.stdout, plain.stderr) == (r.stdout, r.stderr)
            return Trace(path)

        paranoid = open('/proc/sys/kernel/perf_event_paranoid').read().strip()
        t = as_nobody(rd, rw)
        if int(paranoid) < 2:
            pytest.skip(f'perf_event_paranoid={paranoid}: users get kernel events too')
        assert t.meta['faults'] == f'user-mode faults only (kernel.perf_event_paranoid={paranoid})'
        assert faults(t.rows) == [0]    # the kernel's faults
        check_pages(as_nobody(app, wrapper, 'pages', '30'), [30])     # the program's own
    finally:
        shutil.rmtree(shared)
