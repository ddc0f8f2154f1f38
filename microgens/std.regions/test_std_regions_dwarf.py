"""Stack pointers charged by the variable they point into, where the program has debug
information (runtime/regions/stackvars.c): an int, an array, a struct's last field, a
stack-passed parameter of the caller, each among other locals that change; the same
program without -g is charged by its frames (more); its debug information in a separate
file (found by .gnu_debuglink or by build ID, as Debian's -dbgsym packages install it)
serves as well, and a debug file of another build is refused; the program's descriptors
are numbered as without the wrapper."""
import os
import shutil
import subprocess

import pytest

from dyltest import Trace, app_with_and_without_debug_info, build_c, run_both, wrap

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'apps')
HEADER = os.path.join(C_FILES, 'dw.h')
SOURCE = os.path.join(C_FILES, 'libdw.c')
APP = os.path.join(C_FILES, 'dwarf_app.c')


def build_id(path):
    out = subprocess.run(['readelf', '-n', path], capture_output=True, text=True, check=True).stdout
    return out.split('Build ID:')[1].split()[0]


def split_debug(app_g, d, name, debug_dir):
    """Copies of APP_G stripped (one build ID for all), their DWARF in separate files:
    NAME_link, with a .gnu_debuglink to .debug/NAME_link.debug; NAME_id, with none, its
    file under DEBUG_DIR/.build-id/; NAME_wrong, linked to a debug file of another build;
    and NAME_crc, built without a build ID, linked to NAME_crc.debug next to it."""
    objcopy = lambda *a: subprocess.run(['objcopy', *a], check=True)  # noqa: E731
    apps = {}
    (d / '.debug').mkdir(exist_ok=True)
    for kind in ('link', 'id', 'wrong'):
        exe = str(d / f'{name}_{kind}')
        shutil.copy(app_g, exe)
        dbg = str(d / '.debug' / f'{name}_{kind}.debug')
        objcopy('--only-keep-debug', exe, dbg)
        if kind == 'id':
            bid = build_id(exe)
            os.makedirs(os.path.join(debug_dir, '.build-id', bid[:2]), exist_ok=True)
            os.replace(dbg, os.path.join(debug_dir, '.build-id', bid[:2], bid[2:] + '.debug'))
            objcopy('--strip-all', exe)
        else:
            objcopy('--strip-all', f'--add-gnu-debuglink={dbg}', exe)
        apps[kind] = exe
    link = [f'-I{d}', str(d / 'libdw.so'), f'-Wl,-rpath,{d}']
    # without a build ID, the debug link's CRC is checked
    apps['crc'] = build_c(d, APP, f'{name}_crc', '-Wl,--build-id=none', *link)
    objcopy('--only-keep-debug', apps['crc'], str(d / f'{name}_crc.debug'))
    objcopy('--strip-all', f'--add-gnu-debuglink={d / (name + "_crc.debug")}', apps['crc'])
    # the wrong one: the same name, another build's DWARF (another build ID)
    other = build_c(d, APP, 'app_other', '-DOTHER=40', *link)
    objcopy('--only-keep-debug', other, str(d / '.debug' / f'{name}_wrong.debug'))
    assert build_id(other) != build_id(apps['wrong'])
    return apps


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('dwarf')
    lib, h, apps = app_with_and_without_debug_info(d, 'dw', HEADER, SOURCE, APP)
    apps.update(split_debug(apps['g'], d, 'app', str(d / 'debugdir')))
    # clang -O0's frame base is rbp (DW_OP_reg6), not the CFA
    apps['clang_O0'] = str(d / 'app_clang_O0')
    subprocess.run(['clang-14', '-O0', '-g', '-o', apps['clang_O0'], APP, f'-I{d}', lib,
                    f'-Wl,-rpath,{d}'], check=True)
    wrappers = {mg: wrap(d, '--lib', lib, '--header', h, '-g', mg, name=f'{mg}.so')
                for mg in ('std.regions', 'std.diff')}
    return d, apps, wrappers


def sizes(trace):
    """[(in_bytes, out_bytes)] of the trace's calls, in order"""
    return [(int(x['in_bytes']), int(x['out_bytes'])) for x in Trace(trace).by_seq()]


def charged(built, app, mg, debug_dir='nothing'):
    d, apps, wrappers = built
    (d / 'fd.txt').unlink(missing_ok=True)
    # (DEBUG_DIR: under the test's folder; the build-ID files are in 'debugdir')
    run_both([apps[app]], wrappers[mg], d, env={'DYL_DEBUG_DIR': str(d / debug_dir)},
             trace=f'{app}-{mg}.csv')
    plain, fd = [int(x) for x in (d / 'fd.txt').read_text().split()]
    # the program's descriptors are numbered as without the wrapper: reading the debug
    # information leaves none open, and libunwind's own pipe lies above the program's
    assert fd == plain
    return sizes(d / f'{app}-{mg}.csv')


def test_variables_charged_their_own_bytes(built):
    rows = charged(built, 'g', 'std.regions')
    # take(&n, x, &st.y): n 4 bytes and x 40 in, st.y to the end of st, 8 bytes, out, plus
    # the returned double; not the 256 bytes of `other` nor the rest of the frame
    assert rows[:3] == [(4 + 40, 8 + 8)] * 3
    # take(&g, x, &y) in seventh(): g is the caller's stack argument, 4 bytes, next to
    # calls_seventh's own locals
    assert rows[3] == (4 + 64, 8 + 8)


@pytest.mark.parametrize('app', ['link', 'id', 'crc'])
def test_separate_debug_file(built, app):
    """Stripped, its DWARF in a file of its own: by .gnu_debuglink (in .debug/ next to the
    program, or next to it and checked by CRC) or by build ID (under DYL_DEBUG_DIR):
    charged as the -g build."""
    assert charged(built, app, 'std.regions', 'debugdir' if app == 'id' else 'nothing') == \
        charged(built, 'g', 'std.regions')


def test_debug_file_of_another_build_is_refused(built):
    """The link names a debug file of another build (another frame layout): its build ID
    differs, so it is not read and the frames bound the pointers, as without -g."""
    assert charged(built, 'wrong', 'std.regions') == charged(built, 'stripped', 'std.regions')


def test_clang_O0_frame_base(built):
    """clang -O0 -g gives each function rbp as its frame base: the variables are found
    there (16 bytes below the CFA), and charged as in gcc's -O2 build."""
    assert charged(built, 'clang_O0', 'std.regions') == charged(built, 'g', 'std.regions')


def test_full_method_counts_the_variables_that_changed(built):
    rows = charged(built, 'g', 'std.diff')
    # the first call: n and x were written (n's 8-byte block clipped to its 4 bytes), and
    # st.y, an output the call has not written yet, holds what earlier frames left there:
    # no call saw it, so it counts as changed (the full method's known limit, 8 bytes
    # unless they happen to be zeros); then x changes every call, n and st.y do not
    assert rows[0] in [(4 + 40, 8 + 8), (4 + 40 + 8, 8 + 8)]
    assert rows[1] == rows[2] == (40, 8 + 8)
    assert rows[3] in [(4 + 64, 8 + 8), (4 + 64 + 8, 8 + 8)]


def test_without_debug_information_the_frame_bounds(built):
    rows = charged(built, 'stripped', 'std.regions')
    # by frames: the variables of a frame do not overlap, so each pointer reaches up to the
    # next argument above it in the frame (charge.c's frame_end), the highest one (here
    # &st.y, the output) to the end of locals' frame data.  The input: at least n and x
    # (with gcc -O2: n, x and st.name below &st.y, 156 bytes).
    assert all(i >= 4 + 40 and o >= 8 for i, o in rows[:3]), rows
    assert rows[0] == rows[1] == rows[2] and rows[0][0] + rows[0][1] > 4 + 40 + 100 + 8, rows


PLUGIN = os.path.join(C_FILES, 'plugin.c')
LOADER = os.path.join(C_FILES, 'loader.c')


def test_unloaded_object_forgotten(built):
    """A plugin with DWARF is dlclose'd and another one, of another frame layout, loaded
    at its place (the loader reuses the hole): the second one's stack variables come from
    its own DWARF, not the first one's (kept by address until a miss sees the loader's
    count of removals move)."""
    d, _, wrappers = built
    libs = {}
    for name, other, n, pad in (('a', 16, 3, []), ('b', 40, 6, ['-DPAD'])):
        libs[name] = build_c(d, PLUGIN, f'plugin_{name}.so', f'-DOTHER={other}', f'-DN={n}', *pad,
                             '-fPIC', '-shared', f'-I{d}',
                             str(d / 'libdw.so'), f'-Wl,-rpath,{d}')
    loader = build_c(d, LOADER, 'loader', '-ldl')
    r, _ = run_both([loader, libs['a'], libs['b']], wrappers['std.regions'], d, trace='plugins.csv')
    assert r.stdout.decode().split()[1] == 'same=1', 'the loader did not reuse the first plugin\'s place'
    rows = sizes(d / 'plugins.csv')
    run_both([loader, libs['b']], wrappers['std.regions'], d, trace='plugin_b.csv')
    alone = sizes(d / 'plugin_b.csv')
    # take(&n, x, &y): n and x (4 + 8n) in; y and the returned double out
    assert (rows, alone) == ([(4 + 24, 16), (4 + 48, 16)], [(4 + 48, 16)])
