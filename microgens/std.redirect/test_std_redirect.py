"""std.redirect: calls go to the same-named function of another library, traced like the
original.  Two tiny libraries show where each call goes (versions included, and what
happens to a function the other library lacks); reference BLAS redirected to OpenBLAS
shows it on a real library: the same products, from other code, faster."""
import array
import os
import re
import shutil

import pytest

from dyltest import REF_BLAS, Trace, build_c, dyliberator, list_verdicts, run, wrap

# --- two libraries with the same functions -------------------------------------------

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'apps')
HEADER = os.path.join(C_FILES, 'one.h')
ONE = os.path.join(C_FILES, 'libone.c')
ONE_VERSIONS = os.path.join(C_FILES, 'one.map')
# f@V1 (the version the app links against) and f@@V2 (the default) differ; g has
# another version only (V9): its default is taken; h is missing.
TWO = os.path.join(C_FILES, 'libtwo.c')
TWO_VERSIONS = os.path.join(C_FILES, 'two.map')
APP = os.path.join(C_FILES, 'app.c')


def shared_lib(d, name, src, script):
    lib = os.path.join(d, f'lib{name}.so')
    run(['cc', '-O2', '-shared', '-fPIC', f'-Wl,-soname,lib{name}.so',
         f'-Wl,--version-script={script}', '-o', lib, src])
    return lib


@pytest.fixture(scope='module')
def libs(tmp_path_factory):
    d = str(tmp_path_factory.mktemp('redirect'))
    h = shutil.copy(HEADER, d)
    one = shared_lib(d, 'one', ONE, ONE_VERSIONS)
    two = shared_lib(d, 'two', TWO, TWO_VERSIONS)
    app = build_c(d, APP, 'app', f'-I{d}', one, f'-Wl,-rpath,{d}')
    return d, one, two, h, app


def run_app(app, wrapper, d, trace):
    env = dict(os.environ, LD_PRELOAD=wrapper, DYL_TRACE=os.path.join(d, trace))
    return run([app], check=False, env=env, cwd=d)


def test_calls_go_to_the_same_version_in_the_other_library(libs):
    d, one, two, h, app = libs
    assert run([app]).stdout == '1 2 3\n'
    w = wrap(d, '--lib', one, '--header', h, '-g', f'std.redirect:lib={two}', name='to_two.so')
    r = run_app(app, w, d, 'two.csv')
    assert (r.returncode, r.stdout, r.stderr) == (0, '100 300 3\n', '')
    # f@V1 (not the default f@@V2), g's only (default) version, h from libone
    t = Trace(os.path.join(d, 'two.csv'))
    assert sorted(t.funcs()) == ['f', 'g', 'h']          # every call traced, redirected or not
    assert all(int(row['t_ns']) >= 0 for row in t.rows)
    assert t.meta['redirect'] == f'{two} ({two}): 2 of 3 functions; not there, so to the original: h'
    assert 'std.redirect' in t.meta['wrapper'] and 'std.caller' not in t.meta['wrapper']


def test_list_says_where_each_function_goes(libs):
    d, one, two, h, _ = libs
    out = dyliberator('--lib', one, '--header', h, '-g', f'std.redirect:lib={two}', '--list').stdout
    v = list_verdicts(out)['wrap']
    assert v['f'].endswith(f'std.redirect: calls go to {two}')
    assert v['g'].endswith(f'std.redirect: calls go to {two}')
    assert v['h'].endswith(f'std.redirect: not in {two}, calls go to the original')


def test_redirect_by_soname(libs):
    """lib= as a soname: found through LD_LIBRARY_PATH when generating, dlopen'ed by that
    name when the program runs (the dynamic linker's lookup both times)."""
    d, one, two, h, app = libs
    env = dict(os.environ, LD_LIBRARY_PATH=d)
    out = os.path.join(d, 'by_soname.so')
    run([os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                      'bin', 'dyliberator'), '-q', '--lib', one, '--header', h,
         '-g', 'std.redirect:lib=libtwo.so', '-o', out], env=env, cwd=d)
    r = run([app], env=dict(env, LD_PRELOAD=out, DYL_TRACE=os.path.join(d, 'soname.csv')), cwd=d)
    assert r.stdout == '100 300 3\n'
    assert Trace(os.path.join(d, 'soname.csv')).meta['redirect'].startswith(f'libtwo.so ({two}):')


def test_generation_errors_name_the_problem(libs):
    d, one, two, h, _ = libs
    r = dyliberator('--lib', one, '--header', h, '-g', 'std.redirect:lib=/nowhere/libx.so',
                    '--no-build', cwd=d, check=False)
    assert r.returncode == 2
    assert r.stderr.strip() == 'dyliberator: std.redirect:lib=/nowhere/libx.so: /nowhere/libx.so: no such file'
    r = dyliberator('--lib', one, '--header', h, '-g', 'std.redirect', '--no-build', cwd=d, check=False)
    assert r.returncode == 2 and 'std.redirect needs lib=' in r.stderr
    r = dyliberator('--lib', one, '--header', h, '-g', f'std.redirect:lib={one}', '--no-build',
                    cwd=d, check=False)
    assert r.returncode == 2 and 'the library being wrapped' in r.stderr
    r = dyliberator('--lib', one, '--header', h, '-g', f'std.redirect:lib={two}',
                    '-g', f'std.redirect:lib={one}', '--no-build', cwd=d, check=False)
    assert r.returncode == 2 and 'std.redirect:lib is given twice' in r.stderr


def test_missing_library_when_running_is_fatal_and_says_why(libs):
    """The library was there when the wrapper was generated and is gone when the program
    runs: one message naming the library and the function, then abort (not a quiet call
    of the original, whose time would pass for the other library's)."""
    d, one, two, h, app = libs
    gone = os.path.join(d, 'gone', 'libtwo.so')
    os.makedirs(os.path.dirname(gone), exist_ok=True)
    shutil.copy(two, gone)
    w = wrap(d, '--lib', one, '--header', h, '-g', f'std.redirect:lib={gone}', name='gone.so')
    os.unlink(gone)
    r = run_app(app, w, d, 'gone.csv')
    assert r.returncode == -6, r          # SIGABRT
    assert r.stdout == ''
    # the first redirected call made (the order of printf's arguments is the compiler's)
    assert re.match(f'dyliberator: std.redirect: cannot call (f@V1|g@V9) in {re.escape(gone)}: '
                    f'{re.escape(gone)}: cannot open shared object file', r.stderr), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


# --- reference BLAS -> OpenBLAS -------------------------------------------------------

OPENBLAS = '/usr/lib/x86_64-linux-gnu/openblas-serial/libopenblas.so.0'
BLAS_H = os.path.join(os.path.dirname(__file__), '..', '..', 'examples', 'blas.h')
BLAS_DEFS = os.path.join(os.path.dirname(__file__), '..', '..', 'examples', 'blas.defs')
N = 300
GEMM_APP = os.path.join(C_FILES, 'gemm.c')


def openblas_coretype():
    """OpenBLAS 0.3.21 may not recognise a recent CPU: name its kernels from the flags."""
    flags = set()
    with open('/proc/cpuinfo') as fh:
        for line in fh:
            if line.startswith('flags'):
                flags = set(line.split(':', 1)[1].split())
                break
    if {'avx512f', 'avx512vl', 'avx512bw', 'avx512dq'} <= flags:
        return 'SkylakeX'
    return 'Haswell' if {'avx2', 'fma'} <= flags else None


@pytest.fixture(scope='module')
def blas(tmp_path_factory):
    if not os.path.exists(OPENBLAS):
        pytest.fail(f'{OPENBLAS} is missing: make deps installs libopenblas0-serial')
    d = str(tmp_path_factory.mktemp('redirect_blas'))
    common = ('--lib', REF_BLAS, '--header', BLAS_H, '--defs', BLAS_DEFS, '-f', 'dgemm_',
              '-g', 'std.time:clock=thread')   # CPU time: a busy machine cannot slow a call down
    plain = wrap(d, *common, name='plain.so')
    redirected = wrap(d, *common, '-g', f'std.redirect:lib={OPENBLAS}', name='openblas.so')
    # linked to reference BLAS by path (rpath): libblas.so.3's alternative may point elsewhere
    app = build_c(d, GEMM_APP, 'gemm', REF_BLAS, f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')
    env = dict(os.environ, OPENBLAS_VERBOSE='2')
    if openblas_coretype():
        env['OPENBLAS_CORETYPE'] = openblas_coretype()
    runs = {}
    for name, w in (('bare', None), ('plain', plain), ('openblas', redirected)):
        e = dict(env, DYL_TRACE=os.path.join(d, f'{name}.csv'))
        if w:
            e['LD_PRELOAD'] = w
        out = os.path.join(d, f'{name}.bin')
        r = run([app, str(N), '3', out], env=e, cwd=d)
        with open(out, 'rb') as fh:
            c = array.array('d', fh.read())
        runs[name] = (r, c, Trace(e['DYL_TRACE']) if w else None)
    return runs


def test_openblas_computes_the_same_products_with_other_code(blas):
    (bare, c0, _), (plain, c1, _), (red, c2, _) = blas['bare'], blas['plain'], blas['openblas']
    assert len(c0) == N * N
    assert c1 == c0                       # the plain wrapper forwards to the very same code
    # OpenBLAS adds in another order (blocks, FMA): equal within rounding, but not bit for
    # bit, which shows its code computed them.  |c| <= N/36 here; N * eps * N/36 ~ 6e-13.
    worst = max(abs(x - y) for x, y in zip(c0, c2))
    assert 0 < worst < 1e-10, worst
    # OpenBLAS was loaded only under the redirecting wrapper (OPENBLAS_VERBOSE=2 names its core)
    assert 'Core: ' in red.stderr and 'Core: ' not in plain.stderr + bare.stderr


def test_redirected_calls_are_traced_and_faster(blas):
    plain, red = blas['plain'][2], blas['openblas'][2]
    for t in (plain, red):
        assert t.count('dgemm_') == 3
        assert {r['work'] for r in t.rows} == {str(2 * N ** 3)}    # blas.defs: flops
    assert red.meta['redirect'].startswith(f'{OPENBLAS} (') and red.meta['redirect'].endswith(': 1 of 1 functions')
    # loaded before main, what it took said (a model's set-up cost): more than nothing,
    # less than the run
    assert 0 < int(red.meta['redirect_load_ns']) < int(red.meta['total_ns'])
    assert 'redirect_load_ns' not in plain.meta
    # CPU time of the calling thread (serial OpenBLAS): a loaded machine does not inflate
    # it.  Reference BLAS takes ~8 ms per 300x300 product here and OpenBLAS ~0.6 ms: 2x is
    # far inside the margin.
    t_plain = sorted(int(r['t_ns']) for r in plain.rows)
    t_red = sorted(int(r['t_ns']) for r in red.rows)
    assert t_red[1] * 2 < t_plain[1], (t_plain, t_red)
