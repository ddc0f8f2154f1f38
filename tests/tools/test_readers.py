"""The readers in bounded memory (issue 38): dyl-trace summary and dyl-model stream a
trace, with medians from a sketch (speedup/lib/util/qsketch.h: exact up to 4096 calls of a
function, within 1 % + 0.5 ns past them) and self times walked in batches; dyl-trace
chrome --max-events N and -o FILE.gz.  Traces from bench/gen_trace.py (nested calls, 4
threads, rows in end order, as the runtime writes them) and from a real run of
tests/apps/tinyapp kept both as CSV and as spool (DYL_CONVERT=keep)."""
import csv
import gzip
import io
import json
import os
import statistics
import subprocess

import pytest

import dyltest
from dyltest import ROOT

BIN = os.path.join(ROOT, 'bin')
APPS = os.path.join(ROOT, 'tests', 'apps')
GEN = os.path.join(ROOT, 'bench', 'gen_trace.py')


@pytest.fixture(scope='module', autouse=True)
def built():
    dyltest.make('runtime', 'bin/dyl-trace', 'bin/dyl-model')


def tool(name, *args, rc=0):
    r = subprocess.run([os.path.join(BIN, name), *map(str, args)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == rc, (args, r.stderr[-2000:])
    return r


def gen(path, rows):
    subprocess.run([dyltest.DEBIAN_PY, GEN, '-n', str(rows), '-o', str(path)], check=True,
                   timeout=300)
    return str(path)


def peak_rss_kb(*argv):
    r = subprocess.run(['/usr/bin/time', '-f', '%M', *map(str, argv)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return int(r.stderr.strip().splitlines()[-1])


@pytest.fixture(scope='module')
def traces(tmp_path_factory):
    d = tmp_path_factory.mktemp('readers')
    return gen(d / 'small.csv', 200_000), gen(d / 'big.csv', 2_000_000)


@pytest.mark.parametrize('cmd', [['dyl-trace', 'summary'], ['dyl-model']])
def test_memory_bounded_by_functions_not_rows(traces, cmd):
    """10 x the rows, the same functions and threads: the peak RSS grows by under 8 MiB.
    A reader that holds its rows (24-32 bytes each, or the mapped file, 55 bytes a row)
    grows by more than 50 MiB here."""
    small, big = (peak_rss_kb(os.path.join(BIN, cmd[0]), *cmd[1:], t) for t in traces)
    assert big - small < 8 * 1024, (small, big)


def summary_csv(path, *opts):
    out = tool('dyl-trace', 'summary', '--csv', path, *opts).stdout
    return {r['func']: r for r in csv.DictReader(io.StringIO(out))}


def exact_stats(path):
    """Per function: the call times and the self times, computed here from the rows
    (each call's time taken off its innermost enclosing call on its thread)."""
    rows = []
    with open(path) as f:
        for r in csv.DictReader(line for line in f if not line.startswith('#')):
            s, t = int(r['t_start_ns']), int(r['t_ns'])
            rows.append((r['tid'], s, -int(r['depth']), s + t, r['func']))
    times, self_ns = {}, {}
    for tid, s, nd, e, func in rows:
        times.setdefault(func, []).append(e - s)
        self_ns[func] = self_ns.get(func, 0) + e - s
    stack, last_tid = [], None
    for tid, s, nd, e, func in sorted(rows, key=lambda r: (r[0], r[1], r[2], -r[3])):
        if tid != last_tid:
            stack, last_tid = [], tid
        while stack and not (stack[-1][0] <= s and e <= stack[-1][1] and -nd > stack[-1][3]):
            stack.pop()
        if stack:
            self_ns[stack[-1][2]] -= e - s
        stack.append((s, e, func, -nd))
    return times, self_ns


def test_medians_within_the_stated_error_and_self_times_exact(traces):
    """2 M rows: 1.25 M dgemm_ calls (past the 4096 kept exactly); the medians within 1 % +
    0.5 ns of the exact ones, the self times (walked in batches of 8192 calls) exact."""
    path = traces[1]
    got = summary_csv(path)
    times, self_ns = exact_stats(path)
    assert set(got) == set(times)
    for func, ts in times.items():
        exact = statistics.median(ts)
        med = float(got[func]['median_ns'])
        assert abs(med - exact) <= 0.01 * exact + 0.5, (func, med, exact)
        assert int(got[func]['self_ns']) == self_ns[func], func
        assert int(got[func]['calls']) == len(ts)
        assert int(got[func]['min_ns']) == min(ts) and int(got[func]['max_ns']) == max(ts)


def test_small_traces_exact(tmp_path):
    """Under 4096 calls a function's median is the exact one (what was printed before)."""
    path = gen(tmp_path / 't.csv', 8000)	# 1000 blocks: 1000 dgetrf_, 5000 dgemm_
    got = summary_csv(path)
    times, self_ns = exact_stats(path)
    for func in ('dgetrf_', 'daxpy_', 'ddot_'):
        assert float(got[func]['median_ns']) == statistics.median(times[func])
    for func, s in self_ns.items():
        assert int(got[func]['self_ns']) == s


@pytest.fixture(scope='module')
def kept_run(tmp_path_factory):
    """tinyapp's threads (3 x 30000 calls and its main thread's), kept as CSV and spool."""
    d = tmp_path_factory.mktemp('keep')
    lib = dyltest.build_c(str(d), os.path.join(APPS, 'libtiny.c'), 'libtiny.so', '-fPIC',
                          '-shared', '-Wl,-soname,libtiny.so')
    app = dyltest.build_c(str(d), os.path.join(APPS, 'tinyapp.c'), 'tinyapp', '-I' + APPS,
                          '-L' + str(d), '-ltiny', '-Wl,-rpath,' + str(d), '-lpthread')
    wrap = dyltest.wrap(str(d), '--lib', lib, '--header', os.path.join(APPS, 'tiny.h'))
    env = {k: v for k, v in os.environ.items() if not k.startswith('DYL_') and k != 'LD_PRELOAD'}
    env.update(LD_PRELOAD=wrap, DYL_TRACE=str(d / 't.csv'), DYL_CONVERT='keep')
    subprocess.run([app, 'threads', '3', '30000'], env=env, check=True, capture_output=True,
                   timeout=120)
    return str(d / 't.csv'), str(d / '.t.csv.dylspool')


@pytest.mark.parametrize('opts', [[], ['--csv'], ['--json']])
def test_spool_and_csv_summaries_equal(kept_run, opts):
    trace, spool = kept_run
    a = tool('dyl-trace', 'summary', trace, *opts).stdout
    b = tool('dyl-trace', 'summary', spool, *opts).stdout
    assert a.replace(trace, 'T') == b.replace(spool, 'T')
    assert '90000' in a	# the three threads' calls, past 4096 each


def chrome(path, *opts):
    tool('dyl-trace', 'chrome', *opts, '-o', path)
    return path


def test_max_events_keeps_the_n_longest(tmp_path):
    trace = gen(tmp_path / 't.csv', 16000)
    out = json.load(open(chrome(str(tmp_path / 'c.json'), trace, '--max-events', '777')))
    x = [e for e in out['traceEvents'] if e['ph'] == 'X']
    assert len(x) == 777
    every = json.load(open(chrome(str(tmp_path / 'all.json'), trace)))
    durs = sorted((e['dur'] for e in every['traceEvents'] if e['ph'] == 'X'), reverse=True)
    assert sorted((e['dur'] for e in x), reverse=True) == durs[:777]
    note = [e for e in out['traceEvents'] if e['ph'] == 'i']
    assert len(note) == 1 and f'{len(durs) - 777} shorter calls left out' in note[0]['name']
    assert out['otherData']['max_events'] == {'max': 777, 'kept': 777,
                                              'left_out': len(durs) - 777,
                                              'kept_are': 'the longest calls'}
    # in seq order, as without the limit
    seqs = [e['args']['seq'] for e in x]
    assert seqs == sorted(seqs)
    # more than there are: every call, no note event
    out = json.load(open(chrome(str(tmp_path / 'c2.json'), trace, '--max-events', '99999')))
    assert [e for e in out['traceEvents'] if e['ph'] == 'X'] == \
        [e for e in every['traceEvents'] if e['ph'] == 'X']
    assert not [e for e in out['traceEvents'] if e['ph'] == 'i']
    r = tool('dyl-trace', 'summary', trace, '--max-events', '3', rc=2)
    assert 'goes with chrome' in r.stderr
    r = tool('dyl-trace', 'chrome', trace, '--max-events', 'x', rc=2)
    assert "not 'x'" in r.stderr


def test_gz_output(tmp_path):
    trace = gen(tmp_path / 't.csv', 4000)
    plain = open(chrome(str(tmp_path / 'c.json'), trace, '--func', 'dgemm_'), 'rb').read()
    gz = open(chrome(str(tmp_path / 'c.json.gz'), trace, '--func', 'dgemm_'), 'rb').read()
    assert gz[:2] == b'\x1f\x8b' and len(gz) < len(plain) / 4
    assert gzip.decompress(gz) == plain
    json.loads(plain)


def test_identical_allows_only_medians_within_the_error():
    """tests/identical.py's allowance (tests/sketch_tolerance.py): a median column within
    1 % + 0.5 ns (the table: + one unit of its last digit), nothing else."""
    import sketch_tolerance as st
    head = 'function      calls      total   share       self   self%       mean        min     median        max\n'
    row = 'crc32         30000     382 ms   51.6%     382 ms   51.6%    12.7 us     170 ns    {} us    32.1 ms\n'

    def ok(cmd, a, b):
        return st.tolerable(cmd, (0, a.encode(), b'', b''), (0, b.encode(), b'', b''))
    summary = ['dyl-trace', 'summary', 't.csv']
    assert ok(summary, head + row.format('1.58'), head + row.format('1.59'))
    assert not ok(summary, head + row.format('1.58'), head + row.format('1.62'))
    assert not ok(summary, head + row.format('1.58'), head + row.format('1.58').replace('30000', '30001'))
    csvh = 'trace,pid,func,calls,total_ns,self_ns,mean_ns,min_ns,median_ns,max_ns,share,self_share\n'
    line = 't.csv,1,crc32,30000,382473498,382473498,12749.1,170,{},32066347,0.5,0.5\n'
    assert ok(summary + ['--csv'], csvh + line.format(1582), csvh + line.format(1588))
    assert not ok(summary + ['--csv'], csvh + line.format(1582), csvh + line.format(1600))
    assert not ok(summary + ['--csv'], csvh + line.format(1582),
                  csvh + line.format(1582).replace('170', '171'))
    js = '{{"funcs": [{{"calls": 3, "median_ns": {}, "mean_ns": 5}}]}}'
    assert ok(summary + ['--json'], js.format(1582), js.format(1588))
    assert not ok(summary + ['--json'], js.format(1582), js.format(1600))
    assert not ok(summary + ['--json'], js.format(1582), js.format(1582).replace('"calls": 3', '"calls": 4'))
    model = '# m\nfunc,work,t_ns,samples\ncrc32,256,{},811\n'
    assert ok(['dyl-model', 't.csv'], model.format(180), model.format(181))
    assert not ok(['dyl-model', 't.csv', '--stat', 'mean'], model.format(180), model.format(181))
    assert not ok(['dyl-trace', 'cat', 't.csv'], 'a', 'b')
    # a status or stderr that differs is a difference
    assert not st.tolerable(summary, (0, b'x', b'', b''), (2, b'x', b'', b''))
