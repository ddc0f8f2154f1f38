"""std.diff: bytes in and out from what changed in the buffers (the full method), on real
code.  Each scenario's program knows what it changed and prints the sizes the trace
must show; every scenario runs twice, with pages watched (userfaultfd) and with whole
buffers compared (DYL_DIFF_WATCH=0), and both must give the same numbers.  Then
reference BLAS, with its output unchanged."""
import os
import pytest

from dyltest import EXAMPLES, REF_BLAS, Trace, build_c, c_library, run_both, wrap, write_ppm

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'apps')
HEADER = os.path.join(C_FILES, 'dd.h')
SOURCE = os.path.join(C_FILES, 'libdd.c')
# Every scenario prints, one line per wrapped call it makes, "IN OUT" as the program
# knows them: the bytes it changed in the buffer since the call before (+ the sizeof of
# the arguments passed by value), and the bytes the call changes.  "?" where only a
# range can be said (printed as LO-HI).
APP = os.path.join(C_FILES, 'app.c')


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    # the regions' extents are what these scenarios are about: every pointer to its
    # region's end, as before lengths (their n would bound x: test_std_diff_lengths.py)
    d = tmp_path_factory.mktemp('diff')
    lib, h = c_library(d, 'dd', HEADER, SOURCE)
    app = build_c(d, APP, 'app', f'-I{d}', lib, f'-Wl,-rpath,{d}', '-lpthread', '-ldl')
    w = wrap(d, '--lib', lib, '--header', h, '-g', 'std.diff:lengths=off')
    return d, app, w


MODES = {'watch': {}, 'compare': {'DYL_DIFF_WATCH': '0'}}


def run_scenario(built, what, mode):
    d, app, w = built
    r, tp = run_both([app, what, f'{what}-{mode}.stats'], w, d, env=MODES[mode], trace=f'{what}-{mode}.csv')
    t = Trace(tp)
    assert t.meta['regions_heap'] == 'tracked'
    assert t.meta['diff'].startswith('watched pages' if mode == 'watch' else 'whole buffers'), t.meta
    return r, t.by_seq()


# the sizeof of what each function of libdd returns: output of every call
RESULT = {'sum': 8, 'fill': 0, 'scale': 0, 'both': 8, 'rows': 4, 'bump': 4, 'outer': 8, 'churn': 8,
          'dgemm_': 0}


def sizes(rows):
    """(in, out) of each row, out without the return value (the app's own counts are of
    its buffers): the return value is checked here, once for all"""
    for r in rows:
        assert int(r['out_bytes']) >= RESULT[r['func']], r
    return [(int(r['in_bytes']), int(r['out_bytes']) - RESULT[r['func']]) for r in rows]


def expected(stdout):
    return [tuple(int(x) for x in line.split()) for line in stdout.splitlines()]


@pytest.mark.parametrize('mode', MODES)
@pytest.mark.parametrize('what', ['heap', 'reuse_small', 'born', 'ptrarray', 'static', 'mmap'])
def test_exact_bytes(built, what, mode):
    r, rows = run_scenario(built, what, mode)
    assert sizes(rows) == expected(r.stdout)


@pytest.mark.parametrize('mode', MODES)
def test_pages_written_by_the_program_and_the_kernel(built, mode):
    r, rows = run_scenario(built, 'pages', mode)
    assert sizes(rows) == expected(r.stdout)
    with open(os.path.join(built[0], f'pages-{mode}.stats')) as f:
        tracked, compared, watching = f.read().split()
    if mode == 'watch':
        assert watching == '1'
        # 8 looks over 4 MiB: the watched ones compare the pages written, not the buffer
        assert int(compared) < int(tracked) / 3, (tracked, compared)
    else:
        assert watching == '0' and compared == tracked


@pytest.mark.parametrize('mode', MODES)
def test_reused_memory(built, mode):
    r, rows = run_scenario(built, 'reuse', mode)
    lines = r.stdout.decode().split('\n')
    assert lines[1] == '1', 'malloc gave the freed memory back'
    (first, fill), want = sizes(rows), expected('\n'.join([lines[0], lines[2]]))
    assert first == want[0] and fill[1] == want[1][1]
    # the new block was copied at its malloc (the first block's data, and the words
    # malloc wrote into the memory while it was free: its free-list links and chunk
    # header): none of it is input, only the scalars
    assert fill[0] == 12, fill


@pytest.mark.parametrize('mode', MODES)
def test_stack_array_charged_by_its_frame(built, mode):
    r, rows = run_scenario(built, 'stack', mode)
    (row,) = rows
    assert int(row['out_bytes']) == 56
    # in: the 60 bytes set to 1 (and the alignment padding in the last 8-byte block), and
    # the scalars; not the saved registers and return address above the frame's data,
    # never the kilobytes of the whole stack
    assert 60 + 12 <= int(row['in_bytes']) <= 60 + 12 + 4, row


@pytest.mark.parametrize('mode', MODES)
def test_stack_a_wrapped_call_used_is_no_input(built, mode):
    r, rows = run_scenario(built, 'dead_stack', mode)
    (_, churn, fresh), want = sizes(rows), expected(r.stdout)
    assert churn == want[1]
    # the 800 bytes and the 4 of n, plus at most a few words of the frame (none of the
    # 3,200 bytes churn left in the array's rest: taken as seen at the end of its call)
    assert 800 + 4 <= fresh[0] <= 800 + 4 + 64, fresh


@pytest.mark.parametrize('mode', MODES)
def test_nested_calls_are_not_estimated(built, mode):
    r, rows = run_scenario(built, 'nested', mode)
    outer, inner = rows
    assert (outer['func'], inner['func'], inner['depth']) == ('outer', 'sum', '1')
    assert sizes([outer]) == expected(r.stdout)
    assert inner['in_bytes'] == '' and inner['out_bytes'] == ''


@pytest.mark.parametrize('mode', MODES)
def test_threads_each_exact(built, mode):
    r, rows = run_scenario(built, 'threads', mode)
    assert len(rows) == 800
    # sum(p, n) on a block of n doubles, all of them values no block held before: n * 8 + 4,
    # whatever the thread and whichever block its memory held before (app.c's worker)
    assert all(int(row['out_bytes']) == 8 for row in rows)     # the long sum returns
    want = [8 * (16 + (i * 37 + t * 11) % 3000) + 4 for t in range(4) for i in range(200)]
    assert sorted(int(row['in_bytes']) for row in rows) == sorted(want)


def test_signal_handlers_calling_in(built):
    r, rows = run_scenario(built, 'signals', 'watch')
    # the loop's sums see one changed double (none the first time: 0.0 is zeros); the
    # handler's see nothing new in its buffer, or have no estimate when they came inside
    # a wrapped call (depth 1) or inside std.diff itself (it is not re-entered)
    assert {x['in_bytes'] for x in rows if x['depth'] == '0'} <= {'4', '12', ''}
    assert sum(x['in_bytes'] == '12' for x in rows) >= 399
    assert all(x['in_bytes'] == '' for x in rows if x['depth'] != '0')


@pytest.mark.parametrize('mode', MODES)
def test_fork_child_starts_watching_again(built, mode):
    d, app, w = built
    r, tp = run_both([app, 'fork'], w, d, env=MODES[mode], trace=f'fork-{mode}.csv')
    parent = sizes(Trace(tp).by_seq())
    children = [f for f in os.listdir(d) if f.startswith(f'fork-{mode}.csv.')]
    assert len(children) == 1
    child = sizes(Trace(os.path.join(d, children[0])).by_seq())
    assert parent == [(1200 + 4, 0), (16 + 4, 0)]
    assert child == [(4, 0), (8 + 4, 0)]


def test_modes_agree_on_reference_blas(tmp_path):
    """dgemm_ from Fortran-style C: C = A B with fresh operands each time: A and B are
    input, C output, exactly; the scalars passed by pointer from the caller's frame add
    a few bytes of input."""
    src = os.path.join(EXAMPLES, 'apps', 'blas_fortran.c')
    app = build_c(tmp_path, src, 'blas_fortran', REF_BLAS, f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')
    w = wrap(tmp_path, '--lib', REF_BLAS, '--header', os.path.join(EXAMPLES, 'blas.h'),
             '-f', 'dgemm_', '-g', 'std.diff')
    got = {}
    for mode, env in MODES.items():
        r, tp = run_both([app], w, tmp_path, env=env, trace=f'blas-{mode}.csv')
        got[mode] = sizes(Trace(tp).by_seq())
    assert got['watch'] == got['compare']
    assert got['watch'], 'dgemm_ was called'


# --- real libraries -----------------------------------------------------------------

GEMM_APP = os.path.join(C_FILES, 'gemm.c')


@pytest.mark.parametrize('mode', MODES)
def test_blas_dgemm_exact_and_unchanged_data_not_counted(tmp_path, mode):
    app = build_c(tmp_path, GEMM_APP, 'gemm', f'-I{EXAMPLES}', REF_BLAS,
                  f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')   # not the libblas.so.3 alternative
    w = wrap(tmp_path, '--lib', REF_BLAS, '--header', os.path.join(EXAMPLES, 'blas.h'),
             '-f', 'dgemm_', '-g', 'std.diff')
    m, n, k = 137, 123, 151     # A, B and C over 32 pages each: watched
    _, tp = run_both([app, str(m), str(n), str(k)], w, tmp_path, env=MODES[mode])
    first, again, new_a = sizes(Trace(tp).by_seq())
    # the scalars block: 8-byte blocks of (ta tb pad m) (n k) (lda ldb) (ldc pad) alpha,
    # not beta (0.0: zero bytes, as fresh memory is); two hidden lengths by value
    scalars, hidden = 5 * 8, 2 * 8
    assert first == (8 * (m * k + k * n) + scalars + hidden, 8 * m * n)
    assert again == (hidden, 0)              # the same operands, the same product
    assert new_a == (8 * m * k + hidden, 8 * m * n)


@pytest.mark.skipif(not os.path.exists('/usr/include/openssl/evp.h'), reason='needs libssl-dev')
def test_openssl_evp_unchanged(tmp_path):
    app = build_c(tmp_path, os.path.join(EXAMPLES, 'apps', 'evp_encrypt.c'), 'evp', '-lcrypto')
    w = wrap(tmp_path, '--lib', 'libcrypto.so.3', '--app', app, '-f', 'EVP_EncryptUpdate',
             '-g', 'std.diff')
    _, tp = run_both([app, '6', '4096', '2'], w, tmp_path)
    rows = Trace(tp).by_seq()
    assert len(rows) == 12
    # EVP_EncryptUpdate(ctx, out, &outl, in, inl): fresh plaintext in, ciphertext out,
    # plus what changes in the context (IV, buffered bytes) and outl
    for r in rows:
        assert 4096 + 4 <= int(r['in_bytes']) <= 4096 + 4 + 512, r
        assert 4096 <= int(r['out_bytes']) <= 4096 + 256, r


@pytest.mark.skipif(not (os.path.exists('/usr/bin/cjpeg') and os.path.exists('/usr/bin/djpeg')),
                    reason='needs libjpeg-turbo-progs')
def test_cjpeg_djpeg_unchanged(tmp_path):
    w = wrap(tmp_path, '--lib', 'libjpeg.so.62', '--app', '/usr/bin/cjpeg', '--app', '/usr/bin/djpeg',
             '-f', 'jpeg_write_scanlines', '-f', 'jpeg_read_scanlines', '-g', 'std.diff')
    width, height = 64, 48
    write_ppm(tmp_path / 'in.ppm', width, height)
    r, tp = run_both(['/usr/bin/cjpeg', '-quality', '80', 'in.ppm'], w, tmp_path, trace='c.csv')
    (tmp_path / 'out.jpg').write_bytes(r.stdout)
    rows = Trace(tp).by_seq()
    assert len(rows) == height
    # each call gets one new row through the row-pointer array: its bytes are input
    assert all(width * 3 <= int(x['in_bytes']) for x in rows)
    _, tp = run_both(['/usr/bin/djpeg', 'out.jpg'], w, tmp_path, trace='d.csv')
    rows = Trace(tp).by_seq()
    assert rows and sum(int(x['out_bytes']) for x in rows) >= width * 3 * height * 0.9


def test_defs_win_over_the_estimate(built):
    d, app, _ = built
    (d / 'fill.defs').write_text('libdd*::fill::postfix { output_size = 8 * (int64_t)n; work_size = n; }\n')
    w = wrap(d, '--lib', os.path.join(d, 'libdd.so'), '--header', os.path.join(d, 'dd.h'),
             '-g', 'std.diff:lengths=off', '--defs', str(d / 'fill.defs'), name='defs.so')
    r, tp = run_both([app, 'static', 'x'], w, d, trace='defs.csv')
    rows = Trace(tp).by_seq()
    fills = [x for x in rows if x['func'] == 'fill']
    # out: the user's n * 8 (not what changed: 0 for the second call); in: std.diff's
    assert [(int(x['in_bytes']), int(x['out_bytes']), int(x['work'])) for x in fills] == \
        [(12, 2400, 300), (12, 8, 1), (12, 8, 1)]
    body = open(os.path.join(d, 'defs.d', 'wrap.c')).read()
    body = body[body.index('DYL_EXPORT void (fill)'):]
    # the estimate's end comes before the user's code, which has the last word
    assert body.index('dyl_diff_after') < body.index('output_size != DYL_NONE')
