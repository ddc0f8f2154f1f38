"""Smoke tests of each command, for make check: --help, and one tiny real run each.
std.flow's scenario library (microgens/std.flow/apps/: produce writes 100 doubles,
transform reads them and writes 100 more, consume reads those) is wrapped by
bin/dyliberator with -g std.flow; its program runs the chain with and without the
wrapper; the trace and its TRACE.flow then go through dyl-trace, dyl-flow, dyl-model
and dyl-speedup.  Each command's own tests (tests/tools/, tests/generator/) check the
details; these only say that each one starts, reads what the others write and answers."""
import json
import os

import pytest

from dyltest import ROOT, Trace, build_c, c_library, make, run, run_both, wrap

BIN = os.path.join(ROOT, 'bin')
COMMANDS = ['dyliberator', 'dyl-trace', 'dyl-speedup', 'dyl-flow', 'dyl-model']
FL_APPS = os.path.join(ROOT, 'microgens', 'std.flow', 'apps')
KERNELS = {'produce', 'transform', 'consume'}


@pytest.fixture(scope='module')
def chain(tmp_path_factory):
    """(folder, trace path) of the chain run under a std.flow wrapper."""
    make('all')
    d = tmp_path_factory.mktemp('smoke')
    lib, h = c_library(d, 'fl', os.path.join(FL_APPS, 'fl.h'), os.path.join(FL_APPS, 'libfl.c'))
    app = build_c(d, os.path.join(FL_APPS, 'app.c'), 'app', f'-I{d}', lib,
                  f'-Wl,-rpath,{d}', '-lpthread')
    w = wrap(d, '--lib', lib, '--header', h, '-g', 'std.flow')
    _, trace = run_both([app, 'chain'], w, d)
    return d, trace


def tool(*args):
    return run([os.path.join(BIN, args[0]), *args[1:]]).stdout


@pytest.mark.parametrize('cmd', COMMANDS)
def test_help(cmd):
    assert tool(cmd, '--help').startswith(f'usage: {cmd} ')


def test_dyliberator_wraps_and_traces(chain):
    _, trace = chain
    t = Trace(trace)
    assert t.funcs() == ['produce', 'transform', 'consume']
    assert os.path.getsize(trace + '.flow') > 0


def test_dyl_trace_summary(chain):
    _, trace = chain
    out = tool('dyl-trace', 'summary', trace)
    assert '3 calls of 3 functions on 1 thread' in out
    assert KERNELS <= {ln.split()[0] for ln in out.splitlines() if ln.strip()}


def test_dyl_flow_edges(chain):
    _, trace = chain
    assert tool('dyl-flow', trace).splitlines() == [
        'producer,consumer,bytes,unique_bytes,fresh_bytes',
        'produce,transform,800,800,800',
        'transform,consume,800,800,800']


def test_dyl_model_and_speedup(chain):
    d, trace = chain
    model = tool('dyl-model', trace)
    rows = [ln.split(',') for ln in model.splitlines() if not ln.startswith('#')]
    assert rows[0] == ['func', 'work', 't_ns', 'samples']
    assert {r[0] for r in rows[1:]} == KERNELS
    path = os.path.join(str(d), 'model.csv')
    with open(path, 'w') as f:
        f.write(model)
    assert 'all kernels' in tool('dyl-speedup', trace, path)
    j = json.loads(tool('dyl-speedup', trace, path, '--json'))
    assert (j['rows'], j['calls']) == (3, 3) and j['S_G'] > 0
