"""Each call goes to the definition its caller would have reached without the wrapper
(runtime/scope.c): the global scope first, then the caller's own scope.

Two builds of libtwin (tests/apps/libtwin.c: twin_step adds 1, or 2) under two sonames,
each linked by its own module (twinmod.c), both loaded with dlopen by twinsdl.c: the
wrapper (generated from the first) must send each module's calls to its own library, as
the dynamic linker does, and the program must print the same with and without it."""
import os
import pytest

from dyltest import TEST_APPS, Trace, build_c, run, run_both, wrap

N = 3


@pytest.fixture(scope='module')
def twins(tmp_path_factory):
    d = tmp_path_factory.mktemp('scope')
    inc = f'-I{TEST_APPS}'
    t = {}
    for v, soname in ((1, 'libtwin.so.1'), (2, 'libtwinb.so.1')):
        sub = d / str(v)
        sub.mkdir()
        t[f'lib{v}'] = build_c(sub, os.path.join(TEST_APPS, 'libtwin.c'), soname,
                               f'-DTWIN_VARIANT={v}', inc, '-shared', '-fPIC',
                               f'-Wl,-soname,{soname}')
        t[f'mod{v}'] = build_c(d, os.path.join(TEST_APPS, 'twinmod.c'), f'libtwinmod{v}.so',
                               inc, '-shared', '-fPIC', t[f'lib{v}'], f'-Wl,-rpath,{sub}')
    t['app'] = build_c(d, os.path.join(TEST_APPS, 'twinsdl.c'), 'twinsdl', '-ldl')
    t['dl'] = build_c(d, os.path.join(TEST_APPS, 'tinydl.c'), 'tinydl', '-ldl')
    t['w'] = wrap(d, '--lib', t['lib1'], '--header', os.path.join(TEST_APPS, 'twin.h'))
    return d, t


def test_each_module_reaches_its_own_library(twins, tmp_path):
    d, t = twins
    r, tp = run_both([t['app'], t['mod1'], t['mod2'], str(N)], t['w'], tmp_path)
    # the result proves which library ran: +1 per call in the first, +2 in the second
    assert r.stdout == f'first: {N}\nsecond: {2 * N}\n'.encode()
    tr = Trace(tp)
    assert tr.count('twin_step') == 2 * N
    lib1, lib2 = (os.path.realpath(t[k]) for k in ('lib1', 'lib2'))
    assert tr.meta['library'] == f'libtwin.so.1 {lib1}'
    # the second module's calls went to another file: the trace says which, and whose
    assert tr.meta['library_for'] == (f'libtwin.so.1 {lib2} (called from '
                                      f'{os.path.realpath(t["mod2"])})')
    assert b'generated from' not in r.stderr


def test_the_global_scope_comes_first(twins, tmp_path):
    """The first module loaded RTLD_GLOBAL puts its libtwin in the global scope: the
    second module's calls reach it too, with or without the wrapper."""
    d, t = twins
    r, tp = run_both([t['app'], t['mod1'], t['mod2'], str(N), 'global'], t['w'], tmp_path)
    assert r.stdout == f'first: {N}\nsecond: {N}\n'.encode()
    tr = Trace(tp)
    assert tr.count('twin_step') == 2 * N and 'library_for' not in tr.meta


def test_another_library_that_defines_the_names(twins, tmp_path):
    """Only the second module: its library (another soname) serves the wrapped name.
    The warning says so, not that libtwin.so.1 is that file."""
    d, t = twins
    cmd = [t['dl'], t['mod2'], str(N)]
    tp = str(tmp_path / 'trace.csv')
    plain = run(cmd)
    r = run(cmd, env=dict(os.environ, LD_PRELOAD=t['w'], DYL_TRACE=tp))
    assert r.stdout == plain.stdout == f'mod_run: {2 * N}\n'
    tr = Trace(tp)
    lib2 = os.path.realpath(t['lib2'])
    assert tr.meta['library'] == f'libtwin.so.1 {lib2}'
    warned = [x for x in r.stderr.splitlines() if 'generated from' in x]
    assert len(warned) == 1
    assert "calls to libtwin.so.1's functions reach libtwinb.so.1" in warned[0], warned


def test_same_file_by_another_name(tmp_path):
    """A library without a build ID, loaded through a hard link: the same file (device
    and inode), so no warning."""
    inc = f'-I{TEST_APPS}'
    (tmp_path / 'a').mkdir()
    (tmp_path / 'b').mkdir()
    lib = build_c(tmp_path / 'a', os.path.join(TEST_APPS, 'libtwin.c'), 'libtwin.so.1', inc,
                  '-shared', '-fPIC', '-Wl,-soname,libtwin.so.1', '-Wl,--build-id=none')
    os.link(lib, tmp_path / 'b' / 'libtwin.so.1')
    app = build_c(tmp_path, os.path.join(TEST_APPS, 'twinapp.c'), 'twinapp', inc, lib)
    w = wrap(tmp_path, '--lib', lib, '--header', os.path.join(TEST_APPS, 'twin.h'))
    r, tp = run_both([app], w, tmp_path, env={'LD_LIBRARY_PATH': str(tmp_path / 'b')})
    assert r.stdout == b'3\n'
    tr = Trace(tp)
    assert tr.meta['library'] == f'libtwin.so.1 {os.path.realpath(tmp_path / "b" / "libtwin.so.1")}'
    assert 'library_generated_from' not in tr.meta and b'generated from' not in r.stderr


def test_the_global_scope_in_its_order(twins, tmp_path):
    """The program links libtwin.so.1 and a module that links libtwinb.so.1: both are in
    the global scope, libtwin.so.1 first, libtwinb.so.1 after the runtime (a dependency
    of a dependency).  The program's calls reach libtwin.so.1: the wrapper's own
    dlsym(RTLD_NEXT) must look after the wrapper, not after the runtime."""
    d, t = twins
    app = build_c(tmp_path, os.path.join(TEST_APPS, 'twinapp.c'), 'twinapp', f'-I{TEST_APPS}',
                  '-Wl,--no-as-needed', t['lib1'], t['mod2'],
                  f'-Wl,-rpath,{os.path.dirname(t["lib1"])}:{d}')
    r, tp = run_both([app], t['w'], tmp_path)
    assert r.stdout == b'3\n'
    tr = Trace(tp)
    assert tr.count('twin_step') == 3
    assert tr.meta['library'] == f'libtwin.so.1 {os.path.realpath(t["lib1"])}'
