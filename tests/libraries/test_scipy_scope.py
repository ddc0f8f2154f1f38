"""Under one Python, numpy's BLAS (OpenBLAS, with Debian's default alternatives) and
scipy's LAPACK (reference LAPACK, by LD_LIBRARY_PATH) both define dgetrf_, each module
loaded RTLD_LOCAL.  A wrapper of reference LAPACK's dgetrf* forwards scipy's calls to
reference LAPACK, as the dynamic linker binds them (LD_DEBUG=bindings): the trace names
that file and holds the dgetrf2_ calls reference dgetrf_ makes, one per 64-column panel
(ILAENV's block size), which OpenBLAS's dgetrf_ does not make."""
import os

import pytest

from dyltest import has_scipy_and_lapack, EXAMPLES, REF_LAPACK, TEST_APPS, Trace, run_both, wrap

PY = '/usr/bin/python3'
N = 200     # panels at columns 1, 65, 129, 193


@pytest.mark.skipif(not has_scipy_and_lapack(), reason='needs python3-scipy and liblapack3')
def test_scipy_calls_reach_reference_lapack(tmp_path):
    w = wrap(tmp_path, '--lib', REF_LAPACK, '--header', os.path.join(EXAMPLES, 'lapack.h'),
             '-f', 'dgetrf*')
    env = {'LD_LIBRARY_PATH': os.path.dirname(REF_LAPACK), 'OPENBLAS_NUM_THREADS': '1'}
    _, tp = run_both([PY, os.path.join(TEST_APPS, 'scipy_lu.py'), str(N)], w, tmp_path, env=env)
    tr = Trace(tp)
    calls = sorted((r['func'], r['depth']) for r in tr.rows)
    assert calls == [('dgetrf2_', '1')] * 4 + [('dgetrf_', '0')]
    assert tr.meta['library'] == f'liblapack.so.3 {os.path.realpath(REF_LAPACK)}'
    assert 'library_generated_from' not in tr.meta
