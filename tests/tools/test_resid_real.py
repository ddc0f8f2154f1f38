"""The residency prediction on real programs (issue 24, "Real programs";
bench/residency/real.sh at small sizes): numpy's power iteration (cblas_dgemv), an LU
factored once and solved many times (dgetrf_, dgetrs_ of the reference LAPACK), and cjpeg
(libjpeg, the negative case: every row moves in).  Each program runs under
-g std.flow:host_reads=on -g std.diff; dyl-speedup --json with a compute-only model and
the PCIe 4.0 link gives the exact, optimistic and pessimistic bytes, which are checked
against what the programs' sizes say.  numpy's test is skipped without python3-numpy,
cjpeg's without libjpeg-turbo-progs."""
import json
import os
import shutil
import subprocess

import pytest

from dyltest import EXAMPLES, REF_BLAS, REF_LAPACK, ROOT, Trace, build_c, make, run, run_both, wrap

HERE = os.path.join(ROOT, 'bench', 'residency')
MODELS = os.path.join(ROOT, 'models')
LINK = os.path.join(MODELS, 'link-pcie4-x16.csv')
DEFS = os.path.join(EXAMPLES, 'resid-real.defs')
PY = '/usr/bin/python3'


def has_numpy():
    return subprocess.run([PY, '-c', 'import numpy'], capture_output=True).returncode == 0


def speedup(trace, model):
    out = run([os.path.join(ROOT, 'bin', 'dyl-speedup'), trace, os.path.join(MODELS, model),
               LINK, '--json']).stdout
    j = json.loads(out)
    return j, {k['func']: k for k in j['kernels']}


# --- numpy: x = A @ x / |A @ x| ----------------------------------------------------------

N, STEPS = 64, 5


# A (N x N doubles) is read by every step's cblas_dgemv but moves once; x (a new array
# each step, N doubles) moves in each step; y (N doubles) comes back each step, since the
# program reads it (the norm, y / norm).  The first y is a fresh block that cblas_dgemv
# gets as an in-out buffer: std.diff counts what was there as input (at most N doubles).
@pytest.mark.skipif(not has_numpy() or not os.path.exists('/usr/include/x86_64-linux-gnu/cblas.h'),
                    reason='needs python3-numpy and libblas-dev')
def test_numpy_power_iteration(tmp_path):
    make('bin/dyl-speedup')
    blas = os.path.realpath('/usr/lib/x86_64-linux-gnu/libblas.so.3')   # what numpy loads
    w = wrap(tmp_path, '--lib', blas, '--header', '/usr/include/x86_64-linux-gnu/cblas.h',
             '--defs', DEFS, '-f', 'cblas_dgemv', '-g', 'std.flow:host_reads=on', '-g', 'std.diff')
    _, t = run_both([PY, os.path.join(EXAMPLES, 'numpy_power.py'), str(N), str(STEPS)], w,
                    tmp_path, env={'OPENBLAS_NUM_THREADS': '1'})
    j, _ = speedup(t, 'example-gpu-cblas-dgemv-compute.csv')
    assert j['calls'] == STEPS
    a, v = 8 * N * N, 8 * N
    ex, op, pe = (j['bounds'][m] for m in ('exact', 'optimistic', 'pessimistic'))
    assert j['residency_mode'] == 'exact'
    assert 0 <= ex['h2d_bytes'] - (a + STEPS * v) <= v
    assert ex['d2h_bytes'] == STEPS * v and ex['d2h_transfers'] == STEPS
    assert op['h2d_bytes'] == ex['h2d_bytes'] and op['d2h_bytes'] == 0
    # without residency A moves with every call: (STEPS - 1) matrices more
    assert pe['h2d_bytes'] - ex['h2d_bytes'] == (STEPS - 1) * a


# --- LU: dgetrf_ once, dgetrs_ per right-hand side -------------------------------------

LN, LSTEPS = 160, 4     # A: 200 KiB, a mapping of its own (glibc's malloc maps >= 128 KiB)


# A moves in once; the LU factors that dgetrf_ leaves in it stay on the accelerator for
# every dgetrs_ (the program never reads them): they never come back.  b moves in and x
# comes back each step.  ipiv (N ints) and info, written by dgetrf_, are too small to be
# watched (a block sharing its pages, the stack): assumed read, they come back once.  (A
# block under 128 KiB would share its first and last pages too: those parts of the factors
# would be assumed read as well.)
# Pessimistic: dgetrs_ moves the factors, the pivots and b in each step.
def test_lu_factors_stay(tmp_path):
    make('bin/dyl-speedup')
    libs = [REF_LAPACK, REF_BLAS]
    app = build_c(tmp_path, os.path.join(HERE, 'real_lu.c'), 'real_lu', *libs,
                  '-Wl,-rpath,' + ':'.join(os.path.dirname(p) for p in libs))
    w = wrap(tmp_path, '--lib', REF_LAPACK, '--header', os.path.join(EXAMPLES, 'lapack.h'),
             '--lib', REF_BLAS, '--defs', DEFS, '-f', 'dgetrf_', '-f', 'dgetrs_',
             '-g', 'std.flow:host_reads=on', '-g', 'std.diff')
    r, t = run_both([app, str(LN), str(LSTEPS)], w, tmp_path)
    assert r.stdout.decode().startswith(f'lu info=0 steps={LSTEPS} ')
    j, k = speedup(t, 'example-gpu-lu-compute.csv')
    lu, v, piv = 8 * LN * LN, 8 * LN, 4 * LN
    ex, pe = j['bounds']['exact'], j['bounds']['pessimistic']
    assert (k['dgetrf_']['h2d_bytes'], k['dgetrs_']['h2d_bytes']) == (lu, LSTEPS * v)
    assert k['dgetrs_']['d2h_bytes'] == LSTEPS * v
    assert k['dgetrf_']['d2h_bytes'] == piv + 4          # the pivots and info, not the factors
    assert (ex['h2d_bytes'], ex['d2h_bytes']) == (lu + LSTEPS * v, LSTEPS * v + piv + 4)
    assert pe['h2d_bytes'] == lu + LSTEPS * (lu + piv + v)
    assert pe['d2h_bytes'] >= lu // 2 + LSTEPS * v       # the factors (what changed) come back


# --- cjpeg: the negative case -------------------------------------------------------------

W, H = 64, 16


def cjpeg_traced(tmp_path, width, height):
    """cjpeg compressing a WIDTH x HEIGHT image under host reads, std.diff and
    examples/jpeg-resid.defs: (its trace, the JPEG it wrote), checked to be the JPEG
    cjpeg writes without the wrapper."""
    make('bin/dyl-speedup')
    cjpeg = shutil.which('cjpeg')
    ppm_gen = build_c(tmp_path, os.path.join(HERE, 'real_ppm.c'), 'real_ppm')
    ppm = os.path.join(str(tmp_path), 'img.ppm')
    with open(ppm, 'wb') as f:
        subprocess.run([ppm_gen, str(width), str(height)], stdout=f, check=True)
    w = wrap(tmp_path, '--lib', 'libjpeg.so.62', '--app', cjpeg, '--defs',
             os.path.join(EXAMPLES, 'jpeg-resid.defs'), '-f', 'jpeg_start_compress',
             '-f', 'jpeg_write_scanlines', '-f', 'jpeg_finish_compress',
             '-g', 'std.flow:host_reads=on', '-g', 'std.diff')
    out, plain = (os.path.join(str(tmp_path), n) for n in ('out.jpg', 'plain.jpg'))
    subprocess.run([cjpeg, '-outfile', plain, ppm], check=True)
    _, t = run_both([cjpeg, '-outfile', out, ppm], w, tmp_path)   # (a file: a pipe has no ftell)
    with open(out, 'rb') as a, open(plain, 'rb') as b:
        assert a.read() == b.read()
    return t, out


# Every row the program hands jpeg_write_scanlines is new (rdppm reads it into the same
# buffer): each moves in, W * 3 bytes a call, in the exact figure and the pessimistic
# one.  The compressed bytes the calls write (out_bytes, by examples/jpeg-resid.defs) add
# up to the file's size; the pessimistic figure moves jpeg_write_scanlines' all back (a
# small image: they never wrap around the destination's 4096-byte buffer).
@pytest.mark.skipif(not shutil.which('cjpeg') or not os.path.exists('/usr/include/jpeglib.h'),
                    reason='needs libjpeg-turbo-progs and libjpeg-dev')
def test_cjpeg_rows_all_move(tmp_path):
    t, out = cjpeg_traced(tmp_path, W, H)
    size = os.path.getsize(out)
    rows = Trace(t).rows
    assert sum(int(r['out_bytes']) for r in rows) == size
    assert len([r for r in rows if r['func'] == 'jpeg_write_scanlines']) == H
    written = sum(int(r['out_bytes']) for r in rows if r['func'] == 'jpeg_write_scanlines')
    j, k = speedup(t, 'example-gpu-jpeg-compute.csv')
    s = k['jpeg_write_scanlines']
    assert (s['h2d_bytes'], s['h2d_transfers']) == (H * W * 3, H)
    pe = j['bounds']['pessimistic']
    # (pessimistic moves each block a call touches whole, once: the parts of cinfo it
    # reads with the gaps between them)
    assert j['bounds']['exact']['h2d_bytes'] <= pe['h2d_bytes']
    assert j['bounds']['exact']['d2h_bytes'] <= pe['d2h_bytes']
    assert pe['d2h_bytes'] >= written


# --- pigz: one output buffer, several deflate calls -------------------------------------

PIGZ_BYTES = 4 << 20    # 32 of pigz's 128 KiB blocks: every thread gets several


def pigz_input(path):
    """PIGZ_BYTES of text from a fixed list of words in a fixed pseudo-random order: it
    compresses to about a third, the same on every machine"""
    import random
    rnd = random.Random(33)
    words = [''.join(rnd.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(rnd.randint(2, 9)))
             for _ in range(5000)]
    out, n = [], 0
    while n < PIGZ_BYTES:
        w = rnd.choice(words) + (' ' if rnd.random() < 0.9 else '\n')
        out.append(w)
        n += len(w)
    with open(path, 'w') as f:
        f.write(''.join(out)[:PIGZ_BYTES])


# Each of pigz's compressing threads fills one output buffer with several deflate calls
# (Z_NO_FLUSH, then Z_BLOCK, Z_SYNC_FLUSH or Z_FINISH), each starting on the page where
# the last one stopped; its writer thread then write(2)s the buffer whole.  Every byte
# deflate wrote comes back once, exactly: the .gz less its 10-byte head (-n: no name,
# no time) and 8-byte tail, at every -p (with -p 2 and 4, 70 % were lost when a call's
# fault on the shared page lifted the earlier calls' pages unrecorded: issue 33).
@pytest.mark.skipif(not shutil.which('pigz') or not os.path.exists('/usr/include/zlib.h'),
                    reason='needs pigz and zlib1g-dev')
@pytest.mark.parametrize('threads', [1, 2, 4])
def test_pigz_compressed_bytes_come_back(tmp_path, threads):
    make('bin/dyl-speedup')
    src = os.path.join(str(tmp_path), 'in.txt')
    pigz_input(src)
    w = wrap(tmp_path, '--lib', 'libz.so.1', '--defs', os.path.join(EXAMPLES, 'zlib.defs'),
             '-g', 'std.flow:host_reads=on')
    with open(src, 'rb') as f:
        data = f.read()
    r, t = run_both(['pigz', '-n', '-p', str(threads)], w, tmp_path, stdin=data)
    compressed = len(r.stdout) - 10 - 8
    assert sum(int(x['out_bytes']) for x in Trace(t).rows if x['func'] == 'deflate') == compressed
    model = tmp_path / 'k.csv'
    model.write_text('func,work,t_ns\ndeflate,0,100\ndeflate,1000000,100\n')
    j, _ = speedup(t, str(model))
    assert j['residency_mode'] == 'exact'
    assert j['bounds']['exact']['d2h_bytes'] == compressed
