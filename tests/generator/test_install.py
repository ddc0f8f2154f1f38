"""make install PREFIX=DIR: the commands in DIR/bin, the rest in DIR/lib/dyliberator,
relocatable (the tree still works after it is moved)."""
import os
import shutil

from dyltest import ROOT, Trace, c_app, c_library, run, run_both

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'install')
HEADER = os.path.join(C_FILES, 'inc.h')
SOURCE = os.path.join(C_FILES, 'libinc.c')
APP = os.path.join(C_FILES, 'app.c')


def test_install_then_move(tmp_path):
    first = tmp_path / 'first'
    run(['make', '-s', '-C', ROOT, 'install', f'PREFIX={first}'])
    moved = tmp_path / 'moved'
    shutil.move(str(first), str(moved))
    commands = [f for f in os.listdir(os.path.join(ROOT, 'speedup'))
                if f.startswith('dyl-') and os.path.isfile(os.path.join(ROOT, 'speedup', f, 'main.c'))]
    assert sorted(os.listdir(moved / 'bin')) == sorted(['dyliberator', 'dyl'] + commands)
    lib, h = c_library(tmp_path, 'inc', HEADER, SOURCE)
    app = c_app(tmp_path, 'app', APP, lib)
    w = str(tmp_path / 'w.so')
    run([str(moved / 'bin' / 'dyliberator'), '-q', '--lib', lib, '--header', h, '-o', w])
    makefile = open(tmp_path / 'w.d' / 'Makefile').read()
    assert str(moved / 'lib' / 'dyliberator') in makefile and ROOT + '/' not in makefile
    r, tp = run_both([app], w, tmp_path)
    assert r.stdout == b'7\n' and Trace(tp).count('inc') == 7
    assert 'usage' in run([str(moved / 'bin' / 'dyl-speedup'), '--help']).stdout.lower()
    version = open(os.path.join(ROOT, 'VERSION')).read().strip()
    assert run([str(moved / 'bin' / 'dyl'), '--version']).stdout == f'dyl {version}\n'
