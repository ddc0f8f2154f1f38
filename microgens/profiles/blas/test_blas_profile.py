"""The blas profile (profile.toml, blas.h, blas.defs): the work (flops) and bytes of real
BLAS calls, counted by hand here, through the reference BLAS, numpy and OpenBLAS.

The wrappers are built with the profile's header, .defs and functions given explicitly
(--header, --defs, -f), so these tests hold with or without dyliberator's --profile."""
import fnmatch
import os
import re
import subprocess

import pytest

from dyltest import DEBIAN_PY, REF_BLAS, Trace, build_c, dyliberator, run_both, wrap
from microgens.profiles.blas.profiletest import (build_everything, cblas_program, defs_functions,
                                                 exports, profile, profile_args, rows)

HERE = os.path.dirname(os.path.abspath(__file__))
DEFS = os.path.join(HERE, 'blas.defs')
CBLAS_H = '/usr/include/x86_64-linux-gnu/cblas-netlib.h'
OPENBLAS = '/usr/lib/x86_64-linux-gnu/libopenblas.so.0'
F64, F32, C128 = 8, 4, 16


def test_defs_file_is_what_the_script_writes():
    r = subprocess.run([DEBIAN_PY, os.path.join(HERE, 'gen_defs.py'), '--check'])
    assert r.returncode == 0, 'blas.defs differs from gen_defs.py\'s output: run the script'


def test_functions_are_the_routines_with_defs():
    """profile.toml's functions select exactly the routines blas.defs has a block for,
    of the reference BLAS's exports: 4 precisions, levels 1-3, two interfaces."""
    names = defs_functions(DEFS)
    assert len(names) == len(set(names)) == 212
    pats = profile(HERE)['functions']
    selected = {e for e in exports(REF_BLAS) if any(fnmatch.fnmatchcase(e, p) for p in pats)}
    assert selected == set(names)
    for n in ('dgemm_', 'zher2k_', 'cblas_zdotc_sub', 'izamax_', 'cblas_strsm', 'csscal_'):
        assert n in selected


def test_every_block_sets_work_and_bytes():
    with open(DEFS) as f:
        blocks = re.split(r'^\*::', f.read(), flags=re.M)[1:]
    for b in blocks:
        for size in ('input_size =', 'output_size =', 'work_size ='):
            assert size in b, b[:60]


@pytest.fixture(scope='module')
def ref(tmp_path_factory):
    d = tmp_path_factory.mktemp('blasprof')
    return d, wrap(d, '--lib', REF_BLAS, *profile_args(HERE))


def test_c_program_counts(ref):
    d, w = ref
    app = build_c(d, os.path.join(HERE, 'apps', 'blas_calls.c'), 'blas_calls', '-Wall', '-Werror',
                  REF_BLAS, f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')
    _, tp = run_both([app], w, d, trace='calls.csv')
    assert rows(tp) == [
        # dgemm_ N N, M 7, N 3, K 9, beta 0.5: A, B and C read, C written, 2 M N K flops
        ('dgemm_', (7 * 9 + 9 * 3 + 7 * 3) * F64, 7 * 3 * F64, 2 * 7 * 3 * 9),
        # zgemm_ N C, M 4, N 5, K 6, beta 0: C not read; a complex multiply-add is 8 flops
        ('zgemm_', (4 * 6 + 5 * 6) * C128, 4 * 5 * C128, 8 * 4 * 5 * 6),
        # sgemv_ T, A 6 x 4: x has 6 elements, y 4 (read: beta 1)
        ('sgemv_', (6 * 4 + 6 + 4) * F32, 4 * F32, 2 * 6 * 4),
        # cblas_dgemm row major, A transposed: M 5, N 3, K 4 whatever the layout; beta 2
        ('cblas_dgemm', (5 * 4 + 4 * 3 + 5 * 3) * F64, 5 * 3 * F64, 2 * 5 * 3 * 4),
        # cblas_zaxpy N 5, incx 2: 5 elements of x (not 10), 5 of y; 8 flops an element
        ('cblas_zaxpy', 2 * 5 * C128, 5 * C128, 8 * 5),
        # dgemm_ alpha 0, beta 1: the reference returns at once
        ('dgemm_', 0, 0, 0),
    ]
    # inside CBLAS: the Fortran routine, with the same counts (M and N swapped, row major)
    top = rows(tp)
    assert rows(tp, '1') == [('dgemm_', *top[3][1:]), ('zaxpy_', *top[4][1:])]
    # lsame_, which the level 2 and 3 routines call, is not among the profile's functions
    assert 'lsame_' not in Trace(tp).funcs()


def test_cblas_counts_equal_the_fortran_routine_it_calls(ref):
    """Every CBLAS routine, column and row major (transposed, right side, lower): the
    reference CBLAS calls the Fortran routine with the dimensions, sides and triangles
    swapped for row major, and its counts are the CBLAS routine's (iamax: its result is an
    int, CBLAS's a size_t)."""
    d, w = ref
    names = {n for n in defs_functions(DEFS) if n.startswith('cblas_')}
    app = build_c(d, cblas_program(CBLAS_H, names), 'every_cblas', '-Wall', '-Werror', REF_BLAS,
                  f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')
    _, tp = run_both([app], w, d, trace='every.csv')
    top, inner = Trace(tp).by_seq(), []
    for r in top:
        if r['depth'] == '0':
            inner.append((r, []))
        else:
            assert r['depth'] == '1', r
            inner[-1][1].append(r)
    assert {r['func'] for r, _ in inner} == names
    assert len(inner) == len(names) + 64    # level 2 and 3: twice
    for r, calls in inner:
        assert len(calls) == 1, (r['func'], [c['func'] for c in calls])
        f = calls[0]    # (row major cblas_cgerc calls cgeru_, with y conjugated)
        same = ('in_bytes', 'work') if 'amax' in f['func'] else ('in_bytes', 'out_bytes', 'work')
        assert [r[k] for k in same] == [f[k] for k in same], (r, f)
        assert int(r['in_bytes']) > 0 or r['func'].endswith(('copy', 'scal')), r


def test_numpy_matmul_is_cblas_dgemm(tmp_path):
    """numpy's A @ B (Debian's numpy: cblas_dgemm of libblas.so.3, row major, beta 0)."""
    if subprocess.run([DEBIAN_PY, '-c', 'import numpy'], capture_output=True).returncode:
        pytest.skip('no numpy for /usr/bin/python3')
    w = wrap(tmp_path, '--lib', 'libblas.so.3', *profile_args(HERE))
    code = ('import numpy as np\nA = np.arange(63.).reshape(7, 9)\n'
            'B = np.arange(27.).reshape(9, 3)\nprint((A @ B).sum())\n')
    res, tp = run_both([DEBIAN_PY, '-c', code], w, tmp_path)
    assert res.stdout == b'79947.0\n'
    gemm = [r for r in rows(tp) if r[0] == 'cblas_dgemm']
    assert gemm == [('cblas_dgemm', (7 * 9 + 9 * 3) * F64, 7 * 3 * F64, 2 * 7 * 3 * 9)]


@pytest.mark.parametrize('lib', [REF_BLAS, OPENBLAS], ids=['reference', 'openblas'])
def test_whole_profile_builds(tmp_path, lib):
    """Every prototype of the headers wrapped, every block of blas.defs compiled into a
    wrapper of a real library, and none that matches no function (a warning)."""
    if not os.path.exists(lib):
        pytest.skip(f'{lib} is not installed')
    err = build_everything(tmp_path, lib, HERE)
    assert int(re.search(r'(\d+) functions wrapped', err).group(1)) >= 296
    listed = dyliberator('--lib', lib, *profile_args(HERE), '--list').stdout
    assert set(re.findall(r'^wrap (\S+)', listed, re.M)) == set(defs_functions(DEFS))
