"""dyl-speedup --device NAME and dyl-model --device NAME: kernels' times from a real
device's published figures (models/devices/NAME.csv, doc/devices.md), no model file."""
import json
import os
import re
import subprocess
import sys

import pytest

from dyltest import make

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')
MODEL = os.path.join(ROOT, 'bin', 'dyl-model')
HEADER = 'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work'
DEVICES = ['nvidia-h100-sxm', 'nvidia-h100-pcie', 'nvidia-h200', 'nvidia-a100-sxm-80g',
           'nvidia-gh200', 'amd-mi300x', 'intel-max-1550']
N, V = 1024, 4096
# dgemm_ 1024^3 (beta 0: A, B in, C out) and dgemv_ 4096 x 4096 (A, x in, y out), as
# examples/blas.defs counts them; jpeg_foo: no device library provides it
CALLS = {
    'dgemm_': (2 * 8 * N * N, 8 * N * N, 2 * N ** 3),
    'dgemv_': (8 * (V * V + V), 8 * V, 2 * V * V),
    'jpeg_foo': (10, 10, 5),
}


@pytest.fixture(scope='module', autouse=True)
def built():
    make('bin/dyl-speedup', 'bin/dyl-model')


@pytest.fixture
def trace(tmp_path):
    rows = [f'{i},1,{f},{i * 10 ** 8},{5 * 10 ** 7},{a},{b},{w}'
            for i, (f, (a, b, w)) in enumerate(CALLS.items())]
    path = tmp_path / 't.csv'
    path.write_text('\n'.join([HEADER, *rows, '# total_ns=1000000000']) + '\n')
    return str(path)


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True)


def kernels(*args):
    r = run(SPEEDUP, '--json', *args)
    assert r.returncode == 0, r.stderr
    return {k['func']: k for k in json.loads(r.stdout)['kernels']}


def table_rows(*args):
    """The report and its kernel rows' fields (the last: out of range, '-' here)."""
    r = run(SPEEDUP, *args)
    assert r.returncode == 0, r.stderr
    return r.stdout, {line.split()[0]: line.split() for line in r.stdout.splitlines()
                      if line.split() and line.split()[0] in (*CALLS, 'daxpy_')}


def test_h100_dgemm_and_dgemv(trace):
    k = kernels(trace, '--device', 'nvidia-h100-sxm')
    # FP64 tensor 66.9 TF/s: 2^31 flops take 32 us at peak; HBM3 3.35 TB/s: 134 MB 40 us
    assert 32e3 < k['dgemm_']['predicted_ns'] < 200e3
    assert 40e3 < k['dgemv_']['predicted_ns'] < 200e3
    assert k['dgemm_']['model_file'].endswith('models/devices/nvidia-h100-sxm.csv')
    assert (k['dgemm_']['bounded_by'], k['dgemv_']['bounded_by']) == ('compute', 'memory')


def test_bounded_by(trace):
    out, rows = table_rows(trace, '--device', 'nvidia-h100-sxm')
    assert 'bounded by' in out.splitlines()[3]
    assert rows['dgemm_'][-2] == 'compute'
    assert rows['dgemv_'][-2] == 'memory'


def test_bounded_by_launch(tmp_path):
    path = tmp_path / 'small.csv'
    path.write_text(f'{HEADER}\n0,1,daxpy_,0,1000,16,8,2\n# total_ns=100000\n')
    _, rows = table_rows(str(path), '--device', 'nvidia-h100-sxm')
    assert rows['daxpy_'][-2] == 'launch'


def test_no_column_without_device(trace, tmp_path):
    model = tmp_path / 'm.csv'
    model.write_text('func,work,t_ns\ndgemm_,1,1000\ndgemv_,1,1000\n')
    out, rows = table_rows(trace, str(model))
    assert 'bounded by' not in out
    assert 'bounded_by' not in run(SPEEDUP, '--json', trace, str(model)).stdout
    assert rows['dgemm_'][-2] not in ('compute', 'memory', 'launch', 'link')


def test_unknown_device(trace):
    for cmd in ([SPEEDUP, trace, '--device', 'no-such-gpu'],
                [MODEL, '--device', 'no-such-gpu', '-f', 'dgemm_']):
        r = run(*cmd)
        assert r.returncode == 2
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and 'no-such-gpu' in lines[0]
        assert all(d in lines[0] for d in DEVICES)


def test_not_provided_stays_on_host(trace):
    r = run(SPEEDUP, '--json', trace, '--device', 'nvidia-h100-sxm')
    j = json.loads(r.stdout)
    assert 'jpeg_foo' not in {k['func'] for k in j['kernels']}
    assert 'jpeg_foo' in {k['func'] for k in j['not_accelerated']}
    assert any('not provided' in n and 'jpeg_foo' in n for n in j['notes'])


@pytest.mark.parametrize('device', DEVICES)
def test_model_file_reads_back(trace, tmp_path, device):
    r = run(MODEL, '--device', device, '-f', 'dgemm_', '-f', 'dgemv_')
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith('# Model of device ' + device)
    model = tmp_path / 'm.csv'
    model.write_text(r.stdout)
    direct = kernels(trace, '--device', device)
    via = kernels(trace, str(model))
    for f in ('dgemm_', 'dgemv_'):
        assert via[f]['predicted_ns'] == pytest.approx(direct[f]['predicted_ns'], rel=1e-6)


def test_model_refuses_unprovided():
    r = run(MODEL, '--device', 'amd-mi300x', '-f', 'jpeg_foo')
    assert r.returncode == 2 and 'jpeg_foo' in r.stderr


def flow_case(tmp_path):
    """One dgemm_ call reading a 1 MiB block and writing another, with its TRACE.flow."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from test_link_model import one_call_case
    return one_call_case(tmp_path)[0]


# the device's link model (models/link-*.csv) moves the data: 5 us + bytes / GB/s
@pytest.mark.parametrize('device,gbps', [('nvidia-h100-sxm', 32 * 128 / 130 / 8 * 16),
                                         ('nvidia-a100-sxm-80g', 16 * 128 / 130 / 8 * 16),
                                         ('nvidia-gh200', 450.0)])
def test_device_link(tmp_path, device, gbps):
    r = run(SPEEDUP, '--json', flow_case(tmp_path), '--device', device)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j['h2d_bytes'] == 1 << 20
    assert j['h2d_ns'] == pytest.approx(5000 + (1 << 20) / gbps, rel=1e-4)


def test_plan_with_device(tmp_path):
    # --device's models are keyed on bytes too: the plans take each call's f(work, bytes)
    # (they once left such functions out: no plan at all under --device)
    r = run(SPEEDUP, '--json', '--plan', flow_case(tmp_path), '--device', 'nvidia-h100-sxm')
    assert r.returncode == 0, r.stderr
    plans = {p['name']: p for p in json.loads(r.stdout)['plans']}
    assert plans['all']['functions'] == ['dgemm_']
    assert plans['all']['h2d_bytes'] == 1 << 20


DESCRIPTION = '''# a device of one's own, given by its path
item,precision,unit,size,value,source
name,,,,Test device,
peak,d,vector,,1e12,made up, with a comma
peak,d,matrix,,4e12,
peak,s,vector,,2e12,
peak,s,matrix,,8e12,
bandwidth,,,,1e12,
launch_ns,,,,1000,
link,,,,link-pcie5-x16,
'''


def test_formula_of_a_device_file(tmp_path):
    """No efficiency rows: the peaks themselves.  daxpy_ of 10^6: 2 us of compute, 24 us of
    memory; dgemm_ of 2 x 10^9 flops on the matrix units: 500 us; launch 1 us on top."""
    dev = tmp_path / 'mine.csv'
    dev.write_text(DESCRIPTION)
    path = tmp_path / 't.csv'
    path.write_text(f'{HEADER}\n0,1,daxpy_,0,10000000,16000000,8000000,2000000\n'
                    f'1,1,dgemm_,20000000,10000000,8000,8000,2000000000\n# total_ns=100000000\n')
    k = kernels(str(path), '--device', str(dev))
    assert k['daxpy_']['predicted_ns'] == pytest.approx(25000)
    assert k['dgemm_']['predicted_ns'] == pytest.approx(501000)
    assert (k['daxpy_']['bounded_by'], k['dgemm_']['bounded_by']) == ('memory', 'compute')


def test_malformed_device_file(tmp_path):
    dev = tmp_path / 'bad.csv'
    dev.write_text(DESCRIPTION.replace('bandwidth,,,,1e12,\n', ''))
    path = tmp_path / 't.csv'
    path.write_text(f'{HEADER}\n0,1,daxpy_,0,1000,16,8,2\n# total_ns=100000\n')
    r = run(SPEEDUP, str(path), '--device', str(dev))
    assert r.returncode == 2 and 'bandwidth' in r.stderr


def test_installed_commands_find_the_devices(tmp_path, trace):
    """make install puts models/ under PREFIX/lib/dyliberator/, where the commands look."""
    r = run('make', '-s', '-C', ROOT, 'install', f'PREFIX={tmp_path}/inst')
    assert r.returncode == 0, r.stderr
    r = run(f'{tmp_path}/inst/bin/dyl-speedup', trace, '--device', 'nvidia-h100-sxm')
    assert r.returncode == 0, r.stderr
    assert 'lib/dyliberator/models/devices/nvidia-h100-sxm.csv' in r.stdout


def test_nothing_provided_says_what_to_do(tmp_path):
    # a trace of libjpeg's calls only: no device library provides them; the one line
    # names the device and the traced functions, and points to a model of one's own
    path = tmp_path / 'jpeg.csv'
    path.write_text('\n'.join([HEADER, '0,1,jpeg_write_scanlines,0,5000,300,0,100',
                               '# total_ns=1000000']) + '\n')
    r = run(SPEEDUP, str(path), '--device', 'nvidia-h100-pcie')
    assert r.returncode == 1 and r.stdout == ''
    (line,) = r.stderr.splitlines()
    assert "H100 PCIe" in line and 'provide none of the traced functions' in line
    assert '(jpeg_write_scanlines)' in line and '--model FILE' in line


def test_mpi_ranks_with_device(tmp_path):
    # an MPI job's section (speedup/dyl-speedup/mpi.c) replaces the kernels with the
    # device's models too (keyed on work and bytes; they were left out: 0 kernels)
    paths = []
    for r in (0, 1):
        p = tmp_path / f'r{r}.csv'
        p.write_text(f'''# dyliberator trace 1
# pid=10{r}
# start_ns=1000000000000
# mpi_rank={r}
# mpi_size=2
# mpi_host=h
{HEADER},depth,args,mpi_comm,mpi_peer,mpi_tag,mpi_seq,mpi_req
0,10{r},MPI_Init,0,1000,0,0,,0,,,,,,
1,10{r},dgemm_,2000,50000000,25165824,8388608,{2 * 1024 ** 3},0,,,,,,
2,10{r},MPI_Barrier,50003000,1000,0,0,,0,,0,,,0,
3,10{r},MPI_Finalize,50005000,1000,0,0,,0,,,,,,
# total_ns=50010000
''')
        paths.append(str(p))
    r = run(SPEEDUP, *paths, '--device', 'nvidia-h100-pcie')
    assert r.returncode == 0, r.stderr
    text = r.stdout[r.stdout.index('MPI job:'):]
    rows = re.findall(r'^([01])\s+h\s+.*\s(\d+)$', text, re.M)
    assert rows == [('0', '1'), ('1', '1')], text      # one kernel replaced per rank
    # the device's own figure for one 1024^3 dgemm_ (test_h100_dgemm_and_dgemv's)
    f = json.loads(run(SPEEDUP, '--json', paths[0], '--device', 'nvidia-h100-pcie').stdout)
    (k,) = [k for k in f['kernels'] if k['func'] == 'dgemm_']
    m = re.search(r"between MPI_Init and MPI_Finalize: T = ([\d.]+) ms, predicted T' = ([\d.]+)", text)
    assert float(m.group(1)) == 50.004
    assert float(m.group(2)) == pytest.approx(50.004 - 50.0 + k['predicted_ns'] / 1e6, abs=0.002)
