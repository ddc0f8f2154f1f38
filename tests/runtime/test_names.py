"""Function names reach the spool at each function's first call without a system call:
stored into a names area mapped from the spool (runtime/spool.c), a new area when one is
full.  Whatever the number of areas, every row is named, at exit and after a SIGKILL."""
import collections
import os
import subprocess

import pytest

import dyltest
from dyltest import Trace, c_library, build_c, run_both

APPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'apps')
# long names: ~100 bytes a NAMES chunk, so that N of them fill several 64 KiB areas
PREFIX = 'a_function_name_long_enough_that_a_few_hundred_of_them_fill_a_names_area_'
N = 1500


@pytest.fixture(scope='module')
def names(tmp_path_factory):
    d = tmp_path_factory.mktemp('names')
    header = 'int names_anchor(void);\n' + ''.join(f'int {PREFIX}{i}(int x);\n' for i in range(N))
    source = 'int names_anchor(void) { return 0; }\n' + \
        ''.join(f'int {PREFIX}{i}(int x) {{ return x + {i}; }}\n' for i in range(N))
    lib, h = c_library(d, 'names', header, source)
    app = build_c(d, os.path.join(APPS, 'manynames.c'), 'manynames', '-L' + str(d), '-lnames',
                  f'-Wl,-rpath,{d}', '-ldl')
    so = os.path.join(str(d), 'w.so')
    dyltest.run([dyltest.DYLIBERATOR, '-q', '--lib', lib, '--header', h, '-o', so],
                env=dict(os.environ, CFLAGS='-O0'))
    return app, so


def expected(n):
    return collections.Counter({'names_anchor': 1, **{f'{PREFIX}{i}': 1 for i in range(n)}})


@pytest.mark.parametrize('n', [3, N])
def test_every_row_named(names, tmp_path, n):
    app, so = names
    r, path = run_both([app, PREFIX, str(n)], so, tmp_path)
    tr = Trace(path)
    assert collections.Counter(tr.funcs()) == expected(n)
    # one row a function, in the order called
    assert [row['func'] for row in tr.by_seq()] == \
        ['names_anchor'] + [f'{PREFIX}{i}' for i in range(n)]


def test_every_row_named_after_sigkill(names, tmp_path):
    app, so = names
    path = str(tmp_path / 'trace.csv')
    env = {k: v for k, v in os.environ.items() if k not in ('LD_PRELOAD', 'DYL_TRACE')}
    p = subprocess.Popen([app, PREFIX, str(N), 'wait'], env=dict(env, LD_PRELOAD=so, DYL_TRACE=path),
                         cwd=str(tmp_path), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert p.stdout.readline().startswith(b'called')
        assert p.stdout.readline() == b'ready\n'
    finally:
        p.kill()
        p.communicate(timeout=20)
    r = subprocess.run([os.path.join(dyltest.ROOT, 'bin', 'dyl-trace'), path],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    tr = Trace(dyltest.write_text(str(tmp_path / 'recovered.csv'), r.stdout))
    assert collections.Counter(tr.funcs()) == expected(N)
