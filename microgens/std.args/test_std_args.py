"""std.args: argument values in the trace's args column."""
import os
import pytest

from dyltest import Trace, c_app, c_library, run_both, wrap

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'apps')
HEADER = os.path.join(C_FILES, 'args.h')
SOURCE = os.path.join(C_FILES, 'libargs.c')
APP = os.path.join(C_FILES, 'app.c')


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('args')
    lib, h = c_library(d, 'args', HEADER, SOURCE)
    return d, lib, h, c_app(d, 'app', APP, lib)


def test_values_and_const_pointees(built):
    d, lib, h, app = built
    w = wrap(d, '--lib', lib, '--header', h, '-g', 'std.args', name='args.so')
    _, tp = run_both([app], w, d, trace='a.csv')
    t = Trace(tp)
    # the trace names the wrapper, its library and its micro-generators, outermost first
    assert t.meta['wrapper'] == 'args.so: libargs.so; std.funcptr std.loader std.caller std.trace std.args std.time'
    rows = t.by_seq()
    assert len(rows) == 4
    first = rows[0]['args'].split(' ')
    # const pointers to scalars show what they point to; outputs (y) only their address
    assert first[0].startswith('n=0x') and first[0].endswith('(*=4)')
    assert first[1].endswith('(*=2.5)')
    assert first[2].startswith('y=0x') and '(*=' not in first[2]
    assert first[3].endswith('(*="T")')      # a C string, quoted
    assert first[4] == 'p={...}'
    assert first[5] == 'k=7'
    assert rows[1]['args'].split(' ')[5] == 'k=18446744073709551615'
    # a C string: at most 32 characters, escaped, '...' after; a character with its hidden
    # Fortran length (mode_len) is one character, whatever follows it in memory
    assert rows[2]['args'].startswith('name=0x')
    assert '(*="a \\"name\\"\\x09of forty characters, an"...)' in rows[2]['args']
    assert "(*='N')" in rows[2]['args'] and 'mode_len=1' in rows[2]['args']
    assert '(*="short") mode=' in rows[3]['args']


def test_deref_none(built):
    d, lib, h, app = built
    w = wrap(d, '--lib', lib, '--header', h, '-g', 'std.args:deref=none', name='args2.so')
    _, tp = run_both([app], w, d, trace='b.csv')
    assert all('(*=' not in r['args'] for r in Trace(tp).rows)
