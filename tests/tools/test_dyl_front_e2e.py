"""From a program to an answer in two commands, no file written by hand (issue 35):
`dyl record -- PROGRAM`, then `dyl report --device NAME --html FILE` (or --model), for a C
BLAS program (examples/apps/blas_cblas.c), a numpy program (examples/numpy_power.py) and
a zlib program (pigz).  Where the shipped profiles (microgens/profiles/NAME/) or dyl-speedup's
--html are not there yet, the record names its library with --lib and the report is text:
those parts skip, saying why."""
import json
import os
import re
import subprocess
import sys

import pytest

from dyltest import DEBIAN_PY, EXAMPLES, REF_BLAS, ROOT, build_c, make

DYL = os.path.join(ROOT, 'bin', 'dyl')
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data')
sys.path.insert(0, ROOT)
from generator.front import libs, report  # noqa: E402

DEVICE = 'nvidia-h100-pcie'


@pytest.fixture(scope='module', autouse=True)
def built():
    make('all')


@pytest.fixture(scope='module')
def env(tmp_path_factory):
    e = dict(os.environ, XDG_CACHE_HOME=str(tmp_path_factory.mktemp('cache')))
    e.pop('LD_PRELOAD', None)
    return e


def profiled(soname):
    """Whether a shipped profile covers SONAME (issue 35, item 3)."""
    return bool(libs.matching(libs.profiles(os.path.join(ROOT, 'microgens', 'profiles')), [soname]))


def has_html():
    return '--html' in report.speedup_options(os.path.join(ROOT, 'bin', 'dyl-speedup'))


def two_commands(env, cwd, soname, lib, command, accelerator, opts=()):
    """dyl record [--lib LIB] [OPTS] -- COMMAND; dyl report ACCELERATOR [--html]: the
    record's output (bytes) and the report's text; checks the report's S_G against
    --json's."""
    named = [] if profiled(soname) else ['--lib', lib]
    rec = subprocess.run([DYL, 'record', *named, *opts, '--', *command], cwd=cwd, env=env,
                         capture_output=True, timeout=900)
    assert rec.returncode == 0, rec.stderr.decode()
    if not named:
        assert soname in rec.stderr.decode().split('\n')[0]   # named on stderr
    html = ['--html', 'out.html'] if has_html() else []
    rep = subprocess.run([DYL, 'report', *accelerator, *html], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=300)
    assert rep.returncode == 0, rep.stderr
    m = re.search(r"S_G = (?:T / T' = )?([0-9.e+]+)", rep.stdout)   # the table's, --report's
    assert m, rep.stdout
    js = subprocess.run([DYL, 'report', *accelerator, '--json'], cwd=cwd, env=env,
                        capture_output=True, text=True, timeout=300)
    s_g = json.loads(js.stdout)['S_G']
    assert float(m.group(1)) == pytest.approx(s_g, rel=1e-3)
    if html:
        page = (cwd / 'out.html').read_text()
        assert 'S_G' in page
    return rec.stdout, rep.stdout


def rows(folder, func):
    out = []
    for name in sorted(os.listdir(folder)):
        if name.startswith('trace.') and name.endswith('.csv'):
            with open(os.path.join(folder, name)) as f:
                lines = [ln for ln in f if not ln.startswith('#')]
            head = lines[0].strip().split(',')
            out += [dict(zip(head, ln.strip().split(','))) for ln in lines[1:]]
    return [r for r in out if r['func'] == func]


def test_c_blas_program(env, tmp_path):
    blas = os.path.dirname(REF_BLAS)
    app = build_c(tmp_path, os.path.join(EXAMPLES, 'apps', 'blas_cblas.c'), 'blas_cblas',
                  REF_BLAS, f'-Wl,-rpath,{blas}')
    # the whole profile: the reference BLAS's 212 profiled functions (its -dev package's
    # cblas_f77.h declares them too, under other argument names: the profile's header wins)
    out, text = two_commands(env, tmp_path, 'libblas.so.3', REF_BLAS,
                             [app, '4', '30', '40', '50'], ['--device', DEVICE])
    assert 'cblas_dgemm' in text
    dgemm = rows(tmp_path / 'dyl.data', 'cblas_dgemm')
    assert len(dgemm) == 4
    if not profiled('libblas.so.3'):
        pytest.skip('no shipped BLAS profile (microgens/profiles/): work sizes not checked')
    assert [int(r['work']) for r in dgemm] == [2 * 30 * 40 * 50] * 4


def test_numpy_program(env, tmp_path):
    if subprocess.run([DEBIAN_PY, '-c', 'import numpy'], capture_output=True).returncode:
        pytest.skip('no numpy in Debian python3')
    out, text = two_commands(env, tmp_path, 'libblas.so.3', 'libblas.so.3',
                             [DEBIAN_PY, os.path.join(EXAMPLES, 'numpy_power.py'), '300', '10'],
                             ['--device', DEVICE])
    plain = subprocess.run([DEBIAN_PY, os.path.join(EXAMPLES, 'numpy_power.py'), '300', '10'],
                           capture_output=True)
    assert out == plain.stdout
    assert len(rows(tmp_path / 'dyl.data', 'cblas_dgemv')) == 10


def test_zlib_program(env, tmp_path):
    if not os.path.exists('/usr/bin/pigz'):
        pytest.skip('no pigz (Debian package pigz)')
    data = tmp_path / 'data.bin'
    with open(DEBIAN_PY, 'rb') as f:
        data.write_bytes(f.read(2_000_000))
    out, text = two_commands(env, tmp_path, 'libz.so.1', 'libz.so.1',
                             ['pigz', '-c', '-p', '2', str(data)],
                             ['--model', os.path.join(DATA, 'dyl_front_deflate.csv')])
    back = subprocess.run(['pigz', '-d', '-c'], input=out, capture_output=True)
    assert back.stdout == data.read_bytes()
    assert 'deflate' in text and rows(tmp_path / 'dyl.data', 'deflate')
