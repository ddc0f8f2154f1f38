"""Against real ports (issue 24): each computation of bench/residency/progs/ written twice,
plainly over the host BLAS and ported by hand onto fakedev (device memory apart, copies
counted).  The plain program runs under std.flow with host reads recorded; dyl-speedup's
residency prediction from its trace (exact mode, a PCIe 4 link model) must give the
bytes and transfers the port copied, and the link time the port's copies were modelled
at (fakedev sums the same link model over its copies).

The prediction checked is --plan's "all" plan (every modelled function accelerated: the
simulation as the top level runs it) and, where dyl-speedup has them, the top-level
h2d/d2h figures.  Without host reads (-g std.flow:host_reads=on, helper hostreads'
branch) the tests SKIP.  One known difference XFAILs, and only it: the scalars the
Fortran BLAS takes by reference (n, alpha, 'N') moving h2d, which no port copies."""
import json
import os
import struct
import sys

import pytest

from dyltest import REF_BLAS, ROOT, dyliberator, make, run, run_both

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flowfile import STACK, STATIC  # noqa: E402

RES = os.path.join(ROOT, 'bench', 'residency')
DYL_SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')
LINK = os.path.join(ROOT, 'models', 'link-pcie4-x16.csv')

# program, its arguments, and the port's transfers worked out by hand:
# (h2d bytes, h2d transfers, d2h bytes, d2h transfers)
N = 512
CASES = {
    # A once, x each of 6 steps; y back each step
    'power': ([str(N), '6'], (8 * N * N + 6 * 8 * N, 7, 6 * 8 * N, 6)),
    # A, B, D in; E out; the intermediate C never (n = 128: 131072 B a matrix)
    'pipe': (['128'], (3 * 131072, 3, 131072, 1)),
    # A and x once, then 8 columns (32 KiB) at each of 5 later steps; y back each step
    'rewrite': ([str(N), '6', '8'], (8 * N * N + 8 * N + 5 * 8 * 8 * N, 7, 6 * 8 * N, 6)),
    # A, x, w in; y out; z never read, never moves
    'unread': ([str(N)], (8 * N * N + 2 * 8 * N, 3, 8 * N, 1)),
}


@pytest.fixture(scope='module')
def env(tmp_path_factory):
    make('bin/dyl-speedup')
    d = tmp_path_factory.mktemp('port')
    run(['make', '-s', '-C', os.path.join(RES, 'progs'), f'O={d}'])
    w = os.path.join(str(d), 'wrap.so')
    g = dyliberator('--lib', REF_BLAS, '--header', os.path.join(ROOT, 'examples', 'blas.h'),
                    '-f', 'dgemv_', '-f', 'dgemm_', '-g', 'std.flow:host_reads=on',
                    '-g', 'std.diff', '-o', w, cwd=str(d), check=False)
    if g.returncode != 0:
        pytest.skip('no -g std.flow:host_reads=on here (helper hostreads\' branch): '
                    + g.stderr.strip().splitlines()[-1][:200])
    kernel = os.path.join(str(d), 'kernel.csv')
    with open(kernel, 'w') as f:
        f.write('func,work,t_ns\ndgemv_,1,100000\ndgemm_,1,1000000\n')
    return d, w, kernel


def port_counts(d, name, args):
    """The port's run under fakedev's counter, its copies modelled (not waited) at LINK."""
    rep = os.path.join(str(d), f'{name}.rep')
    r = run([os.path.join(str(d), f'{name}_port'), *args],
            env={**os.environ, 'FAKEDEV_REPORT': rep, 'FAKEDEV_LINK': LINK,
                 'FAKEDEV_NOWAIT': '1'})
    with open(rep) as f:
        return r.stdout, {k: float(v) for k, v in (line.strip().split('=') for line in f)}


def scalar_reads(flow_path):
    """(bytes, count) of the scalars the calls read by reference: statics and stack
    variables of at most 16 bytes (n, alpha, the 'N' of trans...).  A device library
    takes them by value, so a port copies none; each is read whole, once moved."""
    with open(flow_path, 'rb') as f:
        d = f.read()
    objs, read, off = {}, set(), 32
    while off + 8 <= len(d):
        kind, length = struct.unpack_from('<II', d, off)
        body = d[off + 8:off + 8 + length]
        off += 8 + length
        if kind == 2:
            oid, okind, _, size = struct.unpack_from('<QIIQ', body)
            objs[oid] = (okind, size)
        elif kind == 5:
            _, oid, lo, hi, rw = struct.unpack_from('<QQQQI', body)
            if rw == 0:
                read.add(oid)
    small = [objs[o][1] for o in read if objs[o][0] in (STATIC, STACK) and objs[o][1] <= 16]
    return sum(small), len(small)


def figures(j):
    """The predictions to check: the plan accelerating every modelled function (--plan's
    'all'), and the top-level figures where dyl-speedup has them (helper residency)."""
    out = {'plan all': next(p for p in j['plans'] if p['name'] == 'all')}
    if 'h2d_bytes' in j:
        out['top level'] = j
    return out


@pytest.mark.parametrize('name', sorted(CASES))
def test_prediction_moves_what_the_port_copies(env, name):
    d, w, kernel = env
    args, (h2d, h2dn, d2h, d2hn) = CASES[name]
    wrapped, trace = run_both([os.path.join(str(d), f'{name}_plain'), *args], w, d,
                              trace=f'{name}.csv')
    out, port = port_counts(d, name, args)
    assert out == wrapped.stdout.decode(), 'the port computes what the plain program does'
    # the hand count is the port's own
    assert (port['h2d_bytes'], port['h2d_transfers'], port['d2h_bytes'],
            port['d2h_transfers']) == (h2d, h2dn, d2h, d2hn)
    j = json.loads(run([DYL_SPEEDUP, '--plan', '--json', trace, kernel, LINK]).stdout)
    assert j['plan_mode'] == 'exact'
    sb, sn = scalar_reads(trace + '.flow')
    figs = figures(j)
    for what, f in figs.items():
        assert (f['d2h_bytes'], f['d2h_transfers']) == (d2h, d2hn), what
        assert f['d2h_ns'] == pytest.approx(port['d2h_ns'], rel=1e-6), what
    for what, f in figs.items():
        got = (f['h2d_bytes'], f['h2d_transfers'])
        if got == (h2d + sb, h2dn + sn) and sn:
            pytest.xfail(f'{what}: the {sn} scalar arguments passed by reference ({sb} B: '
                         'n, alpha, trans...) move h2d in the simulation; a port passes '
                         'them by value (RESIDENCY.md: resid_load should not count them)')
        assert got == (h2d, h2dn), what
        assert f['h2d_ns'] == pytest.approx(port['h2d_ns'], rel=1e-6), what
