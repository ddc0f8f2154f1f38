"""bench/devices/host.sh: this machine's CPU measured as a device description
(doc/devices.md, "The host"), read back by dyl-speedup --device and dyl-model --device.
--quick keeps it to tiny sizes: the test checks the file, not the machine's figures."""
import json
import os
import subprocess
import sys

import pytest

from dyltest import make

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOST = os.path.join(ROOT, 'bench', 'devices', 'host.sh')
SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')
MODEL = os.path.join(ROOT, 'bin', 'dyl-model')
HEADER = 'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work'


@pytest.fixture(scope='module')
def described(tmp_path_factory):
    """The description --quick writes, and its rows (item, precision, unit, size, value,
    source)."""
    make('bin/dyl-speedup', 'bin/dyl-model')
    path = tmp_path_factory.mktemp('host') / 'my-cpu.csv'
    r = subprocess.run([HOST, '--quick', '-o', str(path)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    lines = [x for x in path.read_text().splitlines() if x and not x.startswith('#')]
    assert lines[0] == 'item,precision,unit,size,value,source'
    return str(path), [x.split(',', 5) for x in lines[1:]]


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True)


def test_rows_measured_and_positive(described):
    _, rows = described
    items = [r[0] for r in rows]
    assert 'link' not in items
    assert {(r[1], r[2]) for r in rows if r[0] == 'peak'} == {
        (p, u) for p in 'sd' for u in ('vector', 'matrix')}
    assert {'name', 'bandwidth', 'launch_ns', 'eff', 'mem_eff'} <= set(items)
    for item, _, _, size, value, source in rows:
        assert source.startswith('[M] bench/devices/host.sh on ')
        if item == 'name':
            continue
        assert float(value) > 0
        if item in ('eff', 'mem_eff'):
            assert float(size) > 0 and float(value) <= 1


def test_curves_by_size(described):
    """Each curve's sizes increase (the reader refuses them otherwise); the gemm curves
    reach 1 at their best size."""
    _, rows = described
    curves = {}
    for item, prec, unit, size, value, _ in rows:
        if item in ('eff', 'mem_eff'):
            curves.setdefault((item, prec, unit), []).append((float(size), float(value)))
    for key, points in curves.items():
        sizes = [s for s, _ in points]
        assert sizes == sorted(set(sizes)), key
    for prec in 'sd':
        assert max(v for _, v in curves[('eff', prec, 'matrix')]) == 1


def trace(tmp_path):
    path = tmp_path / 't.csv'
    path.write_text(f'{HEADER}\n0,1,dgemm_,0,50000000,16777216,8388608,2147483648\n'
                    f'1,1,daxpy_,60000000,1000,16,8,2\n# total_ns=100000000\n')
    return str(path)


def test_speedup_reads_it(described, tmp_path):
    path, _ = described
    r = run(SPEEDUP, '--json', trace(tmp_path), '--device', path)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    k = {x['func']: x for x in j['kernels']}
    assert k['dgemm_']['predicted_ns'] > 0 and k['daxpy_']['predicted_ns'] > 0
    assert k['dgemm_']['model_file'] == path
    assert any('no link row' in n for n in j['notes'])


def test_model_reads_it(described):
    r = run(MODEL, '--device', described[0], '-f', 'dgemm_')
    assert r.returncode == 0, r.stderr
    assert '# Link: none' in r.stdout
    assert [x for x in r.stdout.splitlines() if x.startswith('dgemm_,')]


def flow_case(tmp_path):
    """One dgemm_ call reading a 1 MiB block and writing another, with its TRACE.flow."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from test_link_model import one_call_case
    return one_call_case(tmp_path)[0]


def test_no_link_no_transfers(described, tmp_path):
    """The same description with a link row moves the 1 MiB read; without one, nothing."""
    path, _ = described
    # the link model is read from DIR/../LINK.csv, beside the description's folder
    (tmp_path / 'devices').mkdir()
    linked = tmp_path / 'devices' / 'linked.csv'
    with open(path) as f:
        linked.write_text(f.read() + 'link,,,,link-pcie5-x16,[A] for the test\n')
    (tmp_path / 'link-pcie5-x16.csv').symlink_to(
        os.path.join(ROOT, 'models', 'link-pcie5-x16.csv'))
    case = flow_case(tmp_path)
    with_link = json.loads(run(SPEEDUP, '--json', case, '--device', str(linked)).stdout)
    assert with_link['h2d_bytes'] == 1 << 20
    r = run(SPEEDUP, '--json', case, '--device', path)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j.get('h2d_bytes', 0) == 0 and j.get('d2h_bytes', 0) == 0
    assert j.get('h2d_ns', 0) == 0 and j.get('d2h_ns', 0) == 0
