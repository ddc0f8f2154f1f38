"""dyl-speedup --chrome FILE: the predicted timeline beside the measured one, as Chrome
trace-event JSON (speedup/dyl-speedup/chrome.c, chrome_link.c; doc/threads.md).

A run of tests/tools/chrome_app.c: main ("chrome-main") sleeps 1 ms in libtiny's
tiny_sleep_us twice, around two threads ("worker-1", "worker 2") that sleep 2 ms three
times each, one after the other.  The work size is the argument in microseconds
(tests/runtime/threads/waitapp.defs); the model says 250 ns per unit, so each call's
predicted time is exactly 250 * work.  Then hand-made traces with a flow
(tests/tools/flowfile.py, as test_residency.py's loop) for the link track, whose
transfers are worked out there, and two threads calling at once for the device queue."""
import json
import os
import subprocess
import sys
from collections import Counter, defaultdict

import pytest

import dyltest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flowfile as ff  # noqa: E402

ROOT = dyltest.ROOT
SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')
TRACE_TOOL = os.path.join(ROOT, 'bin', 'dyl-trace')
APPS = os.path.join(ROOT, 'tests', 'apps')
HERE = os.path.dirname(os.path.abspath(__file__))
PREDICTED, DEVICE, LINK = 1000000000, 2000000000, 2100000000
LINK_MODEL = 'func,work,t_ns\n@h2d,0,1000\n@h2d,1000000,1001000\n@d2h,0,2000\n@d2h,1000000,2002000\n'


def speedup(*args, check=True):
    r = subprocess.run([SPEEDUP, *map(str, args)], capture_output=True, text=True, timeout=120)
    if check:
        assert r.returncode == 0, r.stderr
    return r


class Chrome:
    """A --chrome file: .events, .names {tid: track name}, .sort {tid: index}, .x
    {tid: [complete events]}; every complete event checked for its fields."""

    def __init__(self, path):
        with open(path) as f:
            doc = json.load(f)
        self.events = doc['traceEvents']
        meta = [e for e in self.events if e['ph'] == 'M']
        self.names = {e['tid']: e['args']['name'] for e in meta if e['name'] == 'thread_name'}
        self.sort = {e['tid']: e['args']['sort_index'] for e in meta
                     if e['name'] == 'thread_sort_index'}
        self.x = defaultdict(list)
        for e in self.events:
            assert e['ph'] in ('M', 'X'), e
            if e['ph'] == 'X':
                assert {'ts', 'dur', 'pid', 'tid', 'name', 'args'} <= set(e), e
                assert e['dur'] >= 0, e
                self.x[e['tid']].append(e)

    def calls(self, tid):
        return [e for e in self.x[tid] if e['cat'] == 'call']

    def end(self, tid):
        return max(e['ts'] + e['dur'] for e in self.x[tid])


@pytest.fixture(scope='module')
def run(tmp_path_factory):
    """chrome_app under a wrapper of libtiny: its trace, the model, the prediction, the
    --chrome file."""
    dyltest.make('runtime')
    dyltest.run(['make', '-s', '-C', ROOT, 'bin/dyl-speedup', 'bin/dyl-trace'])
    d = tmp_path_factory.mktemp('chrome')
    lib = dyltest.build_c(d, os.path.join(APPS, 'libtiny.c'), 'libtiny.so', '-fPIC',
                          '-shared', '-Wl,-soname,libtiny.so')
    app = dyltest.build_c(d, os.path.join(HERE, 'chrome_app.c'), 'chrome_app', '-I' + APPS,
                          '-L' + str(d), '-ltiny', '-Wl,-rpath,' + str(d), '-lpthread')
    wrap = dyltest.wrap(d, '--lib', lib, '--header', os.path.join(APPS, 'tiny.h'),
                        '--defs', os.path.join(ROOT, 'tests', 'runtime', 'threads',
                                               'waitapp.defs'), '-f', 'tiny_sleep_us')
    env = {k: v for k, v in os.environ.items() if not k.startswith('DYL_')}
    env.update(LD_PRELOAD=wrap, DYL_TRACE=str(d / 'trace.csv'))
    assert dyltest.run([app], env=env).stdout == 'done\n'
    model = d / 'model.csv'
    model.write_text('func,work,t_ns\ntiny_sleep_us,0,0\ntiny_sleep_us,1000,250000\n')
    out = d / 'run.json'
    pred = json.loads(speedup('--json', d / 'trace.csv', model, '--chrome', out).stdout)
    return d, pred, Chrome(out)


def rows(path):
    """The trace's rows: (tid, work) each."""
    with open(path) as f:
        return [(int(r.split(',')[1]), int(r.split(',')[7])) for r in f if r[0].isdigit()]


def test_thread_names_in_the_trace(run):
    d, _, _ = run
    with open(d / 'trace.csv') as f:
        names = [ln.split(' ', 3)[3] for ln in f.read().splitlines()
                 if ln.startswith('# thread_name ')]
    assert sorted(names) == ['name=chrome-main', 'name=worker-1', 'name=worker\\x202']


def test_tracks_hold_the_calls(run):
    d, pred, ch = run
    per_tid = Counter(tid for tid, _ in rows(d / 'trace.csv'))
    assert sorted(per_tid.values()) == [2, 3, 3]
    for tid, n in per_tid.items():
        assert len(ch.calls(tid)) == n
        assert len(ch.calls(PREDICTED + tid)) == n
        # measured and predicted side by side
        assert ch.sort[PREDICTED + tid] == ch.sort[tid] + 1
    # each call on the device, at the model's time; one device (the default)
    kernels = ch.x[DEVICE]
    assert len(kernels) == 8 and ch.names[DEVICE] == 'device 0' and DEVICE + 1 not in ch.x
    work = sorted(w for _, w in rows(d / 'trace.csv'))
    assert sorted(round(k['dur'] * 1000) for k in kernels) == [250 * w for w in work]
    for tid in per_tid:
        for e in ch.calls(PREDICTED + tid):
            assert e['args']['t_predicted_ns'] == 250 * e['args']['work']
            assert e['args']['replaced'] is True
    assert not [t for t in ch.x if LINK <= t]   # no link rows, no link track


def test_predicted_span_is_t_prime(run):
    _, pred, ch = run
    tracks = [t for t in ch.x if PREDICTED <= t < DEVICE]
    start = min(e['ts'] for t in tracks for e in ch.x[t])
    end = max(ch.end(t) for t in tracks)
    assert start == 0
    assert abs((end - start) * 1000 - pred['predicted_total_ns']) <= 1000
    measured = [t for t in ch.x if t < PREDICTED]
    assert abs(max(ch.end(t) for t in measured) * 1000 - pred['total_ns']) <= 1000


def test_track_names(run):
    d, _, ch = run
    pid = ch.x[DEVICE][0]['pid']
    named = {n for n in ch.names.values()}
    assert f'measured: thread {pid} (chrome-main)' in named
    assert f'predicted: thread {pid} (chrome-main)' in named
    workers = sorted(n.split(' (')[1] for n in named if n.startswith('predicted:'))
    assert workers == ['chrome-main)', 'worker 2)', 'worker-1)']
    # dyl-trace chrome names the threads too
    out = dyltest.run([TRACE_TOOL, 'chrome', str(d / 'trace.csv')]).stdout
    tnames = sorted(e['args']['name'] for e in json.loads(out)['traceEvents']
                    if e['name'] == 'thread_name')
    assert tnames == ['chrome-main', 'worker 2', 'worker-1']


def write_trace(path, lines, total):
    path.write_text('\n'.join(['# dyliberator trace 1', '# pid=100',
                               'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args',
                               *lines, f'# total_ns={total}']) + '\n')
    return path


# test_residency.py's loop: gemv reads A (800 B) and x (80 B), writes y (80 B), three
# times; between calls the program reads y and writes x; after the last it reads y.
# Exact: A and x in before the first (1800 + 1080 ns), the program's read of y brings it
# back before each next call (2160 ns) then x goes in (1080 ns), and after the last y
# comes back at the end: T' = 18820 ns.
def loop_files(tmp_path):
    recs = [ff.obj(0, ff.HEAP, 800), ff.obj(1, ff.HEAP, 80), ff.obj(2, ff.HEAP, 80)]
    for s in range(3):
        if s:
            recs += [ff._rec(7, ff.struct.pack('<QQQQQ', s, 2, 0, 80, 0)),
                     ff.host_write(s, 1, 0, 80)]
        recs += [ff.access(s, 0, 0, 800, False), ff.access(s, 1, 0, 80, False),
                 ff.access(s, 2, 0, 80, True)]
    recs.append(ff._rec(7, ff.struct.pack('<QQQQQ', 3, 2, 0, 80, 0)))
    t = write_trace(tmp_path / 't.csv', [f'{s},100,gemv,{1000 + 2000 * s},1000,,,100,0,'
                                         for s in range(3)] + ['# threads=recorded'], 10000)
    (tmp_path / 't.csv.flow').write_bytes(ff.flow_file(recs, nseq=3, flags=1 | 8))
    (tmp_path / 'k.csv').write_text('func,work,t_ns\ngemv,0,100\ngemv,1000000,100\n')
    (tmp_path / 'link.csv').write_text(LINK_MODEL)
    return [t, tmp_path / 'k.csv', tmp_path / 'link.csv']


def test_link_track_holds_the_transfers(tmp_path):
    files = loop_files(tmp_path)
    for mode in ('exact', 'optimistic', 'pessimistic'):
        out = tmp_path / f'{mode}.json'
        pred = json.loads(speedup('--json', *files, '--residency', mode, '--chrome', out).stdout)
        ch = Chrome(out)
        link = ch.x[LINK]
        assert ch.names[LINK] == 'link h2d/d2h' and LINK + 1 not in ch.x
        for way in ('h2d', 'd2h'):
            mine = [e for e in link if e['name'] == way]
            assert len(mine) == pred[f'{way}_transfers']
            assert sum(e['args']['bytes'] for e in mine) == pred[f'{way}_bytes']
        assert len(ch.x[DEVICE]) == 3 and len(ch.calls(PREDICTED + 100)) == 3
        assert abs(ch.end(PREDICTED + 100) * 1000 - pred['predicted_total_ns']) <= 1
    # exact, by hand: the first call's transfers, its kernel, the last d2h after it all
    ch = Chrome(tmp_path / 'exact.json')
    got = sorted((e['name'], e['ts'], e['dur']) for e in ch.x[LINK])
    assert got == [('d2h', 4.98, 2.16), ('d2h', 9.32, 2.16), ('d2h', 16.66, 2.16),
                   ('h2d', 1.0, 1.8), ('h2d', 2.8, 1.08), ('h2d', 7.14, 1.08),
                   ('h2d', 11.48, 1.08)]
    assert [(e['ts'], e['dur']) for e in sorted(ch.x[DEVICE], key=lambda e: e['ts'])] == \
        [(3.88, 0.1), (8.22, 0.1), (12.56, 0.1)]


# Two threads call gemv at 1000 ns at once (t 1000, f 100): with one device the second
# waits for the first (100 ns); unlimited, each has a device track of its own.
def test_device_queue(tmp_path):
    t = write_trace(tmp_path / 'two.csv', [
        '0,101,gemv,1000,1000,,,100,0,', '1,102,gemv,1000,1000,,,100,0,',
        '# threads=recorded',
        '# thread tid=101 parent=100 create_ns=100 start_ns=200 end_ns=3000',
        '# thread tid=102 parent=100 create_ns=100 start_ns=200 end_ns=3000',
        '# join tid=100 target=101 call_ns=500 ret_ns=3000',
        '# join tid=100 target=102 call_ns=3000 ret_ns=3000'], 4000)
    k = tmp_path / 'k.csv'
    k.write_text('func,work,t_ns\ngemv,0,100\ngemv,1000000,100\n')
    out = tmp_path / 'one.json'
    speedup(t, k, '--chrome', out)
    ch = Chrome(out)
    assert len(ch.x[DEVICE]) == 2 and DEVICE + 1 not in ch.x
    assert sorted((e['ts'], e['dur'], e['args']['wait_ns']) for e in ch.x[DEVICE]) == \
        [(1.0, 0.1, 0), (1.1, 0.1, 100)]
    # the waiting thread's call: from its arrival, through the wait, to its end
    assert sorted(e['dur'] for tid in (101, 102) for e in ch.calls(PREDICTED + tid)) == \
        [0.1, 0.2]
    speedup(t, k, '--devices', 'unlimited', '--chrome', out)
    ch = Chrome(out)
    assert [len(ch.x[DEVICE]), len(ch.x[DEVICE + 1])] == [1, 1]
    assert ch.names[DEVICE + 1] == 'device 1'


def test_errors(tmp_path):
    files = loop_files(tmp_path)
    r = speedup(*files, '--chrome', check=False)
    assert r.returncode == 2 and r.stderr.count('\n') == 1 and '--chrome' in r.stderr
    # never over an input
    r = speedup(*files, '--chrome', files[0], check=False)
    assert r.returncode == 2 and r.stderr.count('\n') == 1
    with open(files[0]) as f:
        assert f.read().startswith('# dyliberator trace 1')
    with open(files[0]) as f:
        r = subprocess.run([SPEEDUP, '-', str(files[1]), '--chrome', str(tmp_path / 'x.json')],
                           stdin=f, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and 'standard input' in r.stderr
    assert not (tmp_path / 'x.json').exists()
