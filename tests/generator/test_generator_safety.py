"""dyliberator on hostile folders and damaged input (issue 19): it builds only in a folder
it created or this user owns and nobody else can write, never writes OUT.so through a
symlink, and answers every bad input with one line naming the file, exit 2, never a
traceback.  And what the trace says of the library really called: the file each wrapped
library resolved to at run time, with a warning when it is not the file the wrapper was
generated from."""
import os
import random
import shutil
import sys

import pytest

from dyltest import DYLIBERATOR, EXAMPLES, ROOT, TEST_APPS, Trace, build_c, run

TINY_H = 'int deflate(void *strm, int flush);\nconst char *zlibVersion(void);\n'


def gen(*args, cwd=None, env=None):
    return run([DYLIBERATOR, *args], check=False, cwd=cwd, env=env)


def libz(tmp_path):
    """--lib libz.so.1 with a header of two of its functions (zlib.h may not be there)."""
    h = tmp_path / 'z.h'
    h.write_text(TINY_H)
    return ['--lib', 'libz.so.1', '--header', str(h)]


def one_line(r, name):
    """Exit 2 and one line on stderr, naming NAME; no traceback."""
    assert r.returncode == 2, r
    assert 'Traceback' not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and name in lines[0], r.stderr
    return lines[0]


def plant(folder, marker):
    """A folder holding the makefiles GNU make would prefer to ours."""
    os.makedirs(folder)
    for name in ('GNUmakefile', 'makefile'):
        with open(os.path.join(folder, name), 'w') as f:
            f.write(f'all:\n\ttouch {marker}\n')


@pytest.mark.skipif(os.geteuid() != 0, reason='chown to another user needs root')
def test_folder_owned_by_another_user_is_refused(tmp_path):
    out_d, marker = tmp_path / 'x.d', tmp_path / 'pwned'
    plant(str(out_d), marker)
    for p in [out_d] + list(out_d.iterdir()):
        os.chown(p, 65534, 65534)
    line = one_line(gen(*libz(tmp_path), '-o', str(tmp_path / 'x.so')), str(out_d))
    assert 'owned by uid 65534' in line
    assert not marker.exists() and not (tmp_path / 'x.so').exists()
    assert sorted(os.listdir(out_d)) == ['GNUmakefile', 'makefile']   # nothing written there


def test_folder_others_can_write_is_refused(tmp_path):
    out_d, marker = tmp_path / 'x.d', tmp_path / 'pwned'
    plant(str(out_d), marker)
    os.chmod(out_d, 0o777)
    line = one_line(gen(*libz(tmp_path), '-o', str(tmp_path / 'x.so')), str(out_d))
    assert 'others can write' in line
    assert not marker.exists() and not (tmp_path / 'x.so').exists()


def test_own_folder_builds_with_our_makefile_only(tmp_path):
    """The user's own folder, with a GNUmakefile in it and MAKEFILES in the environment:
    our Makefile runs, theirs do not.  OUT.so is a symlink to a victim: it is replaced,
    the victim is not created."""
    out_d, marker = tmp_path / 'x.d', tmp_path / 'pwned'
    plant(str(out_d), marker)
    victim = tmp_path / 'victim'
    os.symlink(victim, tmp_path / 'x.so')
    env = dict(os.environ, MAKEFILES=str(out_d / 'GNUmakefile'))
    r = gen('-q', *libz(tmp_path), '-o', str(tmp_path / 'x.so'), env=env)
    assert r.returncode == 0, r.stderr
    assert not marker.exists() and not victim.exists()
    assert not os.path.islink(tmp_path / 'x.so') and os.path.getsize(tmp_path / 'x.so') > 0


def test_truncated_library(tmp_path):
    t = tmp_path / 't.so'
    with open('/usr/bin/ls', 'rb') as f:
        t.write_bytes(f.read(3000))
    one_line(gen('--lib', str(t), '-o', str(tmp_path / 'w.so')), str(t))


def test_mutated_libz(tmp_path):
    """60 copies of libz with 1 to 64 bytes changed (seeded): each is read (exit 0) or
    refused in one line naming it (exit 2)."""
    with open(os.path.realpath(_libz()), 'rb') as f:
        src = f.read()
    h = tmp_path / 'z.h'
    h.write_text(TINY_H)
    codes = []
    for seed in range(60):
        r = random.Random(seed)
        b = bytearray(src)
        for _ in range(r.choice([1, 4, 16, 64])):
            # half of the changes in the headers, where they matter most
            i = r.randrange(len(b)) if r.random() < 0.5 else r.randrange(min(len(b), 4096))
            b[i] = r.randrange(256)
        p = tmp_path / f'm{seed}.so'
        p.write_bytes(bytes(b))
        res = gen('--lib', str(p), '--header', str(h), '--list')
        assert res.returncode in (0, 2) and 'Traceback' not in res.stderr, (seed, res.stderr)
        if res.returncode == 2:
            one_line(res, str(p))
        codes.append(res.returncode)
    assert 2 in codes   # some were damaged enough to refuse


def _libz():
    for d in ('/lib/x86_64-linux-gnu', '/usr/lib/x86_64-linux-gnu'):
        if os.path.exists(os.path.join(d, 'libz.so.1')):
            return os.path.join(d, 'libz.so.1')
    pytest.skip('no libz.so.1')


def test_defs_not_utf8(tmp_path):
    d = tmp_path / 'bad.defs'
    d.write_bytes(b'// fine\nlibz*::deflate::prefix { \xff\xfe }\n')
    one_line(gen(*libz(tmp_path), '--defs', str(d), '-o', str(tmp_path / 'w.so')), f'{d}:2')
    assert not (tmp_path / 'w.d').exists()


def test_microgen_toml_binary(tmp_path):
    mg = tmp_path / 'mg' / 'my.bin'
    mg.mkdir(parents=True)
    with open('/usr/bin/ls', 'rb') as f:
        (mg / 'microgen.toml').write_bytes(f.read(300))
    (mg / 'template.c.j2').write_text('')
    one_line(gen(*libz(tmp_path), '-M', str(tmp_path / 'mg'), '--list'),
             str(mg / 'microgen.toml'))


def test_defs_block_matching_nothing_is_warned(tmp_path):
    d = tmp_path / 'w.defs'
    d.write_text('libz*::deflate::prefix { work_size = 1; }\n'
                 'libz*::no_such_function::prefix { work_size = 2; }\n')
    r = gen(*libz(tmp_path), '--defs', str(d), '--no-build', '-o', str(tmp_path / 'w.so'))
    assert r.returncode == 0, r.stderr
    warned = [x for x in r.stderr.splitlines() if 'matches no wrapped function' in x]
    assert len(warned) == 1 and f'{d}:2' in warned[0] and 'no_such_function' in warned[0]


def test_cplusplus_library_is_refused(tmp_path):
    line = one_line(gen('--lib', 'libstdc++.so.6', '-o', str(tmp_path / 'w.so')), 'libstdc++.so.6')
    assert 'C++' in line and '--header' in line
    assert not (tmp_path / 'w.d').exists()


def test_no_headers_names_the_file_and_a_hint(tmp_path):
    """A library no header declares: the answer names the file the soname resolved to
    and what to try."""
    lib = build_c(tmp_path, 'int zz_qqq_unheard_of(int x) { return x; }\n', 'liblapack.so.3',
                  '-shared', '-fPIC', '-Wl,-soname,liblapack.so.3')
    r = gen('--lib', 'liblapack.so.3', '-o', str(tmp_path / 'w.so'),
            env=dict(os.environ, LD_LIBRARY_PATH=str(tmp_path)))
    line = one_line(r, 'no headers found for liblapack.so.3')
    assert lib in line and os.path.join(EXAMPLES, 'lapack.h') in line


def test_libm_builds_with_its_own_headers(tmp_path):
    """glibc's complex _FloatN functions (cabsf32...) spelled as GCC declares them."""
    r = gen('-q', '--lib', 'libm.so.6', '-f', 'c*f32*', '-f', 'c*f64*', '-o', str(tmp_path / 'm.so'))
    assert r.returncode == 0, r.stderr[-3000:]
    assert 'cabsf32' in (tmp_path / 'm.d' / 'wrap.c').read_text()


def test_compiler_errors_come_first():
    sys.path.insert(0, ROOT)
    from generator.cli import _compiler_lines
    text = '\n'.join(
        ['In file included from wrap.c:3:'] +
        [f'wrap.c:{i}:1: warning: w{i} [-Wfoo]\n  {i} | x\n    | ^' for i in range(30)] +
        ['wrap.c:99:5: error: conflicting types for ‘f’',
         ' 99 | int f(void)', '    |     ^',
         'In file included from wrap.c:4:',
         '/usr/include/x.h:7:1: note: previous declaration of ‘f’'])
    out = _compiler_lines(text)
    assert out[0].startswith('wrap.c:99:5: error:')
    assert out[3] == 'In file included from wrap.c:4:' and 'note:' in out[4]
    assert len(out) == 41 and out[-1].startswith('... (')


# --- which file serves a wrapped library ---------------------------------------------

@pytest.fixture(scope='module')
def twins(tmp_path_factory):
    """libtwin.so.1 built twice (a/, b/: different code, same soname), a copy of a/'s in
    c/, an app linked to it, a module that links it for tinydl, and a wrapper generated
    from a/'s file."""
    d = tmp_path_factory.mktemp('twins')
    libs = {}
    for v, sub in ((1, 'a'), (2, 'b')):
        (d / sub).mkdir()
        libs[sub] = build_c(d / sub, os.path.join(TEST_APPS, 'libtwin.c'), 'libtwin.so.1',
                            f'-DTWIN_VARIANT={v}', f'-I{TEST_APPS}', '-shared', '-fPIC',
                            '-Wl,-soname,libtwin.so.1')
    (d / 'c').mkdir()
    shutil.copy(libs['a'], d / 'c' / 'libtwin.so.1')
    app = build_c(d, os.path.join(TEST_APPS, 'twinapp.c'), 'twinapp', f'-I{TEST_APPS}', libs['a'])
    mod = build_c(d, os.path.join(TEST_APPS, 'twinmod.c'), 'libtwinmod.so', f'-I{TEST_APPS}',
                  '-shared', '-fPIC', libs['a'])
    dl = build_c(d, os.path.join(TEST_APPS, 'tinydl.c'), 'tinydl', '-ldl')
    w = str(d / 'w.so')
    run([DYLIBERATOR, '-q', '--lib', libs['a'], '--header', os.path.join(TEST_APPS, 'twin.h'),
         '-o', w])
    return d, libs, app, mod, dl, w


def traced(twins, sub, cmd):
    d, _, _, _, _, w = twins
    tp = d / f'trace-{sub}-{os.path.basename(cmd[0])}.csv'
    env = dict(os.environ, LD_LIBRARY_PATH=str(d / sub), LD_PRELOAD=w, DYL_TRACE=str(tp))
    r = run(cmd, env=env)
    return r, Trace(str(tp))


@pytest.mark.parametrize('how', ['linked', 'dlopen'])
def test_trace_names_the_library_file(twins, how):
    d, libs, app, mod, dl, w = twins
    cmd = [app] if how == 'linked' else [dl, mod, '3']
    for sub, result in (('a', '3'), ('c', '3'), ('b', '6')):
        r, tr = traced(twins, sub, cmd)
        assert r.stdout.strip().endswith(result)
        assert tr.count('twin_step') == 3
        assert tr.meta['library'] == f'libtwin.so.1 {os.path.realpath(d / sub / "libtwin.so.1")}'
        warned = [x for x in r.stderr.splitlines() if 'generated from' in x]
        if sub == 'b':      # another file, another build ID: warned, once
            a = os.path.realpath(libs['a'])
            assert len(warned) == 1 and os.path.realpath(d / 'b') in warned[0] and a in warned[0]
            assert tr.meta['library_generated_from'] == f'libtwin.so.1 {a}'
        else:               # the same file, or a copy of it (same build ID)
            assert warned == [] and 'library_generated_from' not in tr.meta
