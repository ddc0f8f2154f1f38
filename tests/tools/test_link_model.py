"""Link models (issue 24, item 2): the four shipped in models/ (PCIe 3/4/5 x16,
NVLink-C2C) and the ones dyl-model --link makes from a traced copy benchmark
(bench/residency/copybench.c over fakedev, whose copies wait out a link model's time, so
the model made from the trace holds on any machine: never faster than the model it ran
under).  dyl-speedup must read both kinds beside a kernel model."""
import csv
import io
import json
import os
import re
import subprocess
import sys

import pytest

from dyltest import ROOT, make, run, wrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flowfile import HEAP, access, flow_file, obj  # noqa: E402

MODELS = os.path.join(ROOT, 'models')
RES = os.path.join(ROOT, 'bench', 'residency')
FD = os.path.join(RES, 'fakedev')
DYL_MODEL = os.path.join(ROOT, 'bin', 'dyl-model')
DYL_SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')

# bytes per ns (GB/s) per direction, worked out in models/README.md: GT/s x 128/130 / 8 x 16
LINKS = {'pcie3-x16': 8 * 128 / 130 / 8 * 16, 'pcie4-x16': 16 * 128 / 130 / 8 * 16,
         'pcie5-x16': 32 * 128 / 130 / 8 * 16, 'nvlink-c2c': 450.0}
LATENCY_NS = 5000.0


def rows(path):
    with open(path) as f:
        text = ''.join(line for line in f if not line.startswith('#'))
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    make('bin/dyl-model', 'bin/dyl-speedup')
    out = tmp_path_factory.mktemp('fakedev')
    run(['make', '-s', '-C', os.path.join(RES, 'progs'), f'O={out}', f'{out}/copybench'])
    return out


# Each shipped link: @h2d and @d2h at 1 B, 2 B ... 1 GiB, t = 5 us + bytes / the
# vendor's per-direction rate, and '#' lines naming the source and the assumed latency.
@pytest.mark.parametrize('name', sorted(LINKS))
def test_shipped_link_models(name):
    path = os.path.join(MODELS, f'link-{name}.csv')
    got = {}
    for r in rows(path):
        got.setdefault(r['func'], {})[int(r['work'])] = float(r['t_ns'])
    assert set(got) == {'@h2d', '@d2h'}
    for d in got.values():
        assert sorted(d) == [1 << k for k in range(31)]
        for b, t in d.items():
            assert t == pytest.approx(LATENCY_NS + b / LINKS[name], abs=1e-3)
    head = open(path).read()
    assert re.search(r'PCI-SIG|NVIDIA', head) and 'ASSUMED' in head
    assert f'link-{name}.csv' in open(os.path.join(MODELS, 'README.md')).read()


def one_call_case(tmp_path):
    """A trace of one dgemm_ call (work 1000, 2 ms) reading a 1 MiB block and writing
    another, with its TRACE.flow, and a kernel model: 1 ms at any work."""
    t = tmp_path / 'trace.csv'
    t.write_text('# pid=100\nseq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args\n'
                 '0,1,dgemm_,1000000,2000000,1048576,1048576,1000,0,\n# total_ns=10000000\n')
    (tmp_path / 'trace.csv.flow').write_bytes(flow_file(
        [obj(0, HEAP, 1 << 20), obj(1, HEAP, 1 << 20), access(0, 0, 0, 1 << 20, False),
         access(0, 1, 0, 1 << 20, True)], nseq=1))
    m = tmp_path / 'kernel.csv'
    m.write_text('func,work,t_ns\ndgemm_,1,1000000\n')
    return str(t), str(m)


# dyl-speedup takes each link file beside a kernel model (exit 0, no line of the link
# file named as bad; at most warned of as matching no function).  Where the residency simulation is in (the JSON has h2d_bytes),
# the one call's 1 MiB read moves h2d in one transfer of the link's time; its output,
# never read, stays.
@pytest.mark.parametrize('name', sorted(LINKS))
def test_dyl_speedup_reads_link_models(built, tmp_path, name):
    trace, kernel = one_call_case(tmp_path)
    link = os.path.join(MODELS, f'link-{name}.csv')
    r = run([DYL_SPEEDUP, '--json', trace, kernel, link])
    # before the residency simulation, link rows are models of no traced function
    assert all("warning: model '@" in line for line in r.stderr.splitlines()
               if f'link-{name}.csv:' in line)
    j = json.loads(r.stdout)
    if 'h2d_bytes' in j:
        assert (j['h2d_bytes'], j['d2h_bytes']) == (1 << 20, 0)
        assert j['h2d_ns'] == pytest.approx(LATENCY_NS + (1 << 20) / LINKS[name], rel=1e-6)


def copy_trace(built, tmp_path, env):
    """copybench (3 copies each way at 1 KiB ... 256 KiB) traced by a wrapper of
    libfakedev.so whose work is the bytes copied."""
    w = wrap(tmp_path, '--lib', str(built / 'libfakedev.so'), '--header',
             os.path.join(FD, 'fakedev.h'), '--defs', os.path.join(FD, 'fakedev.defs'),
             '-f', 'fd_h2d', '-f', 'fd_d2h')
    trace = str(tmp_path / 'copy.csv')
    run([str(built / 'copybench'), '3', '1024', str(256 << 10)],
        env={**os.environ, **env, 'LD_PRELOAD': w, 'DYL_TRACE': trace})
    return trace


# Under FAKEDEV_LINK each copy waits out the PCIe 4 model's time, so the model made from
# the trace has @h2d and @d2h at the 9 sizes, 3 samples each, never below the model it
# ran under; and dyl-speedup reads it.
def test_dyl_model_link_from_timed_copies(built, tmp_path):
    link = os.path.join(MODELS, 'link-pcie4-x16.csv')
    trace = copy_trace(built, tmp_path, {'FAKEDEV_LINK': link})
    r = run([DYL_MODEL, '--link', 'h2d=fd_h2d', '--link', 'd2h=fd_d2h', trace])
    out = tmp_path / 'made.csv'
    out.write_text(r.stdout)
    assert '# link: @h2d rows from the calls of fd_h2d' in r.stdout
    got = rows(str(out))
    assert {x['func'] for x in got} == {'@h2d', '@d2h'}
    for d in ('@h2d', '@d2h'):
        mine = {int(x['work']): x for x in got if x['func'] == d}
        assert sorted(mine) == [1024 << k for k in range(9)]
        for b, x in mine.items():
            assert x['samples'] == '3'
            assert float(x['t_ns']) >= LATENCY_NS + b / LINKS['pcie4-x16']
    t, kernel = one_call_case(tmp_path)
    run([DYL_SPEEDUP, t, kernel, str(out)])


# Counted only (no model): the rows are there all the same; --bytes leaves the link
# rows' bytes empty (keyed on work alone); one function may give both directions
# (fd_d2h, left out by -f, gives none).
def test_dyl_model_link_counted(built, tmp_path):
    trace = copy_trace(built, tmp_path, {})
    r = run([DYL_MODEL, '--bytes', '-f', 'fd_h2d', '--link', 'h2d=fd_h2d', '--link', 'd2h=fd_h2d',
             trace])
    got = list(csv.DictReader(io.StringIO(''.join(
        line + '\n' for line in r.stdout.splitlines() if not line.startswith('#')))))
    assert {x['func'] for x in got} == {'@h2d', '@d2h'}
    assert all(x['bytes'] == '' and x['samples'] == '3' for x in got)
    assert len(got) == 18


@pytest.mark.parametrize('arg', ['h2d', 'x2d=fd_h2d', 'h2d='])
def test_dyl_model_link_bad_usage(built, tmp_path, arg):
    r = subprocess.run([DYL_MODEL, '--link', arg, '-'], input='', capture_output=True,
                       text=True)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and '--link' in r.stderr
