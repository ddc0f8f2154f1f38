"""--func and --time-range (speedup/lib/trace/filter.c) on dyl-trace summary, chrome and
diff, and on dyl-flow: on a hand-made trace whose kept calls are counted here, from its
rows, for each filter."""
import csv
import fnmatch
import io
import json
import os
import subprocess
import sys

import pytest

from dyltest import ROOT, make

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flowfile import HEAP, access, flow_file, obj, site, trace_csv  # noqa: E402

DYL_TRACE = os.path.join(ROOT, 'bin', 'dyl-trace')
DYL_FLOW = os.path.join(ROOT, 'bin', 'dyl-flow')
HEADER = 'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args'
FUNCS = ['dgemm_', 'dgemv_', 'ddot_', 'daxpy_', 'lsame_']


@pytest.fixture(scope='module', autouse=True)
def built():
    make('bin/dyl-trace', 'bin/dyl-flow')


def run(tool, *args, rc=0):
    r = subprocess.run([tool, *map(str, args)], capture_output=True, text=True, timeout=60)
    assert r.returncode == rc, r.stderr
    return r


# 60 calls, one every 0.5 ms, of the five functions in turn; call i lasts 1000 + i ns and
# moves i bytes in, 2 i out, with work 10 i.
CALLS = [(i, FUNCS[i % 5], i * 500_000, 1000 + i) for i in range(60)]


@pytest.fixture
def trace(tmp_path):
    rows = [f'{s},7,{f},{t0},{t},{s},{2 * s},{10 * s},0,' for s, f, t0, t in CALLS]
    path = tmp_path / 't.csv'
    path.write_text('\n'.join(['# pid=7', '# cmdline=./app', HEADER, *rows,
                               '# total_ns=40000000']) + '\n')
    return str(path)


def kept(pats=(), lo=0, hi=float('inf')):
    """The calls a filter keeps, by dyliberator -f's rule (the last match wins)."""
    def name_ok(name):
        verdict = None
        for p in pats:
            neg = p.startswith('!')
            if fnmatch.fnmatchcase(name, p[1:] if neg else p):
                verdict = not neg
        return verdict if verdict is not None else all(p.startswith('!') for p in pats)
    return [c for c in CALLS if name_ok(c[1]) and lo <= c[2] < hi]


def filter_args(pats, rng):
    args = [a for p in pats for a in ('--func', p)]
    return args + (['--time-range', rng] if rng else [])


CASES = [  # (patterns, --time-range, its bounds in ns)
    (['d*'], None, (0, float('inf'))),
    (['d*', '!dgem?_'], None, (0, float('inf'))),
    (['!lsame_'], None, (0, float('inf'))),
    ([], '2ms,10.5ms', (2_000_000, 10_500_000)),
    ([], ',1ms', (0, 1_000_000)),
    ([], '25ms,', (25_000_000, float('inf'))),
    (['dgemm_', 'ddot_'], '5ms,20ms', (5_000_000, 20_000_000)),
]


@pytest.mark.parametrize('pats,rng,bounds', CASES)
def test_summary_and_chrome_keep_the_calls(trace, pats, rng, bounds):
    want = kept(pats, *bounds)
    assert 0 < len(want) < len(CALLS)
    args = filter_args(pats, rng)
    js = json.loads(run(DYL_TRACE, 'summary', '--json', trace, *args).stdout)
    funcs = js['traces'][0]['funcs']
    assert {f['func']: f['calls'] for f in funcs} == {
        n: c for n in FUNCS if (c := sum(1 for x in want if x[1] == n))}
    assert sum(f['total_ns'] for f in funcs) == sum(x[3] for x in want)
    assert js['filter'] and js['traces'][0]['rows'] == len(want)
    # CSV: one row per kept function; what was filtered goes to stderr
    r = run(DYL_TRACE, 'summary', '--csv', trace, *args)
    assert len(list(csv.DictReader(io.StringIO(r.stdout)))) == len({x[1] for x in want})
    assert r.stderr.startswith('dyl-trace: filtered: ')
    # the table says it in its head
    table = run(DYL_TRACE, 'summary', trace, *args).stdout
    assert table.splitlines()[1].startswith('filtered: ')
    ch = json.loads(run(DYL_TRACE, 'chrome', trace, *args).stdout)
    xs = [e for e in ch['traceEvents'] if e['ph'] == 'X']
    assert sorted(e['args']['seq'] for e in xs) == [x[0] for x in want]
    assert ch['otherData']['filter'] == js['filter']


def test_filter_described(trace):
    js = json.loads(run(DYL_TRACE, 'summary', '--json', trace, '--func', 'd*', '--func=!ddot_',
                        '--time-range=2ms,2.5s').stdout)
    assert js['filter'] == "functions 'd*' '!ddot_'; calls starting in [2 ms, 2.5 s)"
    assert json.loads(run(DYL_TRACE, 'summary', '--json', trace).stdout)['filter'] is None
    assert 'filter' not in json.loads(run(DYL_TRACE, 'chrome', trace).stdout)['otherData']


@pytest.mark.parametrize('args,msg', [
    (['--time-range', '5'], "--time-range '5': want START,END"),
    (['--time-range', '2ms'], "--time-range '2ms': want START,END"),
    (['--time-range', '1s,1ms'], 'the end is not after the start'),
    (['--time-range', '1x,'], "want START,END"),
    (['--func'], "a value must follow '--func'"),
    (['--func', ''], 'an empty pattern'),
])
def test_bad_filters(trace, args, msg):
    r = run(DYL_TRACE, 'summary', trace, *args, rc=2)
    assert r.stderr.startswith('dyl-trace: ') and msg in r.stderr
    assert len(r.stderr.splitlines()[0]) < 120


def test_not_with_cat(trace):
    assert 'go with summary (by function), chrome and diff' in run(DYL_TRACE, trace, '--func', 'x', rc=2).stderr


def test_diff_filtered_and_one_sided(trace, tmp_path):
    # B: the same calls but lsame_'s, and one of a function A never called
    other = tmp_path / 'b.csv'
    lines = open(trace).read().splitlines()
    other.write_text('\n'.join([ln for ln in lines if ',lsame_,' not in ln][:-1] +
                               ['60,7,dnrm2_,31000000,5,,,,0,', '# total_ns=40000000']) + '\n')
    js = json.loads(run(DYL_TRACE, 'diff', '--json', trace, other).stdout)
    f = {x['func']: x for x in js['processes'][0]['funcs']}
    assert f['lsame_']['only'] == 'a' and f['lsame_']['calls_delta'] == -12
    assert f['dnrm2_']['only'] == 'b' and f['dnrm2_']['calls_b'] == 1
    assert f['dnrm2_']['bytes_b'] is None and f['dnrm2_']['total_ns_pct'] is None
    assert f['ddot_']['only'] is None and f['ddot_']['calls_delta'] == 0
    # the largest change of time first: lsame_'s 12 calls
    assert js['processes'][0]['funcs'][0]['func'] == 'lsame_'
    table = run(DYL_TRACE, 'diff', trace, other).stdout
    assert 'only in A' in table and 'only in B' in table
    # filtered alike on both sides
    js = json.loads(run(DYL_TRACE, 'diff', '--json', trace, other, '--func', 'dd*',
                        '--time-range', ',10ms').stdout)
    assert [x['func'] for x in js['processes'][0]['funcs']] == ['ddot_']
    assert js['processes'][0]['funcs'][0]['calls_a'] == len(kept(['dd*'], 0, 10_000_000))
    assert js['filter'] == "functions 'dd*'; calls starting in [0 ns, 10 ms)"


# dyl-flow: A writes buffer 0, B reads it and writes buffer 1, C reads buffer 1, D reads
# both.  Calls 100 ns apart.
def flow_trace(tmp_path):
    calls = [(0, 'A', 0, 50), (1, 'B', 100, 50), (2, 'C', 200, 50), (3, 'D', 300, 50)]
    path = tmp_path / 'f.csv'
    path.write_text(trace_csv(calls))
    (tmp_path / 'f.csv.flow').write_bytes(flow_file([
        site(0, 'main (t.c:1)'), obj(0, HEAP, 100, 0), obj(1, HEAP, 100, 0),
        access(0, 0, 0, 100, 1), access(1, 0, 0, 100, 0), access(1, 1, 0, 100, 1),
        access(2, 1, 0, 100, 0), access(3, 0, 0, 100, 0), access(3, 1, 0, 100, 0)],
        pid=100, nseq=len(calls)))
    return str(path)


def flow_edges(*args):
    r = run(DYL_FLOW, *args)
    return {(x['producer'], x['consumer']): int(x['bytes'])
            for x in csv.DictReader(io.StringIO(r.stdout))}, r.stderr


def test_dyl_flow_filters(tmp_path):
    t = flow_trace(tmp_path)
    assert flow_edges(t)[0] == {('A', 'B'): 100, ('B', 'C'): 100, ('A', 'D'): 100,
                                ('B', 'D'): 100}
    # without B, what B wrote counts to the writer before it (the program)
    e, err = flow_edges(t, '--func', '!B')
    assert e == {('A', 'D'): 100, ('host', 'C'): 100, ('host', 'D'): 100}
    assert err == "dyl-flow: filtered: functions '!B'\n"
    # calls from 100 ns to 300 ns: B and C
    assert flow_edges(t, '--time-range', '100ns,300ns')[0] == {('host', 'B'): 100,
                                                              ('B', 'C'): 100}
    js = json.loads(run(DYL_FLOW, t, '--json', '--func', 'C', '--func', 'D').stdout)
    assert js['filter'] == "functions 'C' 'D'"
    fn = {f['name']: f for f in js['traces'][0]['functions'] if f['calls']}
    assert sorted(fn) == ['C', 'D']
    assert run(DYL_FLOW, t, '--time-range', 'x', rc=2).stderr.startswith(
        "dyl-flow: --time-range 'x'")
