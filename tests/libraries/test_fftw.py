"""FFTW (Debian's libfftw3-3) and buffers behind a handle (issue 33, item 4): FFTW keeps a
transform's arrays in its plan, and fftw_execute(p) receives the plan alone.
examples/fftw.defs binds the arrays to the plan (dyl_bind, runtime/handles.c); without
it, the trace notes that the calls moved only the plan ('# handle_only=') and dyl-speedup
says so.  fftw_repeat.c plans once and executes again and again, filling the input and
reading the output each time, as a port would move them."""
import json
import os
import subprocess

import pytest

from dyltest import EXAMPLES, ROOT, Trace, build_c, run_both, wrap

HERE = os.path.dirname(os.path.abspath(__file__))
APP = os.path.join(HERE, 'fftw_repeat.c')
DEFS = os.path.join(EXAMPLES, 'fftw.defs')
LINK = os.path.join(ROOT, 'models', 'link-pcie4-x16.csv')
DYL_SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')
# a compute-only model of the executes, keyed on their work (fftw_flops); the figures do
# not matter, only that the calls are replaced
KERNELS = '{0},1,1000\n{0},100000000,1000000\n'

pytestmark = pytest.mark.skipif(not os.path.exists('/usr/include/fftw3.h'),
                                reason='needs libfftw3-dev')


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('fftw')
    app = build_c(d, APP, 'fftw_repeat', '-lfftw3', '-lm')
    gens = ('-g', 'std.flow:host_reads=on', '-g', 'std.diff')
    with_defs = wrap(d, '--lib', 'libfftw3.so.3', '--app', app, '--defs', DEFS, *gens,
                     name='defs.so')
    without = wrap(d, '--lib', 'libfftw3.so.3', '--app', app, *gens, name='plain.so')
    return d, app, with_defs, without


def speedup(d, trace, funcs):
    model = d / 'kernels.csv'
    model.write_text('func,work,t_ns\n' + ''.join(KERNELS.format(f) for f in funcs))
    r = subprocess.run([DYL_SPEEDUP, '--json', trace, str(model), LINK], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def executes(tp, func='fftw_execute'):
    return [r for r in Trace(tp).by_seq() if r['func'] == func]


def test_plan_of_65536_points_executed_200_times(built):
    """the issue's case: each execute reads the input and writes the output, 65,536
    complex doubles each (1,048,576 B); exact residency moves both every time"""
    d, app, w, _ = built
    _, tp = run_both([app, '65536', '200'], w, d, trace='c2c.csv')
    rows = executes(tp)
    assert len(rows) == 200
    assert {(int(r['in_bytes']), int(r['out_bytes'])) for r in rows} == {(1048576, 1048576)}
    # work: fftw_flops of the plan, one figure for every execution (its value depends on
    # the codelets FFTW chose for this CPU)
    assert len({r['work'] for r in rows}) == 1 and int(rows[0]['work']) > 0
    j = speedup(d, tp, ['fftw_execute'])
    assert j['residency_mode'] == 'exact'
    assert (j['h2d_bytes'], j['d2h_bytes']) == (200 * 1048576, 200 * 1048576)
    assert (j['h2d_transfers'], j['d2h_transfers']) == (200, 200)


def test_new_array_execute_takes_the_plans_sizes(built):
    """fftw_execute_dft with other arrays: the plan's sizes, at the arrays given"""
    d, app, w, _ = built
    _, tp = run_both([app, '4096', '6', 'new'], w, d, trace='new.csv')
    for func in ('fftw_execute', 'fftw_execute_dft'):
        rows = executes(tp, func)
        assert len(rows) == 3
        assert {(int(r['in_bytes']), int(r['out_bytes'])) for r in rows} == {(65536, 65536)}
    j = speedup(d, tp, ['fftw_execute', 'fftw_execute_dft'])
    assert (j['h2d_bytes'], j['d2h_bytes']) == (6 * 65536, 6 * 65536)


def test_real_to_complex(built):
    """r2c: N doubles in, N/2 + 1 complex out"""
    d, app, w, _ = built
    _, tp = run_both([app, '4096', '3', 'r2c'], w, d, trace='r2c.csv')
    rows = executes(tp)
    assert {(int(r['in_bytes']), int(r['out_bytes'])) for r in rows} == {(4096 * 8, 2049 * 16)}
    assert len(rows) == 3


# (in_bytes, out_bytes) of each execute of 'fftw_repeat 1 1 shapes', by hand: complex
# elements are 16 bytes, reals 8; r2c's output and c2r's input have n/2 + 1 along the
# last dimension; a _many form's extent is (howmany - 1) * dist + stride * (last offset) + 1
SHAPES = [
    (8 * 6 * 16, 8 * 6 * 16),                  # dft_2d 8 x 6
    (8 * 6 * 4 * 16, 8 * 6 * 4 * 16),          # dft_3d 8 x 6 x 4
    (8 * 6 * 4 * 16, 8 * 6 * 4 * 16),          # dft, rank 3
    (8 * 6 * 8, 8 * 4 * 16),                   # r2c_2d
    (8 * 6 * 4 * 8, 8 * 6 * 3 * 16),           # r2c_3d
    (8 * 6 * 8, 8 * 4 * 16),                   # r2c, rank 2
    (5 * 16, 8 * 8),                           # c2r_1d 8
    (8 * 4 * 16, 8 * 6 * 8),                   # c2r_2d
    (8 * 6 * 3 * 16, 8 * 6 * 4 * 8),           # c2r_3d
    (8 * 4 * 16, 8 * 6 * 8),                   # c2r, rank 2
    (48 * 16, 48 * 16),                        # many_dft: 3 x 16, distance 16
    ((1 + 15 * 2 + 1) * 16, 32 * 16),          # many_dft: 2 x 16 interleaved (stride 2)
    ((2 * 16 + 15 + 1) * 8, (2 * 9 + 8 + 1) * 16),  # many_dft_r2c: 3 x 16, odist 9
    ((2 * 9 + 8 + 1) * 16, (2 * 16 + 15 + 1) * 8),  # many_dft_c2r
]


def test_every_plan_form(built):
    """each plan form's arrays, in 1 to 3 dimensions, any rank and the _many forms"""
    d, app, w, _ = built
    _, tp = run_both([app, '1', '1', 'shapes'], w, d, trace='shapes.csv')
    assert [(int(r['in_bytes']), int(r['out_bytes'])) for r in executes(tp)] == SHAPES


def test_without_defs_the_plan_alone_is_noted(built):
    """no bindings: the execute moves the plan's few bytes; the trace notes it once and
    dyl-speedup names the fix for the kernel it replaces"""
    d, app, _, w = built
    _, tp = run_both([app, '65536', '3'], w, d, trace='plain.csv')
    rows = executes(tp)
    assert all(int(r['in_bytes']) + int(r['out_bytes']) <= 64 for r in rows)
    tr = Trace(tp)
    notes = [line for line in open(tp) if line.startswith('# handle_only=fftw_execute ')]
    assert len(notes) == 1, notes
    func, params, size = notes[0].split('=', 1)[1].split()
    assert func == 'fftw_execute' and params == 'p' and 0 < int(size) <= 64
    assert 'handle_only' in tr.meta
    j = speedup(d, tp, ['fftw_execute'])
    said = [n for n in j['notes'] if n.startswith('fftw_execute: ') and 'dyl_bind' in n]
    assert len(said) == 1, j['notes']
