"""Smoke tests of each command, for make check: --help, and one tiny real run each.
tests/apps/libpieces.c (calls given a buffer and its length) is wrapped by
bin/dyliberator with -g std.flow; pieces_app hands it 4 pieces of 64 bytes, with and
without the wrapper (consume() reads each piece 3 times, produce() then writes each);
the trace and its TRACE.flow then go through dyl-trace, dyl-flow, dyl-model and
dyl-speedup.  Each command's own tests (tests/tools/, tests/generator/) check the
details; these only say that each one starts, reads what the others write and answers."""
import json
import os

import pytest

from dyltest import ROOT, Trace, make, pieces_build, run, run_both, wrap

BIN = os.path.join(ROOT, 'bin')
COMMANDS = ['dyl', 'dyliberator', 'dyl-trace', 'dyl-speedup', 'dyl-flow', 'dyl-model']


@pytest.fixture(scope='module')
def stream(tmp_path_factory):
    """(folder, trace path) of pieces_app's stream run under a std.flow wrapper."""
    make('all')
    d = tmp_path_factory.mktemp('smoke')
    lib, h, app = pieces_build(d)
    w = wrap(d, '--lib', lib, '--header', h, '-g', 'std.flow')
    _, trace = run_both([app, 'stream', '64', '4'], w, d)
    return d, trace


def tool(*args):
    return run([os.path.join(BIN, args[0]), *args[1:]]).stdout


@pytest.mark.parametrize('cmd', COMMANDS)
def test_help(cmd):
    assert tool(cmd, '--help').startswith(f'usage: {cmd} ')


def test_dyliberator_wraps_and_traces(stream):
    _, trace = stream
    t = Trace(trace)
    assert t.funcs() == ['consume'] * 12 + ['produce'] * 4
    assert os.path.getsize(trace + '.flow') > 0


def test_dyl_trace_summary(stream):
    _, trace = stream
    out = tool('dyl-trace', 'summary', trace)
    assert '16 calls of 2 functions on 1 thread' in out
    assert {'consume', 'produce'} <= {ln.split()[0] for ln in out.splitlines() if ln.strip()}


def test_dyl_flow_edges(stream):
    _, trace = stream
    assert tool('dyl-flow', trace).splitlines() == [
        'producer,consumer,bytes,unique_bytes,fresh_bytes', 'host,consume,768,256,256']


def test_dyl_model_and_speedup(stream):
    d, trace = stream
    model = tool('dyl-model', trace)
    rows = [ln.split(',') for ln in model.splitlines() if not ln.startswith('#')]
    assert rows[0] == ['func', 'work', 't_ns', 'samples']
    assert {r[0] for r in rows[1:]} == {'consume', 'produce'}
    path = os.path.join(str(d), 'model.csv')
    with open(path, 'w') as f:
        f.write(model)
    assert 'all kernels' in tool('dyl-speedup', trace, path)
    j = json.loads(tool('dyl-speedup', trace, path, '--json'))
    assert (j['rows'], j['calls']) == (16, 16) and j['S_G'] > 0
