"""The lapack profile (profile.toml, lapack.h, lapack.defs): the work (flops, LAWN 41) and
bytes of real LAPACK calls, counted by hand here, through the reference LAPACK, numpy
and OpenBLAS.

The wrappers are built with the profile's header, .defs and functions given explicitly
(--header, --defs, -f), so these tests hold with or without dyliberator's --profile."""
import fnmatch
import os
import re
import subprocess

import pytest

from dyltest import DEBIAN_PY, REF_BLAS, REF_LAPACK, build_c, dyliberator, run_both, wrap
from microgens.profiles.blas.profiletest import (build_everything, defs_functions, exports,
                                                 profile, profile_args, rows)

HERE = os.path.dirname(os.path.abspath(__file__))
DEFS = os.path.join(HERE, 'lapack.defs')
OPENBLAS = '/usr/lib/x86_64-linux-gnu/libopenblas.so.0'
F64, C128, INT = 8, 16, 4


def getrf(m, n):
    """LAWN 41 xGETRF, m >= n: m n^2 - n^3/3 - n^2/2 + 5n/6 flops."""
    return (6 * m * n * n - 2 * n ** 3 - 3 * n * n + 5 * n) // 6


def test_files_are_what_the_script_writes():
    r = subprocess.run([DEBIAN_PY, os.path.join(HERE, 'gen_defs.py'), '--check'])
    assert r.returncode == 0, 'lapack.h or lapack.defs differs from gen_defs.py\'s output'


def test_functions_are_the_routines_with_defs():
    names = defs_functions(DEFS)
    assert len(names) == len(set(names)) == 70
    exported = exports(REF_LAPACK)
    pats = profile(HERE)['functions']
    assert {e for e in exported if any(fnmatch.fnmatchcase(e, p) for p in pats)} == set(names)


def test_c_program_counts(tmp_path):
    w = wrap(tmp_path, '--lib', REF_LAPACK, *profile_args(HERE))
    dirs = f'{os.path.dirname(REF_LAPACK)}:{os.path.dirname(REF_BLAS)}'
    app = build_c(tmp_path, os.path.join(HERE, 'apps', 'lapack_calls.c'), 'lapack_calls',
                  '-Wall', '-Werror', REF_LAPACK, REF_BLAS, f'-Wl,-rpath,{dirs}')
    _, tp = run_both([app], w, tmp_path)
    assert getrf(6, 4) == 70 and getrf(5, 5) == 75
    getrs = 2 * (2 * 5 * 5 - 5)     # NRHS (2 N^2 - N)
    assert rows(tp) == [
        # A 6 x 4 read and written, 4 pivots written
        ('dgetrf_', 24 * F64, 24 * F64 + 4 * INT, 70),
        ('dgetrf_', 25 * F64, 25 * F64 + 5 * INT, 75),
        # LU 5 x 5, B 5 x 2 and 5 pivots read; B written
        ('dgetrs_', (25 + 10) * F64 + 5 * INT, 10 * F64, getrs),
        # A and B read and written, pivots written; getrf + getrs
        ('dgesv_', (25 + 10) * F64, (25 + 10) * F64 + 5 * INT, 75 + getrs),
        # one triangle: 15 elements; n^3/3 + n^2/2 + n/6
        ('dpotrf_', 15 * F64, 15 * F64, (2 * 5**3 + 3 * 5**2 + 5) // 6),
        # LWORK = -1: a workspace query, nothing done
        ('dgeqrf_', 0, 0, 0),
        # A 6 x 4, tau 4; LAWN 41: 122 multiplications + 86 additions
        ('dgeqrf_', 24 * F64, (24 + 4) * F64, 122 + 86),
        # complex 3 x 3: 11 multiplications, 5 additions: 6 x 11 + 2 x 5
        ('zgetrf_', 9 * C128, 9 * C128 + 3 * INT, 76),
        # singular 3 x 3 (INFO 3): factored, not solved, so getrf's work alone
        ('dgesv_', (9 + 3) * F64, (9 + 3) * F64 + 3 * INT, getrf(3, 3)),
    ]
    # the reference dgesv_ calls dgetrf_ and dgetrs_: their work adds up to its own
    top = rows(tp)
    assert rows(tp, '1') == [top[1], top[2], ('dgetrf_', 9 * F64, 9 * F64 + 3 * INT, 16)]


def test_numpy_solve_is_dgesv(tmp_path):
    """numpy.linalg.solve and eigvals: dgesv_ and dgeev_ of liblapack.so.3 (whichever
    LAPACK Debian's alternatives name: reference or OpenBLAS)."""
    if subprocess.run([DEBIAN_PY, '-c', 'import numpy'], capture_output=True).returncode:
        pytest.skip('no numpy for /usr/bin/python3')
    w = wrap(tmp_path, '--lib', 'liblapack.so.3', *profile_args(HERE))
    code = ('import numpy as np\nA = np.eye(5) * 4 + np.ones((5, 5))\n'
            'print(np.linalg.solve(A, np.arange(5.)).round(3))\n'
            'np.linalg.solve(A, np.ones((5, 3)))\nnp.linalg.eigvals(A)\n')
    _, tp = run_both([DEBIAN_PY, '-c', code], w, tmp_path)
    assert rows(tp) == [
        ('dgesv_', (25 + 5) * F64, (25 + 5) * F64 + 5 * INT, 75 + 1 * 45),
        ('dgesv_', (25 + 15) * F64, (25 + 15) * F64 + 5 * INT, 75 + 3 * 45),
        # eigvals: dgeev_ N N, a workspace query first; A destroyed, 2N reals out; 10 N^3
        ('dgeev_', 0, 0, 0),
        ('dgeev_', 25 * F64, (25 + 2 * 5) * F64, 10 * 5**3),
    ]


@pytest.mark.parametrize('lib', [REF_LAPACK, OPENBLAS], ids=['reference', 'openblas'])
def test_whole_profile_builds(tmp_path, lib):
    """Every routine of lapack.defs compiled into a wrapper of a real library, and none
    that matches no function (a warning)."""
    if not os.path.exists(lib):
        pytest.skip(f'{lib} is not installed')
    assert re.search(r'\b70 functions wrapped', build_everything(tmp_path, lib, HERE))
    listed = dyliberator('--lib', lib, *profile_args(HERE), '--list').stdout
    assert set(re.findall(r'^wrap (\S+)', listed, re.M)) == set(defs_functions(DEFS))
