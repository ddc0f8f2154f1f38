"""A glob such as `run.csv*` names std.flow's run.csv.flow beside run.csv: every tool reads
it with its trace (or not at all), never as a trace or model of its own."""
import os
import subprocess

import pytest

from dyltest import make

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, 'bin')
TRACE = ('# total_ns=1000\nseq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work\n'
         '0,7,dgemm_,0,100,,,10\n1,7,dgemm_,200,300,,,30\n')
MODEL = 'func,work,t_ns\ndgemm_,0,0\ndgemm_,40,40\n'


@pytest.fixture(scope='module', autouse=True)
def built():
    make('bin/dyl-speedup', 'bin/dyl-trace', 'bin/dyl-model')


@pytest.fixture
def files(tmp_path):
    (tmp_path / 'run.csv').write_text(TRACE)
    (tmp_path / 'run.csv.flow').write_bytes(b'not what a tool reads as a trace\n')
    (tmp_path / 'm.csv').write_text(MODEL)
    return tmp_path


def tool(d, *args):
    return subprocess.run([os.path.join(BIN, args[0]), *args[1:]], capture_output=True,
                          text=True, cwd=str(d))


@pytest.mark.parametrize('cmd', [('dyl-trace',), ('dyl-trace', 'summary'), ('dyl-trace', 'chrome'),
                                 ('dyl-model',)])
def test_glob_with_the_flow_file(files, cmd):
    r = tool(files, *cmd, 'run.csv', 'run.csv.flow')
    assert r.returncode == 0 and 'run.csv.flow' not in r.stderr, r.stderr
    assert r.stdout == tool(files, *cmd, 'run.csv').stdout


def test_speedup_with_the_flow_file(files):
    r = tool(files, 'dyl-speedup', '--json', 'run.csv', 'run.csv.flow', 'm.csv')
    assert r.returncode == 0, r.stderr
    assert r.stdout == tool(files, 'dyl-speedup', '--json', 'run.csv', 'm.csv').stdout


def test_a_flow_file_alone_is_still_read(files):
    # without its trace on the line, the file is the user's to name: an error, as before
    r = tool(files, 'dyl-trace', 'run.csv.flow')
    assert r.returncode == 2 and 'run.csv.flow' in r.stderr
