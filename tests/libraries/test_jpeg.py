"""libjpeg (Debian's libjpeg62-turbo) under cjpeg and djpeg: the wrapper chosen with
--app, identical outputs plain and wrapped, scanline call counts derived from the image
size, exact bytes per call from examples/jpeg.defs, nested calls (djpeg -skip)."""
import math
import os
import re
import subprocess

import pytest

from dyltest import EXAMPLES, Trace, dyliberator, lib_path, list_verdicts, readelf_dynsyms, run, run_both, wrap

LIBJPEG = 'libjpeg.so.62'
CJPEG, DJPEG = '/usr/bin/cjpeg', '/usr/bin/djpeg'
DEFS = os.path.join(EXAMPLES, 'jpeg.defs')

pytestmark = pytest.mark.skipif(
    not (os.path.exists(CJPEG) and os.path.exists(DJPEG)
         and os.path.exists('/usr/include/jpeglib.h')),
    reason='needs libjpeg-turbo-progs and libjpeg-dev')


def make_pnm(width, height, gray=False):
    """A deterministic, smooth test image: binary PPM (P6) or, if GRAY, PGM (P5)."""
    px = bytearray()
    for y in range(height):
        for x in range(width):
            r = (x * 255) // max(width - 1, 1)
            g = (y * 255) // max(height - 1, 1)
            b = int(128 + 100 * math.sin(x / 9.0) * math.cos(y / 7.0))
            px += bytes(((r + g + b) // 3,)) if gray else bytes((r, g, b))
    return b'P%d\n%d %d\n255\n' % (5 if gray else 6, width, height) + bytes(px)


def parse_pnm(blob):
    """(width, height, components, pixel bytes) of a binary PGM/PPM."""
    m = re.match(rb'P([56])\s+(\d+)\s+(\d+)\s+(\d+)\s', blob)
    assert m, blob[:20]
    comps = 1 if m.group(1) == b'5' else 3
    w, h = int(m.group(2)), int(m.group(3))
    pixels = blob[m.end():]
    assert len(pixels) == w * h * comps
    return w, h, comps, pixels


def _imports(exe):
    """Function names EXE takes from other objects (nm -D), without versions."""
    out = run(['nm', '-D', '--undefined-only', exe]).stdout
    return {line.split()[-1].split('@')[0] for line in out.splitlines() if line.strip()}


def _run_both_to_file(cmd_for, wrapper, tmp_path, out_name, stdin=None):
    """run_both on CMD_FOR(OUT), then a plain run into another file: the wrapped run's
    output file must equal the plain one.  Returns (wrapped run, trace, file bytes)."""
    wrapped, trace = run_both(cmd_for(out_name), wrapper, tmp_path, stdin=stdin)
    with open(os.path.join(str(tmp_path), out_name), 'rb') as f:
        got = f.read()
    plain_name = 'plain.' + out_name
    subprocess.run(cmd_for(plain_name), cwd=str(tmp_path), input=stdin, check=True,
                   capture_output=True)
    with open(os.path.join(str(tmp_path), plain_name), 'rb') as f:
        want = f.read()
    assert got == want, f'{out_name}: the wrapped run wrote other bytes than the plain run'
    return wrapped, trace, got


def _write(tmp_path, name, blob):
    path = os.path.join(str(tmp_path), name)
    with open(path, 'wb') as f:
        f.write(blob)
    return path


# ---------------------------------------------------------------------------------------

@pytest.fixture(scope='module')
def cjpeg_wrapper(tmp_path_factory):
    d = tmp_path_factory.mktemp('cjpeg_wrap')
    so = wrap(d, '--lib', LIBJPEG, '--app', CJPEG, '--defs', DEFS, name='cjpeg.so')
    return so, so[:-3] + '.d'


@pytest.fixture(scope='module')
def djpeg_wrapper(tmp_path_factory):
    d = tmp_path_factory.mktemp('djpeg_wrap')
    return wrap(d, '--lib', LIBJPEG, '--app', DJPEG, '--defs', DEFS, name='djpeg.so')


@pytest.fixture(scope='module')
def libjpeg_syms():
    return readelf_dynsyms(lib_path(LIBJPEG))


def test_programs_link_libjpeg_only():
    """What the wrapper must cover: cjpeg and djpeg use libjpeg.so.62, not libturbojpeg."""
    for exe in (CJPEG, DJPEG):
        out = run(['ldd', exe]).stdout
        assert 'libjpeg.so.62' in out and 'libturbojpeg' not in out


@pytest.mark.parametrize('exe', [CJPEG, DJPEG])
def test_list_is_what_the_app_imports(exe, libjpeg_syms):
    r = dyliberator('--lib', LIBJPEG, '--app', exe, '--list')
    k = list_verdicts(r.stdout)
    funcs = {n for n, s in libjpeg_syms.items() if s[0] == 'FUNC'}
    imported = _imports(exe) & funcs
    assert set(k['wrap']) == imported
    assert ('jpeg_write_scanlines' if exe == CJPEG else 'jpeg_read_scanlines') in k['wrap']
    # the rest of the library's functions are skipped because the app does not import them
    for name in funcs - imported:
        assert k['skip'][name] == 'not imported by the --app program(s)', name
    # data symbols are never wrapped, and said so; version definitions are no symbols at all
    data = {n for n, s in libjpeg_syms.items() if s[0] == 'OBJECT' and s[1] != 'ABS'}
    version_defs = {n for n, s in libjpeg_syms.items() if s[1] == 'ABS'}
    assert {'jpeg_std_message_table', 'jpeg_natural_order'} <= data
    assert {'LIBJPEG_6.2', 'LIBJPEGTURBO_6.2'} <= version_defs
    for name in data:
        assert k['skip'][name] == 'data symbol, not a function'
    assert not version_defs & (set(k['wrap']) | set(k['skip']) | set(k['none']))


def test_versioned_symbols(cjpeg_wrapper, libjpeg_syms):
    _, out_dir = cjpeg_wrapper
    with open(os.path.join(out_dir, 'wrap.c')) as f:
        text = f.read()
    # name and version: in the shared steps' descriptor (dyl_wcall.h) or a dyl_load call
    resolved = dict(re.findall(r'(?:dyl_load\(|struct dyl_wsym dyl_ws = \{ )&dyl_lib_\d+, '
                               r'"([^"]+)", "([^"]+)"', text))
    assert resolved['jpeg_write_scanlines'] == 'LIBJPEG_6.2'
    assert resolved['jpeg_mem_dest'] == 'LIBJPEGTURBO_6.2'    # a libjpeg-turbo addition
    assert set(resolved) == _imports(CJPEG) & {n for n, s in libjpeg_syms.items() if s[0] == 'FUNC'}
    for name, ver in resolved.items():
        assert libjpeg_syms[name][2] == ver, name


# ---------------------------------------------------------------------------------------
# cjpeg

def _check_compress_trace(t, width, height, comps, progressive=False):
    rows = t.by_seq()
    # libjpeg calls some of its own exported functions: jpeg_set_defaults sets the
    # quality tables and the colorspace through them, which nests those calls
    outer = None
    for r in rows:
        if r['depth'] == '0':
            outer = r['func']
        else:
            assert outer in ('jpeg_set_defaults', 'jpeg_default_colorspace'), r
            assert r['func'] not in ('jpeg_write_scanlines', 'jpeg_start_compress',
                                     'jpeg_finish_compress'), r
    assert t.count('jpeg_set_defaults') == 1
    assert any(r['depth'] != '0' for r in rows)
    assert t.count('jpeg_CreateCompress') == t.count('jpeg_destroy_compress') == 1
    assert t.count('jpeg_start_compress') == t.count('jpeg_finish_compress') == 1
    assert t.count('jpeg_simple_progression') == (1 if progressive else 0)
    # cjpeg hands libjpeg one row per call (its readers return one row at a time)
    writes = [r for r in rows if r['func'] == 'jpeg_write_scanlines']
    assert len(writes) == height
    funcs = [r['func'] for r in rows]
    start, finish = funcs.index('jpeg_start_compress'), funcs.index('jpeg_finish_compress')
    assert all(start < i < finish for i, f in enumerate(funcs) if f == 'jpeg_write_scanlines')
    # examples/jpeg.defs: the rows consumed times the bytes of a row
    assert [(int(r['in_bytes']), int(r['out_bytes']), int(r['work'])) for r in writes] \
        == [(width * comps, 0, width * comps)] * height
    assert sum(int(r['in_bytes']) for r in writes) == width * height * comps
    # calls without definitions have no estimate
    assert all(r['in_bytes'] == '' for r in rows if r['func'] != 'jpeg_write_scanlines')
    assert int(t.meta['total_ns']) > 0


@pytest.mark.parametrize('width,height,gray,opts', [
    (97, 61, False, ['-quality', '85']),
    (200, 150, False, ['-quality', '90', '-progressive']),
    (64, 1, False, []),
    (45, 77, True, ['-quality', '75']),
])
def test_cjpeg(cjpeg_wrapper, width, height, gray, opts, tmp_path):
    so, _ = cjpeg_wrapper
    img = _write(tmp_path, 'in.pnm', make_pnm(width, height, gray))
    comps = 1 if gray else 3
    progressive = '-progressive' in opts

    # to stdout (compared by run_both)
    r, trace = run_both([CJPEG, *opts, img], so, tmp_path, trace='stdout.csv')
    jpeg = r.stdout
    assert jpeg[:2] == b'\xff\xd8' and jpeg[-2:] == b'\xff\xd9'
    _check_compress_trace(Trace(trace), width, height, comps, progressive)

    # to a file (compared with a plain run's file)
    _, trace, got = _run_both_to_file(lambda out: [CJPEG, *opts, '-outfile', out, img],
                                      so, tmp_path, 'out.jpg')
    assert got == jpeg
    _check_compress_trace(Trace(trace), width, height, comps, progressive)


def test_cjpeg_from_stdin(cjpeg_wrapper, tmp_path):
    so, _ = cjpeg_wrapper
    blob = make_pnm(33, 40)
    r, trace = run_both([CJPEG, '-quality', '80'], so, tmp_path, stdin=blob)
    assert r.stdout[:2] == b'\xff\xd8'
    _check_compress_trace(Trace(trace), 33, 40, 3)


# ---------------------------------------------------------------------------------------
# djpeg

@pytest.fixture(scope='module')
def source_jpeg(tmp_path_factory):
    """A 200x150 RGB image and its JPEG (made by cjpeg, unwrapped)."""
    d = tmp_path_factory.mktemp('jpeg_src')
    pnm = make_pnm(200, 150)
    img = _write(d, 'src.ppm', pnm)
    jpg = os.path.join(str(d), 'src.jpg')
    run([CJPEG, '-quality', '92', '-outfile', jpg, img])
    return jpg, pnm


H, W = 150, 200     # the source image


@pytest.mark.parametrize('opts,out_w,out_h,skips', [
    ([], W, H, 0),
    (['-grayscale'], W, H, 0),
    (['-scale', '1/2'], W // 2, H // 2, 0),
    (['-fast', '-scale', '3/8'], math.ceil(W * 3 / 8), math.ceil(H * 3 / 8), 0),
    (['-skip', '10,39'], W, H - 30, 1),                # rows 10..39 skipped in one call
    (['-crop', '64x50+16+20'], 64, 50, 2),             # the rows above and below skipped
])
def test_djpeg(djpeg_wrapper, source_jpeg, opts, out_w, out_h, skips, tmp_path):
    jpg, original = source_jpeg
    r, trace = run_both([DJPEG, *opts, jpg], djpeg_wrapper, tmp_path, trace='stdout.csv')
    w, h, comps, pixels = parse_pnm(r.stdout)
    assert (w, h) == (out_w, out_h)
    assert comps == (1 if '-grayscale' in opts else 3)
    _, trace2, got = _run_both_to_file(lambda out: [DJPEG, *opts, '-outfile', out, jpg],
                                       djpeg_wrapper, tmp_path, 'out.pnm')
    assert got == r.stdout

    if not opts:
        # a sanity check of the decoder itself: close to the original pixels
        ow, oh, _, opix = parse_pnm(original)
        assert (w, h) == (ow, oh)
        assert sum(abs(a - b) for a, b in zip(pixels, opix)) / len(opix) < 6

    for path in (trace, trace2):
        t = Trace(path)
        assert t.count('jpeg_read_header') == 1
        assert t.count('jpeg_start_decompress') == t.count('jpeg_finish_decompress') == 1
        assert t.count('jpeg_skip_scanlines') == skips
        assert t.count('jpeg_crop_scanline') == (1 if '-crop' in opts else 0)
        rows = t.by_seq()
        reads = [row for row in rows if row['func'] == 'jpeg_read_scanlines']
        top = [row for row in reads if row['depth'] == '0']
        # djpeg asks for one row per call: one call per output row it writes, and
        # examples/jpeg.defs counts the bytes of each row returned
        assert len(top) == h
        assert [int(row['out_bytes']) for row in top] == [w * comps] * h
        assert sum(int(row['out_bytes']) for row in top) == len(pixels)
        assert all(int(row['in_bytes']) == 0 for row in reads)
        # jpeg_skip_scanlines reads (and drops) the rest of an iMCU row itself: those
        # calls are nested in it (depth 1), not part of the output
        outer = None
        for row in rows:
            if row['depth'] == '0':
                outer = row['func']
            elif row['func'] == 'jpeg_read_scanlines':
                assert row['depth'] == '1' and outer == 'jpeg_skip_scanlines', row
        if not skips:
            assert len(reads) == len(top)
