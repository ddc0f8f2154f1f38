"""std.defs: user C code from --defs files, and the sizes it sets."""
import os
import pytest

from dyltest import Trace, c_app, c_library, dyliberator, run_both, wrap

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'apps')
HEADER = os.path.join(C_FILES, 'fill.h')
SOURCE = os.path.join(C_FILES, 'libfill.c')
APP = os.path.join(C_FILES, 'app.c')
DEFS = '''// sizes of fill(): n bytes in, n bytes out, and the result as the work size
libfill*::fill::prefix {
    input_size = n;
}
libfill.so:fill:postfix { output_size = n; work_size = dyl_result; /* the return value */ }
other*::fill::postfix { output_size = -12345; }
'''


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('defs')
    lib, h = c_library(d, 'fill', HEADER, SOURCE)
    return d, lib, h, c_app(d, 'app', APP, lib)


def test_sizes_from_user_code(built):
    d, lib, h, app = built
    (d / 'fill.defs').write_text(DEFS)
    w = wrap(d, '--lib', lib, '--header', h, '--defs', str(d / 'fill.defs'))
    _, tp = run_both([app], w, d)
    rows = Trace(tp).by_seq()
    ns = [1, 4, 16, 64, 256, 1024, 4096]
    assert [int(r['in_bytes']) for r in rows] == ns
    assert [int(r['out_bytes']) for r in rows] == ns
    assert [int(r['work']) for r in rows] == [n // 2 for n in ns]


def test_compile_error_names_the_defs_line(built):
    d, lib, h, _ = built
    (d / 'bad.defs').write_text('libfill*::fill::prefix {\n  input_size = n;\n  input_size = no_such_name;\n}\n')
    r = dyliberator('--lib', lib, '--header', h, '--defs', str(d / 'bad.defs'), '-o',
                    str(d / 'bad.so'), cwd=str(d), check=False)
    assert r.returncode == 2
    assert f'{d}/bad.defs:3' in r.stderr and 'no_such_name' in r.stderr


def test_syntax_error_names_file_and_line(built):
    d, lib, h, _ = built
    (d / 'syn.defs').write_text('// ok\nlibfill*::fill::middle { }\n')
    r = dyliberator('--lib', lib, '--header', h, '--defs', str(d / 'syn.defs'), '--no-build',
                    cwd=str(d), check=False)
    assert r.returncode == 2
    assert r.stderr.strip() == f"dyliberator: {d}/syn.defs:2: location 'middle' is not one of prefix, postfix"
