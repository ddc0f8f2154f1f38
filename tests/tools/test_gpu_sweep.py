"""bench/devices/gpu/: the GPU sweep (gpu_sweep.c, run.sh) and its comparison (compare.py),
checked without a GPU: it compiles, it refuses politely, the comparison's arithmetic, and
the measured CSV is a model file dyl-speedup reads."""
import json
import os
import shutil
import subprocess

import pytest

from dyltest import make

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GPU = os.path.join(ROOT, 'bench', 'devices', 'gpu')
SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')
MODEL = os.path.join(ROOT, 'bin', 'dyl-model')
PY = '/usr/bin/python3'
HEADER = 'func,work,t_ns,samples,bytes,shape'
# dgemm_ 1024^3 (beta 0: bytes 8 x 3 x 1024^2) and dgemv_ 4096 x 4096 (8 (4096^2 + 2 4096)):
# the typical calls of dyl-model --device, so its rows hold their predictions
GEMM = (2 * 1024 ** 3, 3 * 8 * 1024 ** 2)
GEMV = (2 * 4096 ** 2, 8 * (4096 ** 2 + 2 * 4096))


@pytest.fixture(scope='module', autouse=True)
def built():
    make('bin/dyl-speedup', 'bin/dyl-model')


def run(*args, **kw):
    return subprocess.run(list(args), capture_output=True, text=True, **kw)


def test_sweep_compiles_without_cuda_headers(tmp_path):
    src = os.path.join(GPU, 'gpu_sweep.c')
    with open(src) as f:
        text = f.read()
    assert '#include <cu' not in text and '#include "cu' not in text
    r = run('cc', '-std=gnu11', '-Wall', '-Wextra', '-Werror', '-c', src, '-o', str(tmp_path / 'g.o'))
    assert r.returncode == 0, r.stderr


def test_dry_run_lists_the_calls_with_the_profiles_counts(tmp_path):
    """--dry-run: every point of the sweep, with the work and bytes the blas and lapack
    profiles record for the same call (counted by hand below), no CUDA needed."""
    exe = str(tmp_path / 'gpu_sweep')
    r = run('cc', '-O2', '-o', exe, os.path.join(GPU, 'gpu_sweep.c'), '-ldl', '-lm')
    assert r.returncode == 0, r.stderr
    r = run(exe, '--dry-run')
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == HEADER
    funcs = [line.split(',')[0] for line in lines[1:]]
    # squares 64..8192 and 6 thin; 256..16384; 128..8192 each; 2^8..2^22
    assert {f: funcs.count(f) for f in set(funcs)} == {
        'dgemm_': 14, 'sgemm_': 14, 'dgemv_': 7, 'dgetrf_': 7, 'dgetrs_': 7, 'dpotrf_': 7,
        'fftw_execute': 15}
    rows = set(lines)
    # getrf n = 128: 2/3 n^3 - n^2/2 + 5/6 n flops; 8 n^2 in, 8 n^2 + 4 n (pivots) out
    assert 'dgetrf_,1390016,0.000,0,262656,128x128' in rows
    # getrs n = 128, one rhs: n^2 + n (n - 1); 8 (n^2 + n) + 4 n in, 8 n out
    assert 'dgetrs_,32640,0.000,0,133632,128x128' in rows
    # potrf n = 128: n^3/3 + n^2/2 + n/6; one triangle in and out, 2 x 8 n (n + 1) / 2
    assert 'dpotrf_,707264,0.000,0,132096,128x128' in rows
    # gemm m = k = 2048, n = 8, beta 0: 2 m n k; 8 (m k + k n) in, 8 m n out
    assert 'dgemm_,67108864,0.000,0,33816576,2048x8x2048' in rows
    assert 'sgemm_,524288,0.000,0,49152,64x64x64' in rows
    # gemv 256: 2 n^2; 8 (n^2 + n) in, 8 n out; FFT 2^10: 5 n log2 n, 16 n in and out
    assert 'dgemv_,131072,0.000,0,528384,256x256' in rows
    assert 'fftw_execute,51200,0.000,0,32768,2^10' in rows


@pytest.mark.skipif(not os.path.isdir('/usr/local/cuda') or shutil.which('nvidia-smi') is not None,
                    reason='needs the CUDA libraries and no GPU')
def test_sweep_resolves_every_symbol_then_finds_no_gpu(tmp_path):
    """With CUDA's libraries but no driver, all 25 entry points load, and the first call
    that needs the GPU fails with a message and exit 1 (no CSV row)."""
    exe = str(tmp_path / 'gpu_sweep')
    r = run('cc', '-O2', '-o', exe, os.path.join(GPU, 'gpu_sweep.c'), '-ldl', '-lm')
    assert r.returncode == 0, r.stderr
    r = run(exe)
    assert r.returncode == 1
    assert 'not found' not in r.stderr and 'cannot load' not in r.stderr
    assert r.stderr.startswith('gpu_sweep: cudaGetDeviceProperties failed')
    assert r.stdout == ''


def test_run_sh_without_gpu_exits_77(tmp_path):
    """A machine whose nvidia-smi finds no GPU (a stub here, so the test holds anywhere)."""
    stub = tmp_path / 'nvidia-smi'
    stub.write_text('#!/bin/sh\necho "NVIDIA-SMI has failed" >&2\nexit 9\n')
    stub.chmod(0o755)
    env = dict(os.environ, PATH=f'{tmp_path}:/usr/bin:/bin')
    before = sorted(os.listdir(os.path.join(ROOT, 'models', 'measured')))
    r = run(os.path.join(GPU, 'run.sh'), env=env)
    assert (r.returncode, r.stdout, r.stderr) == (77, 'no GPU here: nothing measured\n', '')
    assert sorted(os.listdir(os.path.join(ROOT, 'models', 'measured'))) == before


def test_run_sh_help_and_bad_argument():
    r = run(os.path.join(GPU, 'run.sh'), '--help')
    assert r.returncode == 0 and 'models/measured/DEVICE-DATE.csv' in r.stdout
    r = run(os.path.join(GPU, 'run.sh'), '--bogus')
    assert r.returncode == 2 and r.stderr == "run.sh: unknown argument '--bogus' (see --help)\n"


def model_rows(*funcs):
    """{(func, work): t_ns} of dyl-model --device nvidia-h200's real output."""
    args = [MODEL, '--device', 'nvidia-h200']
    for f in funcs:
        args += ['-f', f]
    r = run(*args)
    assert r.returncode == 0, r.stderr
    rows = [line.split(',') for line in r.stdout.splitlines()
            if line and not line.startswith('#') and not line.startswith('func,')]
    return {(f, int(w)): float(t) for f, w, t in rows}


def test_compare_errors_by_hand(tmp_path):
    pred = model_rows('dgemm_', 'dgemv_')
    # the rows as dyl-model writes them today (doc/devices.md: 89.5 us and 40.0 us)
    assert pred['dgemm_', GEMM[0]] == 89473.434
    assert pred['dgemv_', GEMV[0]] == 39979.507
    measured = tmp_path / 'nvidia-h200-2026-11-29.csv'
    measured.write_text('\n'.join([
        '# device: NVIDIA H200 (hand-made for the test)', HEADER,
        f'dgemm_,{GEMM[0]},100000,15,{GEMM[1]},1024x1024x1024',
        f'dgemv_,{GEMV[0]},20000,15,{GEMV[1]},4096x4096']) + '\n')
    r = run(PY, os.path.join(GPU, 'compare.py'), str(measured), '--device', 'nvidia-h200')
    assert r.returncode == 0, r.stderr
    cells = {line.split('|')[1].strip(): [c.strip() for c in line.split('|')[1:-1]]
             for line in r.stdout.splitlines() if line.startswith('| `')}
    # (89473.434 - 100000) / 100000 = -10.53 %; (39979.507 - 20000) / 20000 = +99.90 %
    assert r.stdout.count('| `dgemm_` | 1024x1024x1024 |') == 1
    row = [line for line in r.stdout.splitlines() if '1024x1024x1024' in line][0]
    assert row == f'| `dgemm_` | 1024x1024x1024 | {GEMM[0]} | {GEMM[1]} | 100.0 | 89.47 | -10.5 |'
    row = [line for line in r.stdout.splitlines() if '4096x4096' in line][0]
    assert row == f'| `dgemv_` | 4096x4096 | {GEMV[0]} | {GEMV[1]} | 20.00 | 39.98 | +99.9 |'
    # the per-kernel summary: one point each
    assert cells['`dgemv_`'][-4:] == ['1', '+99.9', '+99.9', '+99.9']
    assert r.stdout.count('\n| `') == 4


def test_compare_bad_file(tmp_path):
    bad = tmp_path / 'bad.csv'
    bad.write_text('func,work,t_ns,samples,bytes\ndgemm_,x,1,1,1\n')
    r = run(PY, os.path.join(GPU, 'compare.py'), str(bad))
    assert r.returncode == 2
    assert r.stderr == f'compare.py: {bad}:2: work, t_ns and bytes must be numbers\n'


def test_measured_csv_is_a_model_dyl_speedup_reads(tmp_path):
    """The format run.sh writes ('#' lines, samples, bytes, shape) keys the model on work
    and bytes: calls at its samples get the samples' times exactly."""
    model = tmp_path / 'nvidia-h200-2026-11-29.csv'
    model.write_text('\n'.join([
        '# MEASURED model (hand-made for the test)', '# device: NVIDIA H200', HEADER,
        f'dgemm_,{GEMM[0]},100000,15,{GEMM[1]},1024x1024x1024',
        'dgemm_,16000000,20000,15,960000,200x200x200',
        f'dgemv_,{GEMV[0]},30000,15,{GEMV[1]},4096x4096']) + '\n')
    trace = tmp_path / 't.csv'
    trace.write_text('\n'.join([
        'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work',
        f'0,1,dgemm_,0,1000000,{GEMM[1] * 2 // 3},{GEMM[1] // 3},{GEMM[0]}',
        '1,1,dgemm_,2000000,1000000,640000,320000,16000000',
        '# total_ns=10000000']) + '\n')
    r = run(SPEEDUP, '--json', str(trace), str(model))
    assert r.returncode == 0, r.stderr
    k = {k['func']: k for k in json.loads(r.stdout)['kernels']}['dgemm_']
    assert (k['model_keys'], k['calls'], k['out_of_range_calls']) == ('work,bytes', 2, 0)
    assert k['predicted_ns'] == pytest.approx(120000, abs=1e-6)
