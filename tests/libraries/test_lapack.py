"""The reference LAPACK (liblapack3) and the reference BLAS it calls, wrapped together: in
one wrapper (--lib twice) and as two wrappers preloaded together.  The trace nests the BLAS
calls LAPACK makes inside the LAPACK call that made them.

examples/apps/lapack_solve.c makes, per rep: dgesv_, dgemm_ (its own), dpotrf_, dpotrs_."""
import concurrent.futures
import os

import pytest

from dyltest import DYLIBERATOR, EXAMPLES, REF_BLAS, REF_LAPACK, Trace, build_c, parent_of, run, run_both, wrap

LAPACK_H = os.path.join(EXAMPLES, 'lapack.h')
BLAS_H = os.path.join(EXAMPLES, 'blas.h')
APP = os.path.join(EXAMPLES, 'apps', 'lapack_solve.c')

N, NRHS, REPS = 24, 3, 3
ARGV = [str(N), str(NRHS), str(REPS)]
ILLEGAL = b' ** On entry to DGESV parameter number  1 had an illegal value\n'


@pytest.fixture(scope='module')
def env(tmp_path_factory):
    d = tmp_path_factory.mktemp('lapack')
    builds = {
        'one': ('--lib', REF_LAPACK, '--lib', REF_BLAS, '--header', LAPACK_H),
        'lapack': ('--lib', REF_LAPACK, '--header', LAPACK_H),
        'blas': ('--lib', REF_BLAS, '--header', BLAS_H),
    }
    with concurrent.futures.ThreadPoolExecutor(len(builds)) as ex:
        futs = {k: ex.submit(wrap, d, *args, name=f'{k}.so') for k, args in builds.items()}
        w = {k: f.result() for k, f in futs.items()}
    rpath = f'{os.path.dirname(REF_LAPACK)}:{os.path.dirname(REF_BLAS)}'
    app = build_c(d, APP, 'lapack_solve', '-Wall', '-Werror', REF_LAPACK, REF_BLAS,
                  f'-Wl,-rpath,{rpath}')
    setups = {'one wrapper': w['one'], 'two wrappers': f"{w['lapack']} {w['blas']}"}
    return d, setups, app, w


@pytest.mark.parametrize('setup', ['one wrapper', 'two wrappers'])
def test_blas_nested_in_lapack(env, setup):
    d, setups, app, _ = env
    res, tp = run_both([app, *ARGV], setups[setup], d, trace=f'{setup[:3]}.csv')
    out = res.stdout.decode()
    assert out.count('dgesv info=0') == REPS and out.count('residual^2 < 1e-20') == REPS
    tr = Trace(tp)
    assert tr.rows
    assert sorted(int(r['seq']) for r in tr.rows) == list(range(len(tr.rows)))
    for r in tr.rows:
        assert int(r['t_ns']) >= 0 and int(r['t_start_ns']) >= 0, r

    # the app's own calls, and only those, at depth 0, in its order
    top = [r['func'] for r in tr.by_seq() if r['depth'] == '0']
    assert top == ['dgesv_', 'dgemm_', 'dpotrf_', 'dpotrs_'] * REPS
    total = int(tr.meta['total_ns'])
    assert sum(int(r['t_ns']) for r in tr.rows if r['depth'] == '0') <= total

    # every nested row lies inside exactly one row one level up, and a call's children
    # (made one after another) take no longer than the call itself
    children = {}
    for r in tr.rows:
        if r['depth'] != '0':
            p = parent_of(tr, r)
            children.setdefault(p['seq'], []).append(r)
    by_seq = {r['seq']: r for r in tr.rows}
    for seq, kids in children.items():
        assert sum(int(k['t_ns']) for k in kids) <= int(by_seq[seq]['t_ns'])

    def top_of(r):
        while r['depth'] != '0':
            r = parent_of(tr, r)
        return r

    # what each dgesv_ made: LAPACK's own steps and the BLAS beneath them
    under = {}
    for r in tr.rows:
        if r['depth'] != '0':
            under.setdefault(top_of(r)['func'], set()).add((r['func'], r['depth'] != '1'))
    dgesv_funcs = {f for f, _ in under['dgesv_']}
    assert {'dgetrf_', 'dgetrs_', 'dgetrf2_', 'dlaswp_'} <= dgesv_funcs
    assert {'idamax_', 'dscal_', 'dtrsm_', 'dgemm_'} <= dgesv_funcs
    # dgetrf_ and dgetrs_ are dgesv_'s direct calls; the BLAS comes deeper
    assert ('dgetrf_', False) in under['dgesv_'] and ('dgetrs_', False) in under['dgesv_']
    assert ('idamax_', True) in under['dgesv_'] and ('dgemm_', True) in under['dgesv_']
    for r in tr.rows:
        if r['func'] in ('idamax_', 'dscal_'):
            assert int(r['depth']) >= 2 and top_of(r)['func'] == 'dgesv_'
    # the Cholesky side: dpotrf_ -> dpotrf2_/dsyrk_/dtrsm_..., dpotrs_ -> dtrsm_
    assert 'dpotrf2_' in {f for f, _ in under['dpotrf_']}
    assert ('dtrsm_', False) in under['dpotrs_']
    # the app's dgemm_ calls nothing wrapped but lsame_
    for r in tr.rows:
        if r['depth'] != '0' and top_of(r)['func'] == 'dgemm_':
            assert r['func'] == 'lsame_'


@pytest.mark.parametrize('setup', ['one wrapper', 'two wrappers'])
def test_lapack_xerbla_gets_its_length(env, setup):
    """LAPACK's xerbla_ prints SRNAME(1:LEN_TRIM(SRNAME)) with the hidden length the wrapper
    forwards, then STOPs: the program ends inside a wrapped call."""
    d, setups, app, _ = env
    res, tp = run_both([app, '8', '1', '1', '--illegal'], setups[setup], d,
                       trace=f'x{setup[:3]}.csv')
    assert res.stdout.endswith(b'calling dgesv_ with N=-1\n' + ILLEGAL), res.stdout[-300:]
    assert b'dgesv_ returned' not in res.stdout
    tr = Trace(tp)
    # the calls that returned are there; the last dgesv_ and its xerbla_ never returned
    assert [r['func'] for r in tr.by_seq() if r['depth'] == '0'] == \
        ['dgesv_', 'dgemm_', 'dpotrf_', 'dpotrs_']
    assert tr.count('xerbla_') == 0
    assert 'total_ns' in tr.meta


def test_symbol_of_two_libraries_reverse_preload_order(env):
    """xerbla_ is exported by liblapack (Fortran: prints and STOPs) and by libblas3 (C:
    prints on stderr and returns).  Whatever the order of the wrappers in LD_PRELOAD,
    the call goes where the program binds it without them: liblapack comes first in
    its lookup order."""
    d, _, app, w = env
    for order, trace in ((f"{w['blas']} {w['lapack']}", 'rev.csv'),
                         (f"{w['lapack']} {w['blas']}", 'fwd.csv')):
        r, tp = run_both([app, '8', '1', '1', '--illegal'], order, d, trace=trace)
        assert b'On entry to DGESV parameter number  1' in r.stdout
        assert b'Parameter 1 to routine DGESV' not in r.stderr  # libblas3's message
        # the STOP ends the program inside xerbla_: the call never returns, so no row
        assert Trace(tp).count('xerbla_') == 0


def test_lapack_header_list(env):
    """examples/lapack.h gives the LAPACK routines; the BLAS comes from blas.h through it."""
    out = run([DYLIBERATOR, '--profile', 'none', '--lib', REF_LAPACK,
               '--lib', REF_BLAS, '--header', LAPACK_H, '--list']).stdout
    lines = out.splitlines()
    for f in ('dgesv_', 'dgetrf_', 'dpotrf_', 'ilaenv_', 'xerbla_', 'dgemm_', 'idamax_'):
        assert any(l.split()[:2] == ['wrap', f] for l in lines), f
    # xerbla_ and lsame_ exist in both libraries: the first --lib's is the one wrapped
    assert any(l.startswith('skip xerbla_ ') and 'also exported by liblapack.so.3' in l
               for l in lines)
