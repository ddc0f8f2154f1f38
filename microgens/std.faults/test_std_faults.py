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

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'apps')
APP = os.path.join(C_FILES, 'app.c')

# Runs a program where perf_event_open fails with EACCES, as in a container whose
# seccomp profile forbids perf events.
NOPERF = os.path.join(C_FILES, 'noperf.c')

# pread(2) from /dev/zero into fresh pages: the kernel takes the faults, in its copy
READ_APP = os.path.join(C_FILES, 'read_zero.c')


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
    """As root, the faults the kernel takes in pread(2)'s copy into fresh pages count; an
    unprivileged user under perf_event_paranoid 2 falls back to user-mode faults."""
    d, app, wrapper, _ = built
    rd = build_c(d, READ_APP, 'rd')
    rw = wrap(d, '--lib', 'libc.so.6', '--header', '/usr/include/unistd.h', '-f', 'pread',
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
