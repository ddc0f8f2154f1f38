"""Thread events in the trace: the '# thread', '# join' lines after the rows
(doc/trace-format.md, "Threads"), recorded by the interposers every wrapper compiles in
(runtime/include/dyl_threads.h, runtime/threads/threads.c).

The program (tests/runtime/threads/threadapp.c) calls libtiny from threads in several
shapes; it runs plain and wrapped, its output and exit status the same, and the trace's
thread lines must agree with its rows and with each other."""
import os
import re
import subprocess

import pytest

import dyltest
from dyltest import Trace, run_both

HERE = os.path.dirname(os.path.abspath(__file__))
APPS = os.path.join(HERE, '..', 'apps')


class Built:
    """The library, the program and the wrappers (paths)."""


@pytest.fixture(scope='module')
def app(tmp_path_factory):
    dyltest.run(['make', '-s', '-C', dyltest.ROOT, 'runtime'])
    d = str(tmp_path_factory.mktemp('threads'))
    b = Built()
    b.lib = dyltest.build_c(d, os.path.join(APPS, 'libtiny.c'), 'libtiny.so', '-fPIC',
                            '-shared', '-Wl,-soname,libtiny.so')
    b.app = dyltest.build_c(d, os.path.join(HERE, 'threads', 'threadapp.c'), 'threadapp',
                            '-I' + APPS, '-L' + d, '-ltiny', '-Wl,-rpath,' + d, '-lpthread')
    b.cancel = dyltest.build_c(d, os.path.join(HERE, 'threads', 'cancelapp.c'), 'cancelapp',
                               '-I' + APPS, '-L' + d, '-ltiny', '-Wl,-rpath,' + d,
                               '-lpthread')
    b.omp = None
    try:
        b.omp = dyltest.build_c(d, os.path.join(HERE, 'threads', 'ompapp.c'), 'ompapp',
                                '-fopenmp', '-I' + APPS, '-L' + d, '-ltiny',
                                '-Wl,-rpath,' + d)
    except subprocess.CalledProcessError:
        pass                            # no OpenMP here: its test is skipped
    b.wrap = dyltest.wrap(d, '--lib', b.lib, '--header', os.path.join(APPS, 'tiny.h'))
    b.wrap2 = dyltest.wrap(d, '--lib', b.lib, '--header', os.path.join(APPS, 'tiny.h'),
                           name='wrap2.so')
    return b


LINE = re.compile(r'# (thread|join|parallel) (.*)')


class Events:
    """A trace's rows and thread lines: .threads {tid: fields}, .joins [fields], .order
    (each line's first time, in file order), .recorded, .after_rows."""

    def __init__(self, path):
        self.tr = Trace(path)
        self.threads, self.joins, self.parallel, self.order = {}, [], [], []
        self.recorded = self.after_rows = False
        seen_rows = False
        with open(path) as f:
            for line in f:
                if not line.startswith('#'):
                    seen_rows = True
                    continue
                if line.strip() == '# threads=recorded':
                    self.recorded = True
                    self.after_rows = seen_rows
                m = LINE.match(line.strip())
                if not m:
                    continue
                assert seen_rows, f'{line!r} before the rows'
                fields = dict(kv.split('=', 1) for kv in m.group(2).split())
                v = {k: (int(x) if x else None) for k, x in fields.items()}
                if m.group(1) == 'thread':
                    assert v['tid'] not in self.threads, f'{line!r}: a tid twice'
                    self.threads[v['tid']] = v
                    self.order.append(v['create_ns'])
                elif m.group(1) == 'join':
                    self.joins.append(v)
                    self.order.append(v['call_ns'])
                else:
                    self.parallel.append(v)
                    self.order.append(v['call_ns'])
        self.pid = int(self.tr.meta['pid'])

    def check(self, ended=True):
        """What holds for every trace: lines after the rows, in time order; times in
        order within each line; every row's thread known; joins after their thread's
        end."""
        assert self.recorded and self.after_rows
        assert self.order == sorted(self.order)
        total = int(self.tr.meta['total_ns']) if 'total_ns' in self.tr.meta else None
        for t in self.threads.values():
            assert t['tid'] != self.pid
            assert t['parent'] == self.pid or t['parent'] in self.threads
            assert t['create_ns'] <= t['start_ns']
            if ended:
                assert t['end_ns'] is not None, t
            if t['end_ns'] is not None:
                assert t['start_ns'] <= t['end_ns']
                assert total is None or t['end_ns'] <= total
        for r in self.tr.rows:
            tid = int(r['tid'])
            assert tid == self.pid or tid in self.threads, r
            if tid != self.pid:
                t = self.threads[tid]
                start = int(r['t_start_ns'])
                assert t['start_ns'] <= start
                if t['end_ns'] is not None:
                    assert start + int(r['t_ns']) <= t['end_ns']
        for j in self.joins:
            t = self.threads[j['target']]
            assert j['tid'] == self.pid or j['tid'] in self.threads
            assert j['call_ns'] <= j['ret_ns']
            assert t['end_ns'] is not None and j['ret_ns'] >= t['end_ns'], (j, t)

    def row_tids(self):
        return {int(r['tid']) for r in self.tr.rows}


def test_shapes(app, tmp_path):
    """Join then call, call then join, a thread with no wrapped call joined with
    pthread_tryjoin_np, a nested thread joined with pthread_timedjoin_np, a failed join:
    one line per thread, one per successful join."""
    r, path = run_both([app.app, 'shapes'], app.wrap, tmp_path)
    assert b'd joined 0 returned 10004' in r.stdout and b'main tls 7' in r.stdout
    ev = Events(path)
    ev.check()
    assert len(ev.threads) == 5
    assert len(ev.joins) == 5          # the failed self join is not one
    quiet = [t for t in ev.threads.values() if t['tid'] not in ev.row_tids()]
    # the threads that made no wrapped call (quiet, and nester: it only makes a thread)
    # have their lines
    assert len(quiet) == 2
    nested = [t for t in ev.threads.values() if t['parent'] != ev.pid]
    assert len(nested) == 1
    assert any(j['tid'] == nested[0]['parent'] and j['target'] == nested[0]['tid']
               for j in ev.joins)


def test_no_thread(app, tmp_path):
    """A program that makes no thread: the trace says thread events were recorded, and
    there are none."""
    r, path = run_both([app.app, 'none'], app.wrap, tmp_path)
    ev = Events(path)
    ev.check()
    assert not ev.threads and not ev.joins and not ev.parallel


def test_off_records_nothing(app, tmp_path):
    """DYL_OFF: forward only; the program's output is the same, no trace."""
    r, path = run_both([app.app, 'shapes'], app.wrap, tmp_path, env={'DYL_OFF': '1'})
    assert not os.path.exists(path)


def test_openmp_regions(app, tmp_path):
    """gcc -fopenmp: each parallel region is a line; the team's threads (libgomp makes
    them with pthread_create) have theirs, still running at exit."""
    if not app.omp:
        pytest.skip('gcc -fopenmp cannot build here')
    r, path = run_both([app.omp], app.wrap, tmp_path)
    assert r.stdout == b'sums 1 3 5 7\n'
    ev = Events(path)
    ev.check(ended=False)
    assert len(ev.parallel) == 2 and all(p['tid'] == ev.pid for p in ev.parallel)
    assert len(ev.threads) == 3 and all(t['parent'] == ev.pid for t in ev.threads.values())
    first, second = ev.parallel
    assert first['ret_ns'] <= second['call_ns']
    # every call a team thread made is inside a region
    for row in ev.tr.rows:
        if int(row['tid']) != ev.pid:
            s, e = int(row['t_start_ns']), int(row['t_start_ns']) + int(row['t_ns'])
            assert any(p['call_ns'] <= s and e <= p['ret_ns'] for p in ev.parallel), row


def test_detached(app, tmp_path):
    r, path = run_both([app.app, 'detached'], app.wrap, tmp_path)
    ev = Events(path)
    ev.check(ended=False)   # (nothing waits for its end: it may come after the exit)
    assert len(ev.threads) == 1 and not ev.joins
    assert ev.row_tids() - {ev.pid} == set(ev.threads)


def test_pthread_exit_and_cancel(app, tmp_path):
    """A thread that calls pthread_exit and one that is cancelled end too; the value
    pthread_exit gives and PTHREAD_CANCELED reach the joiner unchanged."""
    r, path = run_both([app.app, 'exit'], app.wrap, tmp_path)
    assert r.stdout == b'exit value 42\ncancelled yes\n'
    ev = Events(path)
    ev.check()
    assert len(ev.threads) == 2 and len(ev.joins) == 2


def test_cancelled_while_writing(app, tmp_path):
    """Threads cancelled in the middle of their calls, many times: some cancels land
    while the runtime writes the thread's records under its trace lock (a cancellation
    point).  The process must not hang, and every thread ends with a line."""
    r, path = run_both([app.cancel, '60'], app.wrap, tmp_path)
    assert r.stdout == b'cancelled 60 of 60\n'
    ev = Events(path)
    ev.check()
    assert len(ev.threads) == 60


def test_thread_outlives_mains_calls(app, tmp_path):
    r, path = run_both([app.app, 'outlive'], app.wrap, tmp_path)
    ev = Events(path)
    ev.check()
    (t,) = ev.threads.values()
    main_end = max(int(x['t_start_ns']) + int(x['t_ns']) for x in ev.tr.rows
                   if int(x['tid']) == ev.pid)
    assert t['end_ns'] > main_end
    (j,) = ev.joins
    assert j['call_ns'] < t['end_ns'] <= j['ret_ns']


def test_fork_in_a_thread(app, tmp_path):
    """A thread forks: the child's trace has its own thread, created by the child's main
    thread (the one that forked), and none of the parent's."""
    r, path = run_both([app.app, 'fork'], app.wrap, tmp_path)
    parent = Events(path)
    parent.check()
    assert len(parent.threads) == 1 and len(parent.joins) == 1
    (child_path,) = [os.path.join(str(tmp_path), f) for f in os.listdir(str(tmp_path))
                     if f.startswith('trace.csv.')]
    child = Events(child_path)
    child.check()
    assert len(child.threads) == 1 and len(child.joins) == 1
    (t,) = child.threads.values()
    assert t['parent'] == child.pid
    assert not set(child.threads) & set(parent.threads)


def test_two_wrappers_record_once(app, tmp_path):
    """With two wrappers preloaded, the first one's interposers record; the second's
    are passed by."""
    r, path = run_both([app.app, 'shapes'], app.wrap + ':' + app.wrap2, tmp_path)
    ev = Events(path)
    ev.check()
    assert len(ev.threads) == 5 and len(ev.joins) == 5


def test_killed_run_keeps_its_events(app, tmp_path):
    """SIGKILL: the events recorded so far are in the spool; dyl-trace writes them after
    the recovered rows, a running thread's end empty."""
    path = str(tmp_path / 'trace.csv')
    base = {k: v for k, v in os.environ.items() if k not in ('LD_PRELOAD', 'DYL_TRACE')}
    p = subprocess.Popen([app.app, 'kill'], env=dict(base, LD_PRELOAD=app.wrap, DYL_TRACE=path),
                         cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        line = p.stdout.readline()
    finally:
        p.kill()
        p.communicate(timeout=20)
    assert line == b'ready\n' and p.returncode == -9
    r = subprocess.run([os.path.join(dyltest.ROOT, 'bin', 'dyl-trace'), path],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    ev = Events(dyltest.write_text(str(tmp_path / 'recovered.csv'), r.stdout))
    ev.check(ended=False)
    assert len(ev.threads) == 3 and len(ev.joins) == 2
    running = [t for t in ev.threads.values() if t['end_ns'] is None]
    assert len(running) == 1 and running[0]['tid'] in ev.row_tids()


def test_threads_one_after_another_reuse_nothing_stale(app, tmp_path):
    """Threads that start after others ended take their spool window and their state
    (runtime.c keeps both): each one's rows are its own, at their own depth, numbered
    once, also after a thread that left from inside a wrapped call (depth 1 at its end)."""
    d = str(tmp_path)
    exe = dyltest.build_c(d, os.path.join(HERE, 'threads', 'oneafter.c'), 'oneafter',
                          '-I' + APPS, '-L' + os.path.dirname(app.lib), '-ltiny',
                          '-Wl,-rpath,' + os.path.dirname(app.lib), '-lpthread')
    nt, calls = 8, 20000    # more than a window (16K records) in each thread
    _, path = run_both([exe, str(nt), str(calls)], app.wrap, tmp_path)
    tr = Trace(path)
    seqs = sorted(int(r['seq']) for r in tr.rows)
    assert seqs == list(range(len(seqs)))
    by_tid = {}
    for r in tr.rows:
        by_tid.setdefault(r['tid'], []).append(r)
    assert len(by_tid) == nt
    for rows in by_tid.values():
        depth = {(r['func'], r['depth']) for r in rows}
        assert depth <= {('tiny_add', '0'), ('tiny_outer', '0'), ('tiny_inner', '1')}, depth
        assert sum(r['func'] == 'tiny_add' for r in rows) == calls
        assert sum(r['func'] == 'tiny_inner' for r in rows) == 1
