"""The forwarding core alone (std.funcptr + std.loader + std.caller, --no-default):
results returned unchanged, errno preserved, nothing recorded."""
import os

from dyltest import c_app, c_library, run_both, wrap

HEADER = 'struct big { double v[5]; };\nstruct big mk(double x);\nint fails(int e);\n'
SOURCE = r'''
#include <errno.h>
struct big mk(double x) { struct big b; for (int i = 0; i < 5; i++) b.v[i] = x * i; return b; }
int fails(int e) { errno = e; return -1; }
'''
APP = r'''
#include <errno.h>
#include <stdio.h>
#include "core.h"
int main(void) {
	struct big b = mk(1.5);
	errno = 0;
	int r = fails(33);
	printf("%g %g %d %d\n", b.v[1], b.v[4], r, errno);
	return 0;
}
'''


def test_forward_only(tmp_path):
    lib, h = c_library(tmp_path, 'core', HEADER, SOURCE)
    app = c_app(tmp_path, 'app', APP, lib)
    w = wrap(tmp_path, '--lib', lib, '--header', h, '--no-default')
    r, tp = run_both([app], w, tmp_path)
    assert r.stdout == b'1.5 6 -1 33\n'
    text = open(os.path.join(tmp_path, 'wrap.d', 'wrap.c')).read()
    assert 'dyl_enter' not in text and 'std.loader' in text
