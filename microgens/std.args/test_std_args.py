"""std.args: argument values in the trace's args column."""
import csv
import io
import os
import subprocess

import pytest

from dyltest import ROOT, Trace, c_app, c_library, make, run_both, wrap

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'apps')
HEADER = os.path.join(C_FILES, 'args.h')
SOURCE = os.path.join(C_FILES, 'libargs.c')
APP = os.path.join(C_FILES, 'app.c')
DYL_TRACE = os.path.join(ROOT, 'bin', 'dyl-trace')


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    make('bin/dyl-trace')
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
    assert first[3] == 'trans="T"'     # a C string, as a string
    assert first[4] == 'p={...}'
    assert first[5] == 'k=7'
    assert rows[1]['args'].split(' ')[5] == 'k=18446744073709551615'
    # a C string: at most 32 characters, escaped, '...' after; a character with its hidden
    # Fortran length (mode_len) is one character, whatever follows it in memory
    assert rows[2]['args'].startswith('name="a \\"name\\"\\x09of forty characters, an"... mode=0x')
    assert "(*='N')" in rows[2]['args'] and 'mode_len=1' in rows[2]['args']
    assert rows[3]['args'].startswith('name="short" mode=')


def test_deref_none(built):
    d, lib, h, app = built
    w = wrap(d, '--lib', lib, '--header', h, '-g', 'std.args:deref=none', name='args2.so')
    _, tp = run_both([app], w, d, trace='b.csv')
    assert all('(*=' not in r['args'] for r in Trace(tp).rows)


def test_bad_strings(built):
    """A string argument that is no string: 1, NULL, one running into an unmapped page.
    The run's output equals the plain run's (run_both): no crash, and the errno the
    program set before each call reaches the library unchanged."""
    d, lib, h, app = built
    bad = c_app(d, 'app_bad', os.path.join(C_FILES, 'app_bad.c'), lib)
    w = wrap(d, '--lib', lib, '--header', h, '-f', 'tag', '-g', 'std.args', name='args3.so')
    r, tp = run_both([bad], w, d, trace='c.csv')
    assert r.stdout.decode().split() == ['1000', '1001', '-1', '1003']
    assert [row['args'] for row in Trace(tp).by_seq()] == [
        's="sha256"', 's=0x1(unreadable)', 's=(nil)', 's="abc"...']
    # the args column's quoting stays valid CSV: dyl-trace prints the trace back the same
    out = subprocess.run([DYL_TRACE, tp], capture_output=True, text=True, check=True).stdout
    body = ''.join(line for line in out.splitlines(True) if not line.startswith('#'))
    assert [x['args'] for x in csv.DictReader(io.StringIO(body))] == [
        's="sha256"', 's=0x1(unreadable)', 's=(nil)', 's="abc"...']
