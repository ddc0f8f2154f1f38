"""dyl-trace diff A B on two runs of one program (examples/apps/blas_fortran.c through the
reference BLAS, work and bytes from examples/blas.defs) with different sizes: the
calls, work and bytes of each side and their changes, exactly; record folders of
several processes, matched by command line or added up."""
import csv
import io
import json
import os
import shutil
import subprocess

import pytest

from dyltest import REF_BLAS, ROOT, Trace, build_c, make, run_both, wrap

DYL_TRACE = os.path.join(ROOT, 'bin', 'dyl-trace')
EX = os.path.join(ROOT, 'examples')
SIZES = {'a': ('2', '6', '5', '4'), 'b': ('3', '8', '5', '4')}   # REPS M N K


def dyl_trace(*args):
    r = subprocess.run([DYL_TRACE, *map(str, args)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture(scope='module')
def runs(tmp_path_factory):
    make('bin/dyl-trace')
    d = tmp_path_factory.mktemp('diff')
    w = wrap(d, '--lib', REF_BLAS, '--header', os.path.join(EX, 'blas.h'), '--defs',
             os.path.join(EX, 'blas.defs'), name='w.so')
    app = build_c(d, os.path.join(EX, 'apps', 'blas_fortran.c'), 'blas_fortran', REF_BLAS,
                  f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')
    return d, {k: run_both([app, *v], w, d, trace=f'{k}.csv')[1] for k, v in SIZES.items()}


def sums(path):
    """Per function, from the trace's rows: calls, total_ns, bytes, work."""
    out = {}
    for r in Trace(path).rows:
        s = out.setdefault(r['func'], [0, 0, 0, 0])
        s[0] += 1
        s[1] += int(r['t_ns'])
        s[2] += int(r['in_bytes'] or 0) + int(r['out_bytes'] or 0)
        s[3] += int(r['work'] or 0)
    return out


def test_diff_counts_work_and_bytes(runs):
    d, t = runs
    js = json.loads(dyl_trace('diff', '--json', t['a'], t['b']))
    assert len(js['processes']) == 1 and js['processes'][0]['process'] is None
    assert js['version'] == open(os.path.join(ROOT, 'VERSION')).read().strip()
    f = {x['func']: x for x in js['processes'][0]['funcs']}
    sa, sb = sums(t['a']), sums(t['b'])
    assert set(f) == set(sa) | set(sb)
    for name, x in f.items():
        a, b = sa.get(name, [0] * 4), sb.get(name, [0] * 4)
        for k, key in enumerate(('calls', 'total_ns')):
            assert (x[key + '_a'], x[key + '_b'], x[key + '_delta']) == (a[k], b[k], b[k] - a[k])
    # by hand (blas_fortran.c, blas.defs): REPS dgemm_ of 2 M N K flops, 2 REPS daxpy_ of
    # 2 M flops, 3 REPS ddot_
    assert (f['dgemm_']['calls_a'], f['dgemm_']['calls_b']) == (2, 3)
    assert (f['dgemm_']['work_a'], f['dgemm_']['work_b']) == (2 * 2 * 6 * 5 * 4, 3 * 2 * 8 * 5 * 4)
    assert f['dgemm_']['work_delta'] == 960 - 480
    assert (f['daxpy_']['calls_delta'], f['ddot_']['calls_delta']) == (2, 3)
    for name in ('dgemm_', 'daxpy_', 'ddot_'):
        assert f[name]['bytes_a'] == sa[name][2] and f[name]['bytes_b'] == sb[name][2]
        assert f[name]['bytes_delta'] == sb[name][2] - sa[name][2] > 0
        assert f[name]['work_delta'] == sb[name][3] - sa[name][3]
    assert f['lsame_']['bytes_a'] is None and f['lsame_']['work_delta'] is None
    # sorted by the largest change of time
    order = [abs(x['total_ns_delta']) for x in js['processes'][0]['funcs']]
    assert order == sorted(order, reverse=True)
    # CSV: the same numbers, one row per function
    rows = {r['func']: r for r in csv.DictReader(io.StringIO(dyl_trace('diff', '--csv', t['a'],
                                                                        t['b'])))}
    assert set(rows) == set(f) and rows['dgemm_']['work_delta'] == '480'
    assert rows['lsame_']['bytes_a'] == '' and rows['dgemm_']['process'] == '*'
    table = dyl_trace('diff', t['a'], t['b']).splitlines()
    assert table[0].startswith('A: ') and 'blas_fortran 2 6 5 4)' in table[0]
    assert table[2].split()[:4] == ['function', 'calls', 'A', 'calls']
    assert len(table) == 3 + len(f)


def test_record_folders(runs, tmp_path):
    """Two processes a side: matched by their command lines; added up when they differ."""
    d, t = runs
    for side, names in (('A', ('a', 'b')), ('B', ('b', 'a'))):
        os.mkdir(tmp_path / side)
        for i, k in enumerate(names):
            shutil.copy(t[k], tmp_path / side / f'trace.{i + 1}.csv')
    js = json.loads(dyl_trace('diff', '--json', tmp_path / 'A', tmp_path / 'B'))
    assert len(js['processes']) == 2
    for p in js['processes']:
        assert p['process'].endswith(('blas_fortran 2 6 5 4', 'blas_fortran 3 8 5 4'))
        assert all(x['calls_delta'] == 0 and x['work_delta'] in (0, None) for x in p['funcs'])
    # one side's second process run with other sizes: no match, all added up
    shutil.copy(t['a'], tmp_path / 'B' / 'trace.1.csv')
    js = json.loads(dyl_trace('diff', '--json', tmp_path / 'A', tmp_path / 'B'))
    assert len(js['processes']) == 1 and js['processes'][0]['process'] is None
    f = {x['func']: x for x in js['processes'][0]['funcs']}
    assert (f['dgemm_']['calls_a'], f['dgemm_']['calls_b']) == (5, 4)
    assert f['dgemm_']['work_delta'] == 480 - 960
    r = subprocess.run([DYL_TRACE, 'diff', str(tmp_path), t['a']], capture_output=True,
                       text=True)
    assert r.returncode == 2 and 'trace.*.csv' in r.stderr
