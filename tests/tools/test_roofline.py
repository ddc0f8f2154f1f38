"""bench/devices/roofline.py: a device's roofline plot (SVG) with a trace's kernels on it,
from dyl-speedup --device --json (its per-kernel work, bytes and call shapes)."""
import json
import os
import subprocess
import xml.etree.ElementTree as ET

import pytest

from dyltest import make

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, 'bench', 'devices', 'roofline.py')
SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')
SVG = '{http://www.w3.org/2000/svg}'
HEADER = 'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work'
N, V = 1024, 4096
# dgemm_ 1024^3 twice and 256^3 once (two shapes), dgemv_ 4096 x 4096 once
ROWS = [('dgemm_', 2 * 8 * N * N, 8 * N * N, 2 * N ** 3),
        ('dgemm_', 2 * 8 * N * N, 8 * N * N, 2 * N ** 3),
        ('dgemm_', 2 * 8 * 256 ** 2, 8 * 256 ** 2, 2 * 256 ** 3),
        ('dgemv_', 8 * (V * V + V), 8 * V, 2 * V * V)]


@pytest.fixture
def trace(tmp_path):
    """The calls of ROWS, 0.1 s apart, each 50 ms long, in a 1 s run; the tools built."""
    make('bin/dyl-speedup', 'bin/dyl-model')
    lines = [HEADER] + [f'{i},1,{func},{i * 10 ** 8},{5 * 10 ** 7},{a},{b},{w}'
                        for i, (func, a, b, w) in enumerate(ROWS)]
    path = tmp_path / 'tiny.csv'
    path.write_text('\n'.join(lines + ['# total_ns=1000000000', '']))
    return str(path)


def plot(tmp_path, *args):
    out = tmp_path / 'r.svg'
    r = subprocess.run(['/usr/bin/python3', SCRIPT, *args, '-o', str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return ET.parse(out).getroot()     # well-formed XML, or this raises


def texts(root):
    return [''.join(t.itertext()) for t in root.iter(SVG + 'text')]


def test_json_has_the_points(trace):
    r = subprocess.run([SPEEDUP, trace, '--device', 'nvidia-h100-sxm', '--json'],
                       capture_output=True, text=True)
    k = {k['func']: k for k in json.loads(r.stdout)['kernels']}
    assert k['dgemm_']['work'] == 2 * 2 * N ** 3 + 2 * 256 ** 3
    assert k['dgemm_']['bytes'] == 2 * 3 * 8 * N * N + 3 * 8 * 256 ** 2
    assert sorted(s[:2] for s in k['dgemm_']['shapes']) == [[2 * 256 ** 3, 3 * 8 * 256 ** 2],
                                                            [2 * N ** 3, 3 * 8 * N * N]]
    assert sum(s[2] for s in k['dgemv_']['shapes']) == pytest.approx(k['dgemv_']['predicted_ns'])


def test_plot(tmp_path, trace):
    root = plot(tmp_path, 'nvidia-h100-sxm', f'tiny={trace}')
    assert root.tag == SVG + 'svg'
    words = texts(root)
    assert any('NVIDIA H100 SXM5 80GB' in t and 'nvidia-h100-sxm' in t for t in words)
    assert any('arithmetic intensity' in t and 'flop/byte' in t for t in words)
    assert any('achieved rate' in t and 'flop/s' in t for t in words)
    assert any(t.startswith('memory 3.35 TB/s') for t in words)
    assert any('FP64 vector: 33.5 Tflop/s' in t for t in words)
    assert 'tiny' in words
    # one large point per kernel, one small per call shape
    kernels = [e for e in root.iter() if e.get('class') == 'kernel']
    assert sorted(e.get('data-func') for e in kernels) == ['dgemm_', 'dgemv_']
    assert len([e for e in root.iter() if e.get('class') == 'call']) == 3


def test_plot_without_traces(tmp_path):
    make('bin/dyl-model')
    root = plot(tmp_path, 'amd-mi300x')
    assert any('AMD Instinct MI300X' in t for t in texts(root))
    assert not [e for e in root.iter() if e.get('class') == 'kernel']
    assert len([e for e in root.iter() if e.get('class') == 'curve']) == 3
