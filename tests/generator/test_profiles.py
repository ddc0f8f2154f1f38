"""Library profiles (microgens/profiles/, generator/profiles.py): which profile applies to
which --lib, what --profile and --list-profiles do, what a profile restricts, and its
errors.  Fast: --list and --no-build only (the profiles' own tests build and run)."""
import os
import re
import subprocess
import types

import pytest

from dyltest import DYLIBERATOR, ROOT, list_verdicts
from generator import defs as defsmod
from generator import profiles

PROFILES = os.path.join(ROOT, 'microgens', 'profiles')
ZLIB_FUNCS = {'deflate', 'inflate', 'compress', 'compress2', 'uncompress', 'uncompress2',
              'crc32', 'crc32_z', 'adler32', 'adler32_z', 'gzread', 'gzwrite', 'gzfread',
              'gzfwrite'}


def gen(*args, cwd=None):
    return subprocess.run([DYLIBERATOR, *args], capture_output=True, text=True, cwd=cwd)


def lib(soname, path=None):
    return types.SimpleNamespace(soname=soname, path=path or f'/usr/lib/{soname}')


def tiny_profile(tmp_path, toml, defs=''):
    """A profile folder of TMP_PATH/mine: profile.toml and mine.defs."""
    d = tmp_path / 'mine'
    d.mkdir(exist_ok=True)
    (d / 'profile.toml').write_text(toml)
    (d / 'mine.defs').write_text(defs)
    return str(d)


def test_shipped_profiles_load_and_match_their_libraries():
    found = profiles.discover([PROFILES])
    for name in ('zlib', 'fftw', 'jpeg', 'openssl-evp'):
        assert name in found, sorted(found)
    assert found['zlib'].matches(lib('libz.so.1'))
    assert found['fftw'].matches(lib('libfftw3.so.3')) and found['fftw'].matches(lib('libfftw3f.so.3'))
    assert not found['fftw'].matches(lib('libfftw3l.so.3'))
    assert found['jpeg'].matches(lib('libjpeg.so.62'))
    assert found['openssl-evp'].matches(lib('libcrypto.so.3'))
    assert not found['zlib'].matches(lib('libzstd.so.1'))
    # every shipped profile's --defs files parse, and name functions only with '*'
    for p in found.values():
        for d in defsmod.load(p.defs):
            assert d.library == '*', (d.file, d.line)


def test_choose_auto_none_and_names():
    found = profiles.discover([PROFILES])
    z, c = lib('libz.so.1'), lib('libcrypto.so.3')
    auto = profiles.choose(found, [], [z, c])
    assert sorted((p.name, [x.soname for x in libs]) for p, libs in auto) == \
        [('openssl-evp', ['libcrypto.so.3']), ('zlib', ['libz.so.1'])]
    assert profiles.choose(found, ['none'], [z]) == []
    # a profile named that matches no --lib applies to them all
    named = profiles.choose(found, ['fftw'], [z])
    assert [(p.name, [x.soname for x in libs]) for p, libs in named] == [('fftw', ['libz.so.1'])]
    with pytest.raises(profiles.ProfileProblem, match='--profile none cannot be combined'):
        profiles.choose(found, ['none', 'zlib'], [z])
    with pytest.raises(profiles.ProfileProblem, match=r'no such profile \(known: .*zlib'):
        profiles.choose(found, ['zlibb'], [z])


def test_list_profiles_names_each_profile_and_its_libraries():
    r = gen('--list-profiles')
    assert r.returncode == 0, r.stderr
    heads = [l.split()[0] for l in r.stdout.splitlines() if l and not l.startswith(' ')]
    assert {'zlib', 'fftw', 'jpeg', 'openssl-evp'} <= set(heads)
    assert '    libraries: libz.so*' in r.stdout.splitlines()
    assert any(l.startswith('    functions: deflate, inflate,') for l in r.stdout.splitlines())


def test_auto_wraps_the_profiles_functions_and_none_the_whole_library():
    auto = gen('--lib', 'libz.so.1', '--list')
    assert auto.returncode == 0, auto.stderr
    v = list_verdicts(auto.stdout)
    assert set(v['wrap']) == ZLIB_FUNCS
    assert v['skip']['deflateInit_'].startswith('not in the functions of profile zlib')
    assert 'profile zlib applied to libz.so.1' in auto.stderr
    none = list_verdicts(gen('--lib', 'libz.so.1', '--list', '--profile', 'none').stdout)
    assert ZLIB_FUNCS < set(none['wrap']) and 'deflateInit_' in none['wrap']
    # -f chooses, the profile's blocks still apply
    f = list_verdicts(gen('--lib', 'libz.so.1', '--list', '-f', 'deflate*').stdout)
    assert {'deflate', 'deflateInit_', 'deflateEnd'} <= set(f['wrap'])
    # --no-default (the forwarding core alone): no profile unless named
    core = gen('--lib', 'libz.so.1', '--list', '--no-default')
    assert 'deflateInit_' in list_verdicts(core.stdout)['wrap'] and 'profile' not in core.stderr
    named = gen('--lib', 'libz.so.1', '--list', '--no-default', '--profile', 'zlib')
    assert set(list_verdicts(named.stdout)['wrap']) == ZLIB_FUNCS
    # -q: nothing said
    assert gen('--lib', 'libz.so.1', '--list', '-q').stderr == ''


def test_profile_blocks_in_wrap_c_and_a_users_block_replaces_them(tmp_path):
    user = tmp_path / 'user.defs'
    user.write_text('*::deflate::postfix { work_size = 7; }\n')
    r = gen('--lib', 'libz.so.1', '--no-build', '-o', str(tmp_path / 'w.so'), '--defs', str(user))
    assert r.returncode == 0, r.stderr
    wrap_c = (tmp_path / 'w.d' / 'wrap.c').read_text()
    # each wrapper starts with '/* NAME: header:line */'
    parts = re.split(r'^/\* (\w+): \S+:\d+ \*/$', wrap_c, flags=re.M)
    body = dict(zip(parts[1::2], parts[2::2]))
    zdefs = os.path.join(PROFILES, 'zlib', 'zlib.defs')
    assert f'#line 1 "{user}"' in body['deflate'] and zdefs not in body['deflate']
    assert '#line ' in body['inflate'] and zdefs in body['inflate']
    assert 'work_size = output_size;' in body['inflate']
    assert '#include "/usr/include/zlib.h"' in wrap_c


def test_a_profile_of_ones_own_by_folder_and_the_note_of_functions_without_work(tmp_path):
    d = tiny_profile(tmp_path, 'summary = "two checksums"\nlibs = ["libz.so*"]\n'
                     'defs = ["mine.defs"]\nfunctions = ["crc32", "adler32"]\n',
                     '*::crc32::postfix { work_size = 3 * (int64_t)len; }\n')
    r = gen('--lib', 'libz.so.1', '--profile', d, '--no-build', '-o', str(tmp_path / 'w.so'))
    assert r.returncode == 0, r.stderr
    assert f'profile mine applied to libz.so.1 ({d};' in r.stderr
    # adler32 is wrapped and has no work size: said, by name
    assert ('profile mine: no work size for 1 of the wrapped functions (adler32): their calls '
            'are traced with an empty work column') in r.stderr
    assert 'work_size = 3 * (int64_t)len;' in (tmp_path / 'w.d' / 'wrap.c').read_text()
    # its folder named and the shipped zlib one by auto: both apply, their functions united
    v = list_verdicts(gen('--lib', 'libz.so.1', '--profile', d, '--profile', 'auto', '--list').stdout)
    assert set(v['wrap']) == ZLIB_FUNCS


@pytest.mark.parametrize('toml, said', [
    ('summary = "x"\nlibs = ["libz.so*"]\nfunctons = ["crc32"]\n',
     "profile.toml: unknown key(s) functons"),
    ('summary = "x"\n', "profile.toml: the key 'libs' is missing"),
    ('summary = "x"\nlibs = "libz.so*"\n', 'profile.toml: libs must be a list of strings'),
    ('summary = "x"\nlibs = ["libz.so*"]\ndefs = ["nothere.defs"]\n', 'mine/nothere.defs is not a file'),
    ('summary = "x"\nlibs = ["libz.so*"\n', 'profile.toml: '),
])
def test_a_bad_profile_is_one_line_naming_its_file_exit_2(tmp_path, toml, said):
    d = tiny_profile(tmp_path, toml)
    r = gen('--lib', 'libz.so.1', '--profile', d, '--list')
    assert r.returncode == 2
    assert r.stderr.count('\n') == 1 and r.stderr.startswith('dyliberator: ' + d)
    assert said in r.stderr


def test_auto_leaves_out_a_profile_whose_header_is_not_there(tmp_path):
    """(a shipped profile names a system header: without its -dev package the library is
    wrapped as before, and dyliberator says why the profile was not applied)"""
    d = tiny_profile(tmp_path, 'summary = "x"\nlibs = ["libz.so*"]\nfunctions = ["crc32"]\n'
                     'headers = ["/nonexistent/zlib.h"]\n')
    found = {'mine': profiles.load(d)}
    said = []
    assert profiles.choose(found, ['auto'], [lib('libz.so.1')], said.append) == []
    assert said == [f'{d}/profile.toml: /nonexistent/zlib.h is not a file: profile mine not '
                    'applied (a -dev package not installed?)']


def test_unknown_profile_name_exit_2():
    r = gen('--lib', 'libz.so.1', '--profile', 'zlibb', '--list')
    assert r.returncode == 2 and r.stderr.count('\n') == 1
    assert '--profile zlibb: no such profile' in r.stderr
