"""-f patterns that select nothing: the generator names them and the closest exported
names ('did you mean tiny_add?'), as an error when nothing is left to wrap, as a warning
otherwise."""
import os

from dyltest import DYLIBERATOR, TEST_APPS, c_library, run


def generate(tmp_path, *patterns):
    lib, h = c_library(tmp_path, 'tiny', os.path.join(TEST_APPS, 'tiny.h'),
                       os.path.join(TEST_APPS, 'libtiny.c'))
    args = [DYLIBERATOR, '--no-build', '--lib', lib, '--header', h, '-o', str(tmp_path / 'w.so')]
    for p in patterns:
        args += ['-f', p]
    return run(args, check=False, cwd=str(tmp_path))


def test_nothing_selected_says_what_was_meant(tmp_path):
    r = generate(tmp_path, 'tiny_ad', 'nope*')
    assert r.returncode == 2
    assert '-f tiny_ad matches no exported function; did you mean tiny_add?' in r.stderr
    assert '-f nope* matches no exported function; --list' in r.stderr
    assert len(r.stderr.splitlines()) == 1, r.stderr


def test_one_pattern_of_several_selects_nothing(tmp_path):
    r = generate(tmp_path, 'tiny_add', 'tiny_outr', '!tiny_sleep_us')
    assert r.returncode == 0, r.stderr
    assert 'warning: -f tiny_outr matches no exported function; did you mean tiny_outer?' in r.stderr
    assert 'tiny_add matches no' not in r.stderr     # exclusions and matches say nothing


def test_defs_for_a_function_left_out_by_f_is_no_mistake(tmp_path):
    # one defs file serves several wrappers: an entry for an exported function that -f
    # left out says nothing; one for a name the library does not export is warned
    d = tmp_path / 'w.defs'
    d.write_text('libtiny*::tiny_outer::prefix { work_size = 1; }\n'
                 'libtiny*::tiny_nope::prefix { work_size = 2; }\n')
    lib, h = c_library(tmp_path, 'tiny', os.path.join(TEST_APPS, 'tiny.h'),
                       os.path.join(TEST_APPS, 'libtiny.c'))
    r = run([DYLIBERATOR, '--no-build', '--lib', lib, '--header', h, '-f', 'tiny_add',
             '--defs', str(d), '-o', str(tmp_path / 'w.so')], check=False, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    warned = [x for x in r.stderr.splitlines() if 'matches no wrapped function' in x]
    assert len(warned) == 1 and f'{d}:2' in warned[0], r.stderr
