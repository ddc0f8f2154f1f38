"""dyliberator on hostile folders and damaged input (issue 19): it builds only in a folder
it created or this user owns and nobody else can write, never writes OUT.so through a
symlink, and answers every bad input with one line naming the file, exit 2, never a
traceback.  And what the trace says of the library really called: the file each wrapped
library resolved to at run time, with a warning when it is not the file the wrapper was
generated from."""
import os
import random
import re
import resource
import shutil
import stat
import sys
import tempfile

import pytest

from dyltest import DYLIBERATOR, EXAMPLES, ROOT, TEST_APPS, Trace, build_c, run

TINY_H = 'int deflate(void *strm, int flush);\nconst char *zlibVersion(void);\n'


def gen(*args, cwd=None, env=None, **kw):
    # (without the zlib profile: these tests give their own header of libz)
    return run([DYLIBERATOR, '--profile', 'none', *args], check=False, cwd=cwd, env=env, **kw)


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


# --- paths are data, not make or shell code (issue 33, item 9) --------------------------

SAFETY = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'safety')
# each a name the old Makefile (target ../NAME, `mv -fT wrap.so.tmp $@`) took as code
OUT_NAMES = {
    'space': 'my lib.so',                           # overwrote ./my
    'make_shell': 'r$(shell touch PWN9).so',        # ran touch through make
    'sh': 'b`touch PWNB`$(touch PWNC);x.so',        # would run in a recipe's shell
    'make_syntax': 'n\nl#x%y:z.so',                 # make syntax errors
    'newline_last': 'w.so\n',
    'not_utf8': os.fsdecode(b'\xff\x01') + '.so',
}


def pwned(folder):
    return [os.path.join(r, f) for r, _, fs in os.walk(folder) for f in fs if f.startswith('PWN')]


def is_elf(path):
    with open(path, 'rb') as f:
        return f.read(4) == b'\x7fELF'


@pytest.mark.parametrize('name', list(OUT_NAMES.values()), ids=list(OUT_NAMES))
def test_output_path_is_a_name(tmp_path, name):
    """-o with spaces, make's $(shell), the shell's `...`, a newline, '#', '%', ':': the
    wrapper is written at exactly that name, nothing runs, nothing else is touched."""
    (tmp_path / 'my').write_text('keep\n')
    out = os.path.join(str(tmp_path), name)
    r = gen('-q', *libz(tmp_path), '-o', out, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert is_elf(out)
    assert (tmp_path / 'my').read_text() == 'keep\n'
    assert pwned(str(tmp_path)) == []
    folder = name[:-3] + '.d' if name.endswith('.so') else name + '.d'
    assert sorted(os.listdir(tmp_path)) == sorted(['my', 'z.h', name, folder])


def test_make_by_hand_copies_to_the_same_name(tmp_path):
    """make -C OUT.d builds again and puts the wrapper at OUT, read from out.name by the
    shell; a FIFO planted at OUT after dyliberator ran is left alone (make fails)."""
    out = os.path.join(str(tmp_path), OUT_NAMES['make_syntax'])
    r = gen('-q', *libz(tmp_path), '-o', out, '--no-build')
    assert r.returncode == 0, r.stderr
    d = out[:-3] + '.d'
    r = run(['make', '-s', '-C', d], check=False)
    assert r.returncode == 0, r.stderr
    assert is_elf(out) and pwned(str(tmp_path)) == []
    os.unlink(out)
    os.mkfifo(out)
    r = run(['make', '-s', '-C', d], check=False, timeout=60)
    assert r.returncode != 0 and 'not a regular file, not replaced' in r.stderr
    assert os.path.exists(out) and not os.path.isfile(out)   # still the FIFO


def test_paths_with_make_and_shell_syntax(tmp_path):
    """--lib, --header, -I, --defs in a folder named with make and shell syntax and '*/'
    (which would end a C comment): the wrapper builds, runs nothing, and make -C
    compiles again when the header found through -I changes (its .dep names it)."""
    weird = tmp_path / "h d$(shell touch PWNH)#x%y:z'q`touch PWNT`*"
    weird.mkdir()
    for f in ('uses_extra.h', 'extra.h', 'work.defs'):
        shutil.copy(os.path.join(SAFETY, f), weird / f)
    shutil.copy(_libz(), weird / 'libz.so.1')
    out = str(tmp_path / 'w.so')
    r = gen('-q', '--lib', str(weird / 'libz.so.1'), '--header', str(weird / 'uses_extra.h'),
            '-I', str(weird), '--defs', str(weird / 'work.defs'), '-o', out, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert is_elf(out) and pwned(str(tmp_path)) == []
    obj = tmp_path / 'w.d' / 'wrap.o'
    before = obj.stat().st_mtime_ns
    later = before + 2_000_000_000
    os.utime(weird / 'extra.h', ns=(later, later))
    r = run(['make', '-s', '-C', str(tmp_path / 'w.d')], check=False)
    assert r.returncode == 0, r.stderr
    assert obj.stat().st_mtime_ns != before and pwned(str(tmp_path)) == []


@pytest.mark.parametrize('bad', ['"', '\n'], ids=['quote', 'newline'])
def test_header_path_include_cannot_name(tmp_path, bad):
    folder = tmp_path / f'a{bad}b'
    folder.mkdir()
    h = folder / 'z.h'
    h.write_text(TINY_H)
    line = one_line(gen('--lib', 'libz.so.1', '--header', str(h), '-o', str(tmp_path / 'w.so')),
                    str(tmp_path / 'a'))
    assert 'cannot be named in #include' in line
    line = one_line(gen('--lib', 'libz.so.1', '--header', str(tmp_path / 'z.h'), '-I', str(folder),
                        '-o', str(tmp_path / 'w.so')), '-I')
    assert not (tmp_path / 'w.d').exists()


# --- outputs and inputs that are not regular files (issue 33, items 9 and 10) -----------

def test_output_fifo_is_refused(tmp_path):
    fifo = tmp_path / 'w.so'
    os.mkfifo(fifo)
    line = one_line(gen(*libz(tmp_path), '-o', str(fifo), timeout=60), str(fifo))
    assert 'a FIFO' in line
    assert not os.path.isfile(fifo) and not (tmp_path / 'w.d').exists()


@pytest.mark.skipif(os.geteuid() != 0, reason='mknod needs root')
def test_output_device_is_refused(tmp_path):
    """As root, -o /dev/null replaced /dev/null: here a device node of the same numbers in
    a folder of the test's own (the machine's /dev/null is not put at risk)."""
    dev = tmp_path / 'null'
    try:
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except OSError as e:
        pytest.skip(f'mknod: {e.strerror}')
    line = one_line(gen(*libz(tmp_path), '-o', str(dev), timeout=60), str(dev))
    assert 'a character device' in line
    assert stat.S_ISCHR(os.lstat(dev).st_mode)


def _limited():
    """The generator's memory capped at 2 GiB (RLIMIT_DATA): without the watch, reading
    /dev/zero ends in a crash here, not in the machine's OOM killer."""
    resource.setrlimit(resource.RLIMIT_DATA, (2 << 30, 2 << 30))


def hostile(kind, folder):
    """A path of KIND in FOLDER: a FIFO, a link to /dev/zero, a sparse 1 GiB file."""
    p = os.path.join(folder, 'planted.h')
    if kind == 'fifo':
        os.mkfifo(p)
    elif kind == 'zero':
        os.symlink('/dev/zero', p)
    else:
        with open(p, 'wb') as f:
            f.truncate(1 << 30)
    return p


@pytest.mark.parametrize('opt', ['--defs', '--header', '--lib', '--app', '-M'])
@pytest.mark.parametrize('kind', ['fifo', 'zero', 'huge'])
def test_input_not_a_regular_file(tmp_path, opt, kind):
    """Each input named on the command line that is a FIFO (hung the generator), a
    device (--defs /dev/zero grew to 24 GB), or absurdly large: one line naming it,
    exit 2, at once."""
    if kind == 'huge' and opt in ('--lib', '--app'):
        pytest.skip('a library of any size is read by its sections')
    folder = tmp_path / 'in'
    folder.mkdir()
    p = hostile(kind, str(folder))
    args = list(libz(tmp_path))
    if opt == '-M':
        (folder / 'my.gen').mkdir()
        os.rename(p, folder / 'my.gen' / 'microgen.toml')
        p = str(folder / 'my.gen' / 'microgen.toml')
        args += ['-M', str(folder)]
    elif opt == '--header':
        args = ['--lib', 'libz.so.1', '--header', p]
    elif opt == '--lib':
        args = ['--lib', p, '--header', str(tmp_path / 'z.h')]
    else:
        args += [opt, p]
    r = gen(*args, '-o', str(tmp_path / 'w.so'), timeout=60, preexec_fn=_limited)
    line = one_line(r, p)
    assert ('bytes, more than' in line) if kind == 'huge' else ('not a regular file' in line)
    assert not (tmp_path / 'w.d').exists()


@pytest.mark.parametrize('kind', ['dev_zero', 'fifo', 'zero', 'huge'])
def test_hostile_include(tmp_path, kind):
    """A header that #includes /dev/zero (24 GB, then the OOM killer), a FIFO (hung in
    open), a link to a device, a 1 GiB file: libclang reads what a header includes, so a
    watch on the parse ends it with one line naming the file, exit 2."""
    if kind == 'dev_zero':
        h, named = os.path.join(SAFETY, 'includes_zero.h'), '/dev/zero'
    else:
        h = str(tmp_path / 'includes_planted.h')
        shutil.copy(os.path.join(SAFETY, 'includes_planted.h'), h)
        named = hostile(kind, str(tmp_path))
        named = '/dev/zero' if kind == 'zero' else named
    r = gen('--lib', 'libz.so.1', '--header', h, '-o', str(tmp_path / 'w.so'), timeout=60,
            preexec_fn=_limited)
    line = one_line(r, named)
    assert 'included while parsing the headers' in line
    assert not (tmp_path / 'w.d').exists()


def _nobody_can_run_the_generator():
    if os.geteuid() != 0 or not shutil.which('runuser'):
        return False
    return run(['runuser', '-u', 'nobody', '--', 'test', '-x', DYLIBERATOR], check=False).returncode == 0


@pytest.mark.skipif(not _nobody_can_run_the_generator(),
                    reason='needs root, runuser, and a checkout that nobody may read')
@pytest.mark.parametrize('kind', ['fifo', 'zero'])
def test_hostile_include_as_nobody(kind):
    """The watch reads /proc/self (fd, maps, task/*/syscall, mem): allowed to any user."""
    d = tempfile.mkdtemp(prefix='dyl-inc-')
    try:
        os.chmod(d, 0o755)
        h = os.path.join(d, 'includes_planted.h')
        shutil.copy(os.path.join(SAFETY, 'includes_planted.h'), h)
        named = hostile(kind, d)
        named = '/dev/zero' if kind == 'zero' else named
        for p in (d, h):
            os.chown(p, 65534, 65534)
        r = run(['runuser', '-u', 'nobody', '--', DYLIBERATOR, '--profile', 'none', '--lib', 'libz.so.1',
                 '--header', h, '--list'], check=False, cwd=d, timeout=60, preexec_fn=_limited)
        line = one_line(r, named)
        assert 'included while parsing the headers' in line
    finally:
        shutil.rmtree(d)


def test_planted_files_in_searched_folders(tmp_path):
    """FIFOs where the generator looks without being told: beside the library (linker
    scripts: *.so) and in an -I folder it scans for headers (*.h).  Skipped, not waited
    on."""
    lib = build_c(tmp_path, os.path.join(SAFETY, 'libscan.c'), 'libscan.so', f'-I{SAFETY}',
                  '-shared', '-fPIC')
    inc = tmp_path / 'inc'
    inc.mkdir()
    shutil.copy(os.path.join(SAFETY, 'scan.h'), inc / 'scan.h')
    os.mkfifo(inc / 'aaa.h')
    os.mkfifo(tmp_path / 'libzzz.so')
    r = gen('--lib', lib, '-I', str(inc), '--list', timeout=120)
    assert r.returncode == 0, r.stderr
    assert re.search(r'^wrap scan_twice\s', r.stdout, re.M), r.stdout
