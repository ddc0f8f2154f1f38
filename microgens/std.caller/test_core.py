"""The forwarding core alone (std.funcptr + std.loader + std.caller, --no-default):
results returned unchanged, errno preserved, nothing recorded."""
import os

from dyltest import c_app, c_library, run_both, wrap

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'apps')
HEADER = os.path.join(C_FILES, 'core.h')
SOURCE = os.path.join(C_FILES, 'libcore.c')
APP = os.path.join(C_FILES, 'app.c')


def test_forward_only(tmp_path):
    lib, h = c_library(tmp_path, 'core', HEADER, SOURCE)
    app = c_app(tmp_path, 'app', APP, lib)
    w = wrap(tmp_path, '--lib', lib, '--header', h, '--no-default')
    r, tp = run_both([app], w, tmp_path)
    assert r.stdout == b'1.5 6 -1 33\n'
    text = open(os.path.join(tmp_path, 'wrap.d', 'wrap.c')).read()
    assert 'dyl_enter' not in text and 'std.loader' in text
