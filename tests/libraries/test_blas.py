"""The reference BLAS (libblas3) wrapped through examples/blas.h (Fortran interface, hidden
CHARACTER lengths) and through its own CBLAS headers; examples/blas.defs for exact bytes.

The apps (examples/apps/blas_fortran.c, blas_cblas.c) make a number of calls that follows
from their arguments: per rep one dgemm, two daxpy and three ddot."""
import concurrent.futures
import os
import re

import pytest

from dyltest import DYLIBERATOR, EXAMPLES, REF_BLAS, Trace, build_c, parent_of, parents, run, run_both, wrap

BLAS_H = os.path.join(EXAMPLES, 'blas.h')
BLAS_DEFS = os.path.join(EXAMPLES, 'blas.defs')
CBLAS_H = '/usr/include/x86_64-linux-gnu/cblas.h'
APPS = os.path.join(EXAMPLES, 'apps')
LINK = [REF_BLAS, f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}']
F64 = 8

# argv of the apps: REPS M N K (shapes unlike the defaults, K != M != N)
REPS, M, N, K = 5, 7, 3, 9
ARGV = [str(REPS), str(M), str(N), str(K)]


@pytest.fixture(scope='module')
def env(tmp_path_factory):
    d = tmp_path_factory.mktemp('blas')
    lib = ['--lib', REF_BLAS]
    builds = {
        # Fortran interface, default micro-generators (std.time + std.trace)
        'fortran': (*lib, '--header', BLAS_H),
        # the same with exact sizes and argument values
        'defs': (*lib, '--header', BLAS_H, '--defs', BLAS_DEFS, '-g', 'std.args'),
        # no --header: the library's own headers (cblas.h and cblas_f77.h) are found
        'default': tuple(lib),
        # both interfaces from explicit headers
        'both': (*lib, '--header', BLAS_H, '--header', CBLAS_H),
        # only the C interface: preloaded together with 'fortran'
        'cblas_only': (*lib, '-f', 'cblas_*'),
    }
    with concurrent.futures.ThreadPoolExecutor(len(builds)) as ex:
        futs = {k: ex.submit(wrap, d, *args, name=f'{k}.so') for k, args in builds.items()}
        wrappers = {k: f.result() for k, f in futs.items()}
    apps = {name: build_c(d, os.path.join(APPS, f'{name}.c'), name, '-Wall', '-Werror', *LINK)
            for name in ('blas_fortran', 'blas_cblas', 'blas_types')}
    return d, wrappers, apps


def check_times(tr):
    assert tr.rows, 'empty trace'
    assert tr.columns[:9] == ['seq', 'tid', 'func', 't_start_ns', 't_ns', 'in_bytes',
                              'out_bytes', 'work', 'depth']
    for r in tr.rows:
        assert r['t_ns'] != '' and int(r['t_ns']) >= 0, r
        assert r['t_start_ns'] != '' and int(r['t_start_ns']) >= 0, r
    assert sorted(int(r['seq']) for r in tr.rows) == list(range(len(tr.rows)))
    total = int(tr.meta['total_ns'])
    assert sum(int(r['t_ns']) for r in tr.rows if r['depth'] == '0') <= total
    tr.parent_map = parents(tr)   # every nested row inside its caller


def fortran_exports():
    """Names of the functions libblas3 exports that end in '_' (the Fortran interface)."""
    names = set()
    for line in run(['readelf', '--dyn-syms', '-W', REF_BLAS]).stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == 'FUNC' and f[6] != 'UND':
            name = f[7].split('@')[0]
            if name.endswith('_'):
                names.add(name)
    return names


def test_header_covers_every_fortran_export(env):
    out = run([DYLIBERATOR, '--profile', 'none', '--lib', REF_BLAS, '--header', BLAS_H,
               '--list']).stdout
    exported = fortran_exports()
    assert len(exported) >= 170 and {'dgemm_', 'zdotc_', 'xerbla_', 'lsame_'} <= exported
    wrapped = set(re.findall(r'^wrap (\S+)', out, re.M))
    assert exported <= wrapped, sorted(exported - wrapped)
    # the C interface has no prototype there, and the list says so
    assert re.search(r'^skip cblas_dgemm\s.*no prototype', out, re.M)


TYPES_CALLS = ('sdot_ dsdot_ sdsdot_ snrm2_ dznrm2_ isamax_ izamax_ cdotc_ cdotu_ zdotc_ zdotu_ '
               'scabs1_ dcabs1_ srotg_ zrotg_ zgemv_ cherk_ zgemm_').split()


def test_results_and_hidden_lengths_of_every_kind(env):
    """float, double, complex and int results and CHARACTER arguments survive the wrapper:
    a wrong return type in blas.h (e.g. zdotc_ as double) changes what the app prints."""
    d, wrappers, apps = env
    res, tp = run_both([apps['blas_types']], wrappers['fortran'], d, trace='types.csv')
    out = res.stdout.decode()
    assert 'zdotc = -3.28125-0.875i\n' in out and 'lsame = 1 0\n' in out, out
    tr = Trace(tp)
    check_times(tr)
    top = [r['func'] for r in tr.rows if r['depth'] == '0']
    for f in TYPES_CALLS:
        assert top.count(f) == 1, f
    assert top.count('lsame_') == 2
    assert sorted(set(top)) == sorted(TYPES_CALLS + ['lsame_'])
    # inside the library: the level-2/3 routines check their CHARACTER arguments with
    # lsame_, izamax_ measures with dcabs1_
    nested = [r for r in tr.rows if r['depth'] != '0']
    assert all(r['depth'] == '1' for r in nested)
    parents = {}
    for r in nested:
        parents.setdefault(r['func'], set()).add(parent_of(tr, r)['func'])
    assert parents == {'lsame_': {'zgemv_', 'cherk_', 'zgemm_'}, 'dcabs1_': {'izamax_'}}


def test_fortran_calls_counted(env):
    d, wrappers, apps = env
    res, tp = run_both([apps['blas_fortran'], *ARGV], wrappers['fortran'], d, trace='f.csv')
    assert res.stdout.decode().count('rep ') == REPS
    tr = Trace(tp)
    check_times(tr)
    assert tr.count('dgemm_') == REPS
    assert tr.count('daxpy_') == 2 * REPS
    assert tr.count('ddot_') == 3 * REPS
    assert tr.count('xerbla_') == 0
    top = {r['func'] for r in tr.rows if r['depth'] == '0'}
    assert top == {'dgemm_', 'daxpy_', 'ddot_'}
    # dgemm_ asks lsame_ about TRANSA and TRANSB: nested calls, inside their dgemm_
    lsame = [r for r in tr.rows if r['func'] == 'lsame_']
    assert len(lsame) >= 2 * REPS
    for r in lsame:
        assert r['depth'] == '1'
        assert parent_of(tr, r)['func'] == 'dgemm_'
    # the app's calls come in its order: dgemm, daxpy x2, ddot x3 per rep
    order = [r['func'] for r in tr.by_seq() if r['depth'] == '0']
    assert order == ['dgemm_', 'daxpy_', 'daxpy_', 'ddot_', 'ddot_', 'ddot_'] * REPS


@pytest.mark.parametrize('reps', [0, 1, 8])
def test_counts_follow_argv(env, reps):
    d, wrappers, apps = env
    _, tp = run_both([apps['blas_fortran'], str(reps)], wrappers['fortran'], d,
                     trace=f'r{reps}.csv')
    tr = Trace(tp)
    assert [tr.count(f) for f in ('dgemm_', 'daxpy_', 'ddot_')] == [reps, 2 * reps, 3 * reps]
    assert 'total_ns' in tr.meta


def test_defs_exact_sizes_and_args(env):
    d, wrappers, apps = env
    _, tp = run_both([apps['blas_fortran'], *ARGV, '--illegal'], wrappers['defs'], d,
                     trace='defs.csv')
    tr = Trace(tp)
    check_times(tr)
    rows = [r for r in tr.by_seq() if r['depth'] == '0']
    L = M * N
    half = max(L // 2, 1)

    def sizes(r):
        return int(r['in_bytes']), int(r['out_bytes']), int(r['work'])

    gemms = [r for r in rows if r['func'] == 'dgemm_']
    assert len(gemms) == REPS + 1
    for i, r in enumerate(gemms[:REPS]):
        # beta = 0.5, alpha != 0: A, B and C are read, C written; 2MNK flops
        assert sizes(r) == ((M * K + K * N + M * N) * F64, M * N * F64, 2 * M * N * K), r
        args = r['args']
        assert re.search(r'(^| )m=0x[0-9a-f]+\(\*=%d\)( |$)' % M, args), args
        assert re.search(r' n=0x[0-9a-f]+\(\*=%d\) ' % N, args), args
        assert re.search(r' k=0x[0-9a-f]+\(\*=%d\) ' % K, args), args
        assert re.search(r"^transa=0x[0-9a-f]+\(\*='%s'\) " % ('T' if i % 2 else 'N'), args), args
        assert re.search(r' lda=0x[0-9a-f]+\(\*=%d\) ' % (K if i % 2 else M), args), args
        assert re.search(r' transa_len=1 transb_len=1$', args), args
    # the illegal call (M = -1) touches nothing
    assert sizes(gemms[-1]) == (0, 0, 0)
    assert re.search(r'(^| )m=0x[0-9a-f]+\(\*=-1\)', gemms[-1]['args'])

    axpys = [r for r in rows if r['func'] == 'daxpy_']
    assert [sizes(r) for r in axpys] == [(2 * L * F64, L * F64, 2 * L),
                                         (2 * half * F64, half * F64, 2 * half)] * REPS
    dots = [r for r in rows if r['func'] == 'ddot_']
    assert [sizes(r) for r in dots] == [(2 * n * F64, F64, 2 * n - 1) for n in (L, L, half)] * REPS
    # functions without defs have no sizes
    assert all(r['in_bytes'] == '' and r['work'] == '' for r in tr.rows if r['func'] == 'lsame_')


def test_xerbla_forwarded_with_its_length(env):
    d, wrappers, apps = env
    for name in ('fortran', 'defs'):
        res, tp = run_both([apps['blas_fortran'], '2', '--illegal'], wrappers[name], d,
                           trace=f'x{name}.csv')
        # libblas3's xerbla_ reports on stderr (and returns)
        assert b'Parameter 3 to routine DGEMM' in res.stderr
        assert res.stdout.decode().endswith('calling dgemm_ with M=-1\ndgemm_ returned\n')
        tr = Trace(tp)
        x = [r for r in tr.rows if r['func'] == 'xerbla_']
        assert len(x) == 1 and x[0]['depth'] == '1'
        assert parent_of(tr, x[0])['func'] == 'dgemm_'
    # the wrapper received the hidden length (6: 'DGEMM ') and the parameter number
    assert re.search(r"srname=0x[0-9a-f]+\(\*='D'\) info=0x[0-9a-f]+\(\*=3\) srname_len=6$",
                     x[0]['args']), x[0]['args']


def check_cblas_nesting(tr, fortran_ddot):
    assert tr.count('cblas_dgemm') == REPS
    assert tr.count('cblas_daxpy') == 2 * REPS
    assert tr.count('cblas_ddot') == 3 * REPS
    for r in tr.rows:
        if r['func'].startswith('cblas_'):
            assert r['depth'] == '0', r
    inner = {'dgemm_': 'cblas_dgemm', 'daxpy_': 'cblas_daxpy', 'ddotsub_': 'cblas_ddot'}
    for f, parent in inner.items():
        rows = [r for r in tr.rows if r['func'] == f]
        assert len(rows) == tr.count(parent), f
        for r in rows:
            assert r['depth'] == '1', r
            assert parent_of(tr, r)['func'] == parent
    if fortran_ddot:  # cblas_ddot -> ddotsub_ -> ddot_
        rows = [r for r in tr.rows if r['func'] == 'ddot_']
        assert len(rows) == 3 * REPS
        for r in rows:
            assert r['depth'] == '2'
            assert parent_of(tr, r)['func'] == 'ddotsub_'


def test_cblas_default_headers(env):
    d, wrappers, apps = env
    res, tp = run_both([apps['blas_cblas'], *ARGV], wrappers['default'], d, trace='c.csv')
    # the same computation as through the Fortran interface
    plain_f = run([apps['blas_fortran'], *ARGV]).stdout
    assert res.stdout.decode() == plain_f
    tr = Trace(tp)
    check_times(tr)
    check_cblas_nesting(tr, fortran_ddot=False)


def test_cblas_and_fortran_one_wrapper(env):
    d, wrappers, apps = env
    _, tp = run_both([apps['blas_cblas'], *ARGV], wrappers['both'], d, trace='c2.csv')
    tr = Trace(tp)
    check_times(tr)
    check_cblas_nesting(tr, fortran_ddot=True)


def test_cblas_and_fortran_two_wrappers(env):
    """Two wrappers preloaded together share one trace, one seq and one depth."""
    d, wrappers, apps = env
    pre = f"{wrappers['cblas_only']} {wrappers['fortran']}"
    _, tp = run_both([apps['blas_cblas'], *ARGV], pre, d, trace='c3.csv')
    tr = Trace(tp)
    check_times(tr)   # seq 0..n-1 over the rows of both wrappers
    check_cblas_nesting(tr, fortran_ddot=True)
    assert not [p for p in os.listdir(d) if p.startswith('c3.csv.')], 'a second trace file'
