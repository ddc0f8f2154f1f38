"""make install PREFIX=DIR: the commands in DIR/bin, the rest in DIR/lib/dyliberator,
relocatable (the tree still works after it is moved); man pages, docs and completion
under DIR/share; the installed --help examples work from any folder."""
import json
import os
import shutil
import subprocess

from dyltest import EXAMPLES, REF_BLAS, ROOT, Trace, build_c, c_app, c_library, run, run_both

VERSION = open(os.path.join(ROOT, 'VERSION')).read().strip()
C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'install')
HEADER = os.path.join(C_FILES, 'inc.h')
SOURCE = os.path.join(C_FILES, 'libinc.c')
APP = os.path.join(C_FILES, 'app.c')


def commands():
    """Every command: bin/dyl* (the scripts) and speedup/dyl-NAME/ (the C tools)."""
    tools = [f for f in os.listdir(os.path.join(ROOT, 'speedup'))
             if f.startswith('dyl-') and os.path.isfile(os.path.join(ROOT, 'speedup', f, 'main.c'))]
    scripts = [f for f in os.listdir(os.path.join(ROOT, 'bin')) if f.startswith('dyl')]
    return sorted(set(tools + scripts))


def test_install_then_move(tmp_path):
    first = tmp_path / 'first'
    run(['make', '-s', '-C', ROOT, 'install', f'PREFIX={first}'])
    moved = tmp_path / 'moved'
    shutil.move(str(first), str(moved))
    assert sorted(os.listdir(moved / 'bin')) == commands()
    lib, h = c_library(tmp_path, 'inc', HEADER, SOURCE)
    app = c_app(tmp_path, 'app', APP, lib)
    w = str(tmp_path / 'w.so')
    run([str(moved / 'bin' / 'dyliberator'), '-q', '--lib', lib, '--header', h, '-o', w])
    makefile = open(tmp_path / 'w.d' / 'Makefile').read()
    assert str(moved / 'lib' / 'dyliberator') in makefile and ROOT + '/' not in makefile
    r, tp = run_both([app], w, tmp_path)
    assert r.stdout == b'7\n' and Trace(tp).count('inc') == 7
    assert 'usage' in run([str(moved / 'bin' / 'dyl-speedup'), '--help']).stdout.lower()


def test_installed_help_examples_from_another_folder(tmp_path):
    """make install DESTDIR=D PREFIX=/opt/dyl, then --help's examples run in an empty folder:
    examples/ and models/ paths, --device names, man pages, completion."""
    dest = tmp_path / 'dest'
    run(['make', '-s', '-C', ROOT, 'install', f'DESTDIR={dest}', 'PREFIX=/opt/dyl'])
    prefix = dest / 'opt' / 'dyl'
    share = prefix / 'share'
    elsewhere = tmp_path / 'elsewhere'
    elsewhere.mkdir()
    env = dict(os.environ, PATH=f'{prefix / "bin"}:/usr/bin:/bin')

    def cmd(*args, rc=0, **extra):
        r = subprocess.run(list(map(str, args)), cwd=elsewhere, env=dict(env, **extra),
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == rc, r.stderr
        return r

    for c in commands():
        assert cmd(c, '--version').stdout == f'{c} (dyliberator) {VERSION}\n'
        assert os.path.isfile(share / 'man' / 'man1' / f'{c}.1')
        assert os.path.exists(share / 'bash-completion' / 'completions' / c)
    for f in ('VERSION', 'examples/blas.h', 'models/devices/nvidia-h100-sxm.csv',
              'microgens/std.trace', 'build/libdylrt.so'):
        assert os.path.exists(prefix / 'lib' / 'dyliberator' / f), f
    assert os.path.isfile(share / 'doc' / 'dyliberator' / 'README.md')
    # dyliberator's example: examples/blas.h and examples/blas.defs from the install
    cmd('dyliberator', '-q', '--lib', REF_BLAS, '--header', 'examples/blas.h',
        '--defs', 'examples/blas.defs', '-f', 'dgemm_', '-o', 'wrap.so')
    app = build_c(tmp_path, os.path.join(EXAMPLES, 'apps', 'blas_fortran.c'), 'app', REF_BLAS,
                  '-Wl,-rpath,' + os.path.dirname(REF_BLAS))
    cmd(app, '3', LD_PRELOAD=str(elsewhere / 'wrap.so'), DYL_TRACE='run.csv')
    # 3 dgemm_ calls of M=6 N=5 K=4: 2*M*N*K = 240 flops each
    rows = Trace(str(elsewhere / 'run.csv')).rows
    assert [(r['func'], r['work']) for r in rows] == [('dgemm_', '240')] * 3
    summary = json.loads(cmd('dyl-trace', 'summary', '--json', 'run.csv').stdout)
    assert summary['version'] == VERSION
    # dyl-speedup's example: models/... from the install; --device NAME finds the devices
    for model in (['models/example-pcie-gpu-dgemm.csv'], ['--device', 'nvidia-h100-sxm']):
        out = json.loads(cmd('dyl-speedup', '--json', 'run.csv', *model).stdout)
        assert out['version'] == VERSION and out['kernels'][0]['func'] == 'dgemm_'
    assert cmd('dyl-model', '--device', 'nvidia-h100-sxm', '-f', 'dgemm_').stdout.count('dgemm_') > 1
    # dyl-flow's example: a wrapper with -g std.flow (the micro-generator from the install)
    cmd('dyliberator', '-q', '--lib', REF_BLAS, '--header', 'examples/blas.h', '-f', 'dgemm_',
        '-g', 'std.flow', '-o', 'flow.so')
    cmd(app, '1', LD_PRELOAD=str(elsewhere / 'flow.so'), DYL_TRACE='flow.csv')
    flow = json.loads(cmd('dyl-flow', 'flow.csv', '--json').stdout)
    assert flow['version'] == VERSION and len(flow['traces']) == 1
    page = cmd('man', '-l', share / 'man' / 'man1' / 'dyl-speedup.1', MANPAGER='cat').stdout
    assert 'SYNOPSIS' in page and 'dyl-speedup TRACE' in page
    done = cmd('bash', '-c', f'source {share}/bash-completion/completions/dyl-speedup; '
               'complete -p dyl-speedup').stdout
    assert '_dyl_complete' in done
