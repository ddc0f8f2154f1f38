"""scipy's LU through f2py (examples/scipy_lu.py), factor once and solve 5 times, N 200,
with std.flow's host reads and std.diff: what a port that keeps the factors on the
accelerator moves.  f2py's wrappers pass m, n, lda, nrhs and info by reference from
their own C frames, in a stripped extension (no debug information to name them): each
counts its own bytes, not the rest of the frame (charge.c frame_end: a pointer ends at
the next argument above it in the frame, the highest number of a Fortran-style routine
is its own element)."""
import json
import os

import pytest

from dyltest import has_scipy_and_lapack, EXAMPLES, REF_LAPACK, ROOT, Trace, run, run_both, wrap

PY = '/usr/bin/python3'
N, STEPS = 200, 5
A, B, PIV = N * N * 8, N * 8, N * 4


@pytest.mark.skipif(not has_scipy_and_lapack(), reason='needs python3-scipy and liblapack3')
def test_f2py_scalars_by_reference_count_their_own_bytes(tmp_path):
    w = wrap(tmp_path, '--lib', REF_LAPACK, '--header', os.path.join(EXAMPLES, 'lapack.h'),
             '--defs', os.path.join(EXAMPLES, 'resid-real.defs'), '-f', 'dgetrf_', '-f', 'dgetrs_',
             '-g', 'std.flow:host_reads=on', '-g', 'std.diff')
    env = {'LD_LIBRARY_PATH': os.path.dirname(REF_LAPACK), 'OPENBLAS_NUM_THREADS': '1'}
    _, tp = run_both([PY, os.path.join(EXAMPLES, 'scipy_lu.py'), str(N), str(STEPS)], w, tmp_path,
                     env=env)
    assert [r['func'] for r in Trace(tp).by_seq()] == ['dgetrf_'] + ['dgetrs_'] * STEPS
    models = [os.path.join(ROOT, 'models', m)
              for m in ('example-gpu-lu-compute.csv', 'link-pcie4-x16.csv')]
    sp = json.loads(run([os.path.join(ROOT, 'bin', 'dyl-speedup'), '--json', tp] + models).stdout)
    # f2py's frames, what each call read of them: dgetrf_ 16 bytes, the span from &m
    # to &info (m and n, 4 bytes each, and 4 bytes of padding or another local between
    # them and info) and info, which f2py set to 0 before the call (the program's change
    # since the last look, so an input too).  dgetrs_ the same 16 the first time (n,
    # nrhs, the 4 between, info), then 12 (info was 0 already: not changed, not read).
    # Before, each pointer reached the end of the frame's data: 80 and 380 bytes a call.
    flows = run([os.path.join(ROOT, 'bin', 'dyl-flow'), '--via-objects', tp]).stdout.splitlines()
    assert 'frame,dgetrf_,16,read' in flows
    assert f'frame,dgetrs_,{16 + 12 * (STEPS - 1)},read' in flows
    # the program reads each call's info after it (a stack output is assumed read): 4 B
    assert f'frame,host,{4 * (1 + STEPS)},read' in flows
    # h2d: A, each b, and the scalars once: the values that did not change since the
    # accelerator got them (n, nrhs, info 0 again) do not move again
    assert sp['h2d_bytes'] == A + STEPS * B + 16 + 16, sp
    assert sp['h2d_transfers'] == 2 + STEPS + 1, sp
    # d2h: each x and the pivots; no info (std.diff: 0 before and after, no write).
    # Beyond them, host reads of the factors' block that host_reads cannot watch (its
    # edge pages are shared with other blocks: assumed read after dgetrf_); how many
    # bytes depends on where the block lies, under a page at each edge.
    extra = sp['d2h_bytes'] - (STEPS * B + PIV)
    assert 0 <= extra < 2 * 4096, sp
    # per kernel: dgetrs_ the 5 b and its 16 bytes of scalars, dgetrf_ A and its 16
    assert sorted(r['h2d_bytes'] for r in sp['kernels']) == [STEPS * B + 16, A + 16], sp
