"""dyl-flow on real libraries, end to end (issue 23, "Real libraries"): LAPACK's dgesv_
over the reference BLAS (nested calls stay inside their outer call), libjpeg compressing
and decompressing, zlib streaming, and a power iteration over OpenBLAS.  The apps are
examples/apps/flow_*.c; each fixes the bytes it moves, or prints what depends on the
library's version (a compressed size, how many elements an LU factorisation changed), so
every expectation is exact.  Objects are found by the /* SITE TAG */ marks in the apps."""
import os
import re
import subprocess

import pytest

from flowrun import dyl_flow, edges, marked_site, rows

from dyltest import (EXAMPLES, REF_BLAS, REF_LAPACK, ROOT, Trace, build_c, make, run_both,
                     wrap)

APPS = os.path.join(EXAMPLES, 'apps')
HERE = os.path.dirname(os.path.abspath(__file__))
OPENBLAS = '/usr/lib/x86_64-linux-gnu/openblas-serial/libblas.so.3'


def site(app, tag):
    """'app.c:LINE' of the allocation marked /* SITE TAG */ in examples/apps/APP."""
    return marked_site(os.path.join(APPS, app), tag)


def obj(trace, app, tag):
    """--objects' row of the heap object allocated at SITE TAG of APP."""
    want = f'main ({site(app, tag)})'
    got = [r for r in rows(dyl_flow(trace, '--objects')) if r['object'] == want]
    assert len(got) == 1, (want, dyl_flow(trace, '--objects'))
    return got[0]


# --- LAPACK dgesv_ over the reference BLAS ----------------------------------------------

N = 40


@pytest.fixture(scope='module')
def dgesv(tmp_path_factory):
    make('bin/dyl-flow')
    d = tmp_path_factory.mktemp('dgesv')
    libs = [REF_LAPACK, REF_BLAS]
    app = build_c(d, os.path.join(APPS, 'flow_dgesv.c'), 'flow_dgesv', *libs,
                  '-Wl,-rpath,' + ':'.join(os.path.dirname(p) for p in libs))
    args = ['--lib', REF_LAPACK, '--header', os.path.join(EXAMPLES, 'lapack.h'),
            '--lib', REF_BLAS, '-g', 'std.flow']
    return d, app, wrap(d, *args), wrap(d, *args, '-g', 'std.diff', name='wrap-diff.so')


def dgesv_run(dgesv, wrapper, name):
    d, app, _, _ = dgesv
    r, t = run_both([app, str(N)], wrapper, d, trace=name)
    m = re.match(r'dgesv info=0 changed A=(\d+) x=(\d+)\n', r.stdout.decode())
    assert m, r.stdout
    return t, int(m.group(1)), int(m.group(2))


# Without std.diff: dgesv_ calls dgetrf_, dgetrs_, dgemm_, dtrsm_... inside; the trace
# has them at depth > 0, the flow names dgesv_ only.  A (a non-const pointer) is written
# whole by dgesv_, read by nobody: std.regions cannot tell an in-out buffer.  x (b) goes
# from dgesv_ to dgemv_ whole.
def test_dgesv_nested_calls_stay_inside(dgesv):
    t, _, _ = dgesv_run(dgesv, dgesv[2], 'plain.csv')
    tr = Trace(t)
    assert {r['func'] for r in tr.rows if r['depth'] == '0'} == {'dgesv_', 'dgemv_'}
    inner = {r['func'] for r in tr.rows if r['depth'] != '0'}
    assert {'dgetrf_', 'dgemm_', 'dtrsm_'} <= inner
    e = edges(t)
    assert {n for pair in e for n in pair} == {'host', 'dgesv_', 'dgemv_'}
    assert e[('dgesv_', 'dgemv_')] == (8 * N, 8 * N, 8 * N)
    assert e[('host', 'dgesv_')] == (8, 8, 8)      # n and nrhs (lda, ldb are &n)
    a = obj(t, 'flow_dgesv.c', 'A')
    assert (a['size'], a['call_read'], a['call_written']) == (str(8 * N * N), '0', str(8 * N * N))
    # dgemv_ reads A's copy whole, from the program
    a0 = obj(t, 'flow_dgesv.c', 'A0')
    assert (a0['call_read'], a0['call_written']) == (str(8 * N * N), '0')
    assert not [r for r in rows(dyl_flow(t, '--calls')) if r['func'] != 'dgesv_'
                and r['func'] != 'dgemv_']


# With std.diff: the program wrote every element of A and b (none is zero), so dgesv_
# reads them from host; it writes the elements the LU factors and the solution changed,
# as many as the program counted itself.  dgemv_ then reads x's changed elements from
# dgesv_, the rest of x and everything else from host.
def test_dgesv_in_out_with_diff(dgesv):
    t, ca, cx = dgesv_run(dgesv, dgesv[3], 'diff.csv')
    assert 0 < ca <= N * N and 0 < cx <= N
    e = edges(t)
    # A, b, n, nrhs and info (set to -99 by the program, an in-out int)
    a_b = 8 * N * N + 8 * N + 4 + 4 + 4
    assert e[('host', 'dgesv_')] == (a_b, a_b, a_b)
    assert e[('dgesv_', 'dgemv_')] == (8 * cx, 8 * cx, 8 * cx)
    # A's copy, r (in-out), n, trans, alpha, beta, incx, x's unchanged elements
    h = 8 * N * N + 8 * N + 4 + 1 + 8 + 8 + 4 + 8 * (N - cx)
    assert e[('host', 'dgemv_')] == (h, h, h)
    assert set(e) == {('host', 'dgesv_'), ('dgesv_', 'dgemv_'), ('host', 'dgemv_')}
    a = obj(t, 'flow_dgesv.c', 'A')
    assert (a['call_read'], a['call_written'], a['host_written']) == (
        str(8 * N * N), str(8 * ca), str(8 * N * N))
    b = obj(t, 'flow_dgesv.c', 'B')
    assert (b['call_read'], b['call_written']) == (str(8 * N + 8 * N), str(8 * cx))


# --- libjpeg ---------------------------------------------------------------------------

W, H, ROWS = 64, 48, 8
JPEG = pytest.mark.skipif(not os.path.exists('/usr/include/jpeglib.h'), reason='needs libjpeg-dev')


@pytest.fixture(scope='module')
def jpeg(tmp_path_factory):
    make('bin/dyl-flow')
    d = tmp_path_factory.mktemp('jpeg')
    app = build_c(d, os.path.join(APPS, 'flow_jpeg.c'), 'flow_jpeg', '-ljpeg')
    base = ['--lib', 'libjpeg.so.62', '--app', app, '-g', 'std.flow']
    return (d, app, wrap(d, *base, '--defs', os.path.join(EXAMPLES, 'jpeg.defs'), name='sizes.so'),
            wrap(d, *base, '--defs', os.path.join(EXAMPLES, 'jpeg-flow.defs'), name='flow.so'))


def jpeg_run(jpeg, wrapper, name):
    d, app, _, _ = jpeg
    r, t = run_both([app, str(W), str(H), str(ROWS)], wrapper, d, trace=name)
    m = re.match(r'compressed \d+x\d+ to (\d+) bytes\n', r.stdout.decode())
    assert m, r.stdout
    return t, int(m.group(1))


# What std.regions sees: JSAMPARRAY is JSAMPROW * (not const), so jpeg_write_scanlines
# "writes" the image, from each call's first row to the block's end (calls at rows
# 0, 8, ..., 40); nothing flows into it.  The trace's bytes are jpeg.defs' exact ones.
@JPEG
def test_jpeg_what_regions_see(jpeg):
    t, _ = jpeg_run(jpeg, jpeg[2], 'sizes.csv')
    row = W * 3
    img = obj(t, 'flow_jpeg.c', 'IMG')
    assert img['call_read'] == '0'
    assert img['call_written'] == str(sum(W * H * 3 - r * row for r in range(0, H, ROWS)))
    assert not [p for p in edges(t) if p[1] == 'jpeg_write_scanlines']
    tr = Trace(t)
    assert {r['in_bytes'] for r in tr.rows if r['func'] == 'jpeg_write_scanlines'} == {str(ROWS * row)}


# With examples/jpeg-flow.defs: the image's rows go from the program to
# jpeg_write_scanlines once each; jpeg_read_scanlines writes every row of the output;
# jpeg_mem_src reads the compressed bytes, which the compressing calls wrote through the
# destination manager (how they split among jpeg_start_compress, jpeg_write_scanlines and
# jpeg_finish_compress is libjpeg's affair; their sum is the compressed size).
@JPEG
def test_jpeg_scanlines_with_defs(jpeg):
    t, size = jpeg_run(jpeg, jpeg[3], 'flow.csv')
    img_bytes = W * H * 3
    e = edges(t)
    assert e[('host', 'jpeg_write_scanlines')] == (img_bytes, img_bytes, img_bytes)
    into_src = {p: v for (p, c), v in e.items() if c == 'jpeg_mem_src'}
    assert 'jpeg_write_scanlines' in into_src
    assert set(into_src) <= {'jpeg_start_compress', 'jpeg_write_scanlines', 'jpeg_finish_compress'}
    assert sum(v[0] for v in into_src.values()) == sum(v[1] for v in into_src.values()) == size
    assert set(e) == {('host', 'jpeg_write_scanlines')} | {(p, 'jpeg_mem_src') for p in into_src}
    img, out = obj(t, 'flow_jpeg.c', 'IMG'), obj(t, 'flow_jpeg.c', 'OUT')
    assert (img['call_read'], img['call_written']) == (str(img_bytes), '0')
    assert (out['call_read'], out['call_written'], out['alloc_pct']) == ('0', str(img_bytes), '100.0')
    calls = [r for r in rows(dyl_flow(t, '--calls')) if r['func'] == 'jpeg_write_scanlines'
             and r['object'] == img['object']]
    assert len(calls) == H // ROWS
    assert {r['read_bytes'] for r in calls} == {str(ROWS * W * 3)}


# --- zlib ------------------------------------------------------------------------------

ZN, ZCHUNK = 100000, 4096
ZLIB = pytest.mark.skipif(not os.path.exists('/usr/include/zlib.h'), reason='needs zlib1g-dev')


@pytest.fixture(scope='module')
def zlib(tmp_path_factory):
    make('bin/dyl-flow')
    d = tmp_path_factory.mktemp('zlib')
    app = build_c(d, os.path.join(APPS, 'flow_zlib.c'), 'flow_zlib', '-lz')
    base = ['--lib', 'libz.so.1', '--app', app, '-g', 'std.flow']
    return d, app, wrap(d, *base, name='plain.so'), wrap(
        d, *base, '--defs', os.path.join(EXAMPLES, 'zlib.defs'), name='defs.so')


def zlib_run(zlib, wrapper, name):
    d, app, _, _ = zlib
    r, t = run_both([app, str(ZN), str(ZCHUNK)], wrapper, d, trace=name)
    m = re.match(r'deflate: \d+ bytes to (\d+) in \d+ calls \(end\)\n'
                 r'inflate: \d+ bytes back in \d+ calls \(end\), crc32 equal\n', r.stdout.decode())
    assert m, r.stdout
    return t, int(m.group(1))


# std.regions sees the z_stream only: deflate and inflate write it, read nothing; the
# text and the inflated text reach crc32 (a length argument bounds them) from the
# program, as far as std.flow can tell.
@ZLIB
def test_zlib_what_regions_see(zlib):
    t, _ = zlib_run(zlib, zlib[2], 'plain.csv')
    e = edges(t)
    # (the init calls read the version string, "1.2.13" and its NUL here)
    assert set(e) == {('host', 'crc32'), ('host', 'deflateInit_'), ('host', 'inflateInit_')}
    assert e[('host', 'crc32')] == (2 * ZN, 2 * ZN, 2 * ZN)


# With examples/zlib.defs: the text goes to deflate once, the compressed bytes from
# deflate to inflate, the inflated text from inflate to the second crc32.
@ZLIB
def test_zlib_streaming_with_defs(zlib):
    t, clen = zlib_run(zlib, zlib[3], 'defs.csv')
    e = edges(t)
    assert e[('host', 'deflate')] == (ZN, ZN, ZN)
    assert e[('deflate', 'inflate')] == (clen, clen, clen)
    assert e[('inflate', 'crc32')] == (ZN, ZN, ZN)
    assert e[('host', 'crc32')] == (ZN, ZN, ZN)
    assert set(e) == {('host', 'deflate'), ('deflate', 'inflate'), ('inflate', 'crc32'),
                      ('host', 'crc32'), ('host', 'deflateInit_'), ('host', 'inflateInit_')}
    comp = obj(t, 'flow_zlib.c', 'COMP')
    assert (comp['call_written'], comp['call_read'], comp['prod_pct']) == (str(clen), str(clen), '100.0')
    back = obj(t, 'flow_zlib.c', 'BACK')
    assert (back['call_written'], back['call_read']) == (str(ZN), str(ZN))


# --- power iteration over OpenBLAS -------------------------------------------------------

# tests/tools/flow_power.c (test_dyl_flow_run.py runs it over the reference BLAS) over
# OpenBLAS: its dgemv_ reads the whole matrix each step, so host -> dgemv_ grows with the
# steps while its unique bytes stay; the matrix object is read steps x 32768 B.
@pytest.mark.skipif(not os.path.exists(OPENBLAS), reason='needs libopenblas0-serial')
def test_power_iteration_openblas(tmp_path):
    make('bin/dyl-flow')
    app = build_c(tmp_path, os.path.join(HERE, 'flow_power.c'), 'power', f'-I{EXAMPLES}',
                  OPENBLAS, f'-Wl,-rpath,{os.path.dirname(OPENBLAS)}')
    w = wrap(tmp_path, '--lib', OPENBLAS, '--header', os.path.join(EXAMPLES, 'blas.h'),
             '-g', 'std.flow')
    got = {}
    for steps in (10, 20):
        _, t = run_both([app, '64', str(steps)], w, tmp_path, trace=f'p{steps}.csv')
        got[steps] = edges(t)
        m = [r for r in rows(dyl_flow(t, '--objects')) if 'flow_power.c:12' in r['object']][0]
        assert (m['size'], m['call_read']) == ('32768', str(steps * 32768))
    assert set(got[10]) == set(got[20]) == {('host', 'dgemv_'), ('dgemv_', 'dnrm2_'),
                                            ('host', 'dnrm2_')}
    h10, h20 = got[10][('host', 'dgemv_')], got[20][('host', 'dgemv_')]
    assert h10[1] == h20[1] and 32768 < h10[1] < 2 * 32768
    assert h20[0] == 2 * h10[0] == 20 * h10[1]
    assert got[20][('dgemv_', 'dnrm2_')] == (20 * 512, 512, 20 * 512)


# --- mapping objects' names -------------------------------------------------------------

# tests/apps/flow_maps.c maps a file and an anonymous range and hands both to dasum_:
# the file's mapping is named by its path, the anonymous one by its mmap call site.
def test_mapping_names(tmp_path):
    make('bin/dyl-flow')
    src = os.path.join(ROOT, 'tests', 'apps', 'flow_maps.c')
    app = build_c(tmp_path, src, 'flow_maps', REF_BLAS, f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')
    w = wrap(tmp_path, '--lib', REF_BLAS, '--header', os.path.join(EXAMPLES, 'blas.h'),
             '-g', 'std.flow')
    data = os.path.join(str(tmp_path), 'doubles.bin')
    with open(data, 'wb') as f:
        f.write(b'\0\0\0\0\0\0\xf0\x3f' * 1024)      # 1024 doubles of 1.0
    r, t = run_both([app, data], w, tmp_path, trace='maps.csv')
    assert r.stdout == b'1024.0 1536.0\n'
    with open(src) as f:
        anon = [f'flow_maps.c:{n}' for n, line in enumerate(f, 1)
                if line.rstrip().endswith('/* SITE ANON */')][0]
    maps = {r['object']: r for r in rows(dyl_flow(t, '--objects')) if r['kind'] == 'mapping'}
    assert set(maps) == {data, f'main ({anon})'}
    assert {(m['size'], m['call_read']) for m in maps.values()} == {('8192', '8192')}
    assert edges(t) == {('host', 'dasum_'): (16400, 16392, 16392)}


# --- numpy (python3-numpy: make bench installs it) ---------------------------------------

def has_numpy():
    return subprocess.run(['/usr/bin/python3', '-c', 'import numpy'], capture_output=True).returncode == 0


# examples/numpy_power.py under a wrapper of the BLAS numpy uses (libblas.so.3, by
# Debian's alternatives) with cblas.h: every step's cblas_dgemv reads the matrix (n*n*8 B)
# and x (n*8 B) whole.  numpy reuses freed buffers, so x may sit where an earlier
# cblas_dgemv wrote y; without std.diff the program's write of x there is not seen, and
# those bytes come from cblas_dgemv, not from the host.  Both edges together are exact.
# The matrix's bytes are unique: they stay the same from 10 to 20 steps.
@pytest.mark.skipif(not has_numpy() or not os.path.exists('/usr/include/x86_64-linux-gnu/cblas.h'),
                    reason='needs python3-numpy and libblas-dev')
def test_power_iteration_numpy(tmp_path):
    make('bin/dyl-flow')
    w = wrap(tmp_path, '--lib', '/usr/lib/x86_64-linux-gnu/libblas.so.3',
             '--header', '/usr/include/x86_64-linux-gnu/cblas.h', '-g', 'std.flow')
    script = os.path.join(ROOT, 'examples', 'numpy_power.py')
    n = 64
    into, uniq = {}, {}
    for steps in (10, 20):
        _, t = run_both(['/usr/bin/python3', script, str(n), str(steps)], w, tmp_path,
                        trace=f'np{steps}.csv')
        e = edges(t)
        into[steps] = sum(v[0] for (p, c), v in e.items() if c == 'cblas_dgemv')
        uniq[steps] = e[('host', 'cblas_dgemv')][1]
        assert into[steps] == steps * (n * n * 8 + n * 8)
    assert uniq[20] == uniq[10] >= n * n * 8
