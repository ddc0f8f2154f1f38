"""The C unit tests: each tests/unit/NAME_test.c is one program that checks one C part.

Its first line names the project's sources it links, paths from the repository's root:
    /* sources: runtime/format/decode.c runtime/format/fmtmem.c */
It is compiled with those sources under ASan and UBSan, run, and must exit 0; it prints
one line per failed check.  A listed source that does not exist fails the test with a
message naming it (and where a file of that name now lies, if one does)."""
import glob
import os
import re
import subprocess

import pytest

from dyltest import ROOT

UNIT = os.path.dirname(os.path.abspath(__file__))
TESTS = sorted(glob.glob(os.path.join(UNIT, '*_test.c')))
CFLAGS = ['-std=gnu11', '-g', '-fsanitize=address,undefined', '-fno-sanitize-recover=all']
# (the tools' library is in folders, its headers included by bare name: each folder)
LIB_DIRS = sorted(os.path.relpath(d, ROOT) for d in glob.glob(os.path.join(ROOT, 'speedup/lib/*/')))
INCLUDES = ['runtime/format/read', 'runtime/format', 'runtime/include', 'speedup/lib', *LIB_DIRS, 'runtime']
SOURCES = re.compile(r'/\*\s*sources:([^*]*)\*/')


def sources(test):
    """The paths of TEST's first line, checked to exist."""
    with open(test) as f:
        first = f.readline()
    m = SOURCES.match(first.strip())
    assert m, f'{test}:1: no "/* sources: path/a.c ... */" line'
    paths = m.group(1).split()
    for p in paths:
        if not os.path.isfile(os.path.join(ROOT, p)):
            moved = [os.path.relpath(q, ROOT) for d in ('runtime', 'speedup')
                     for q in glob.glob(os.path.join(ROOT, d, '**', os.path.basename(p)),
                                        recursive=True)]
            hint = f' (a file of that name: {", ".join(moved)})' if moved else ''
            pytest.fail(f'{os.path.relpath(test, ROOT)}:1: source {p} does not exist{hint}')
    return paths


@pytest.mark.parametrize('test', TESTS, ids=[os.path.basename(t)[:-2] for t in TESTS])
def test_unit(test, tmp_path):
    srcs = sources(test)
    # the folders of the listed sources too: their headers are included by bare name
    dirs = INCLUDES + sorted({os.path.dirname(s) for s in srcs})
    incs = [f'-I{os.path.join(ROOT, d)}' for d in dirs if os.path.isdir(os.path.join(ROOT, d))]
    exe = str(tmp_path / os.path.basename(test)[:-2])
    cc = subprocess.run(['cc', *CFLAGS, *incs, '-o', exe, test,
                         *[os.path.join(ROOT, s) for s in srcs], '-lm', '-lpthread'],
                        capture_output=True, text=True)
    assert cc.returncode == 0, f'cc failed:\n{cc.stderr[-4000:]}'
    env = dict(os.environ, ASAN_OPTIONS='detect_leaks=1:abort_on_error=0',
               UBSAN_OPTIONS='print_stacktrace=1:halt_on_error=1')
    env.pop('LD_PRELOAD', None)
    # (bytes: a failed check may print bytes that are not UTF-8)
    r = subprocess.run([exe], capture_output=True, cwd=str(tmp_path), env=env, timeout=120)
    out = (r.stdout + r.stderr).decode(errors='backslashreplace')
    assert r.returncode == 0, f'{os.path.basename(test)} failed ({r.returncode}):\n{out[-8000:]}'
