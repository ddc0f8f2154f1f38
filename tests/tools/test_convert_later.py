"""DYL_CONVERT=later: at exit the runtime completes the spool and leaves the rows there;
the trace holds its header, '# rows_in_spool=' and the footer.  Every tool reads the rows
in place, as complete (no warning), and `dyl-trace convert` writes the CSV the runtime
would have written at exit, byte for byte (doc/trace-format.md)."""
import json
import os
import shutil
import signal
import subprocess

import pytest

import dyltest
from dyltest import Trace

APPS = os.path.join(dyltest.ROOT, 'tests', 'apps')
BIN = os.path.join(dyltest.ROOT, 'bin')


@pytest.fixture(scope='module')
def tiny(tmp_path_factory):
    dyltest.make('runtime', 'bin/dyl-trace', 'bin/dyl-speedup')
    d = str(tmp_path_factory.mktemp('later'))
    lib = dyltest.build_c(d, os.path.join(APPS, 'libtiny.c'), 'libtiny.so', '-fPIC', '-shared',
                          '-Wl,-soname,libtiny.so')
    app = dyltest.build_c(d, os.path.join(APPS, 'tinyapp.c'), 'tinyapp', '-I' + APPS,
                          '-L' + d, '-ltiny', '-Wl,-rpath,' + d, '-lpthread')
    wrap = dyltest.wrap(d, '--lib', lib, '--header', os.path.join(APPS, 'tiny.h'))
    return app, wrap


def run_wrapped(tiny, d, args, trace='trace.csv', **env_extra):
    """The wrapped tinyapp in folder D, with no DYL_* variable but DYL_TRACE and ENV_EXTRA:
    (the trace's path, the completed process)."""
    app, wrap = tiny
    env = {k: v for k, v in os.environ.items() if not k.startswith('DYL_') and k != 'LD_PRELOAD'}
    env.update(LD_PRELOAD=wrap, DYL_TRACE=str(d / trace), **env_extra)
    r = subprocess.run([app, *args], capture_output=True, text=True, env=env, cwd=str(d),
                       timeout=120)
    return str(d / trace), r


def wrapped(tiny, tmp_path, args, convert, trace='trace.csv', check=True):
    path, r = run_wrapped(tiny, tmp_path, args, trace,
                          **({'DYL_CONVERT': convert} if convert else {}))
    assert not check or r.returncode == 0, r
    assert 'dyliberator' not in r.stderr, r.stderr
    return path


def tool(name, *args, rc=0):
    r = subprocess.run([os.path.join(BIN, name), *args], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == rc, (args, r.stdout[-2000:], r.stderr)
    return r


def spool_of(path):
    d, name = os.path.split(path)
    return os.path.join(d, f'.{name}.dylspool')


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def split_csv(data):
    """(header lines up to the column line, row lines, '#' lines after the rows)"""
    lines = data.decode().splitlines(keepends=True)
    col = next(i for i, ln in enumerate(lines) if ln.startswith('seq,'))
    rows = [ln for ln in lines[col + 1:] if not ln.startswith('#')]
    return lines[:col + 1], rows, [ln for ln in lines[col + 1:] if ln.startswith('#')]


def stub_from(csv_path, stub_path):
    """The trace DYL_CONVERT=later leaves for the run whose CSV is CSV_PATH, with the
    spool kept beside CSV_PATH (DYL_CONVERT=keep) copied beside STUB_PATH."""
    head, _, tail = split_csv(read(csv_path))
    foot = tail[next(i for i, ln in enumerate(tail) if ln.startswith('# end_ns=')):]
    name = os.path.basename(spool_of(stub_path))
    with open(stub_path, 'w') as f:
        f.write(''.join(head) + f'# rows_in_spool={name}\n' + ''.join(foot))
    shutil.copy(spool_of(csv_path), spool_of(stub_path))


@pytest.mark.parametrize('args', [['threads', '3', '30000'], ['exit-running', '4', '30000']])
def test_tools_read_a_later_trace_as_the_csv_of_the_same_run(tiny, tmp_path, args):
    """One run (DYL_CONVERT=keep: the CSV at exit, and the completed spool kept): every
    tool's output on the trace with its rows in the spool is the output on the CSV, and
    the CSV `dyl-trace convert` writes is the runtime's, byte for byte.  30000 calls in
    each of 3 threads: blocks and windows; the thread events' lines too.  exit-running:
    threads still calling after the footer store into their windows, which the spool of
    a finished process keeps but a reader must not take."""
    csv = wrapped(tiny, tmp_path, args, 'keep')
    assert os.path.exists(spool_of(csv))
    stub = str(tmp_path / 'later.csv')
    stub_from(csv, stub)
    # the spool named directly, converted elsewhere: the runtime's CSV
    tool('dyl-trace', 'convert', spool_of(csv), '-o', str(tmp_path / 'again.csv'))
    assert read(str(tmp_path / 'again.csv')) == read(csv)
    # dyl-trace cat and summary, dyl-speedup: the same, with no warning
    a, b = tool('dyl-trace', csv), tool('dyl-trace', stub)
    assert a.stdout == b.stdout and b.stderr == ''
    a, b = tool('dyl-trace', 'summary', '--json', csv), tool('dyl-trace', 'summary', '--json', stub)
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    assert jb['traces'][0].pop('path') == stub and ja['traces'][0].pop('path') == csv
    assert ja == jb and not jb['traces'][0]['truncated'] and b.stderr == ''
    model = str(tmp_path / 'm.csv')
    dyltest.write_text(model, 'func,work,t_ns\ntiny_add,0,1\n')
    a = tool('dyl-speedup', csv, model, '--json', rc=3)     # (no work size: nothing predicted)
    b = tool('dyl-speedup', stub, model, '--json', rc=3)
    assert a.stdout.replace(csv, '@') == b.stdout.replace(stub, '@') and b.stderr == a.stderr
    # converted in place: the runtime's CSV, and the spool gone
    tool('dyl-trace', 'convert', stub)
    assert read(stub) == read(csv)
    assert not os.path.exists(spool_of(stub))


def test_a_later_run_leaves_its_rows_in_the_spool(tiny, tmp_path):
    path = wrapped(tiny, tmp_path, ['threads', '3', '30000'], 'later')
    head, rows, tail = split_csv(read(path))
    assert rows == [] and tail[0] == '# rows_in_spool=.trace.csv.dylspool\n'
    assert tail[1].startswith('# end_ns=') and any(ln.startswith('# total_ns=') for ln in tail)
    assert os.path.exists(spool_of(path))
    r = tool('dyl-trace', 'summary', '--json', path)
    (t,) = json.loads(r.stdout)['traces']
    assert r.stderr == '' and not t['truncated'] and t['rows'] == 90000
    stub = Trace(path)
    assert t['total_ns'] == int(stub.meta['total_ns'])
    cat = tool('dyl-trace', path).stdout
    tool('dyl-trace', 'convert', path)
    assert not os.path.exists(spool_of(path))
    h2, rows2, tail2 = split_csv(read(path))
    assert h2 == head and tail2[-len(tail) + 1:] == tail[1:]    # the stub's own lines
    tr = Trace(path)
    assert sorted(int(r['seq']) for r in tr.rows) == list(range(90000))
    assert Trace(dyltest.write_text(str(tmp_path / 'cat.csv'), cat)).by_seq() == tr.by_seq()
    r = tool('dyl-trace', 'convert', path)              # done already: said, not an error
    assert 'already' in r.stderr


def test_a_killed_later_run_reads_as_any_killed_run(tiny, tmp_path):
    app, wrap = tiny
    path = str(tmp_path / 'trace.csv')
    env = dict(os.environ, LD_PRELOAD=wrap, DYL_TRACE=path, DYL_CONVERT='later')
    p = subprocess.Popen([app, 'kill-me', '2', '20000'], env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(tmp_path))
    assert p.stdout.readline().decode().startswith('ready')
    p.send_signal(signal.SIGKILL)
    p.communicate(timeout=20)
    r = tool('dyl-trace', 'summary', '--json', path)
    (t,) = json.loads(r.stdout)['traces']
    assert 'did not finish' in r.stderr and t['truncated'] and t['rows'] == 3 * 20000
    r = tool('dyl-trace', 'convert', path, rc=2)
    assert r.stderr.count('\n') == 1 and 'trace.csv' in r.stderr
    assert os.path.exists(spool_of(path))               # left for the tools


def test_a_later_run_replaces_the_last_ones_trace_and_spool(tiny, tmp_path):
    path = wrapped(tiny, tmp_path, ['calls', '100'], 'later')
    first = Trace(path).meta['pid']
    wrapped(tiny, tmp_path, ['calls', '50'], 'later')
    (t,) = json.loads(tool('dyl-trace', 'summary', '--json', path).stdout)['traces']
    assert t['rows'] == 50 and str(t['pid']) != first
    assert sorted(os.listdir(tmp_path)) == ['.trace.csv.dylspool', 'trace.csv']
    # a run converted at exit: its CSV, and the old spool gone
    wrapped(tiny, tmp_path, ['calls', '20'], None)
    assert len(Trace(path).rows) == 20
    assert sorted(os.listdir(tmp_path)) == ['trace.csv']


def test_processes_each_leave_their_own_spool(tiny, tmp_path):
    """fork: parent and child each leave a trace with its rows in its own spool.  exec:
    the image that execs converts at once (its spool could not outlive it), the program
    it becomes leaves its rows in the spool of PATH.<pid>."""
    path = wrapped(tiny, tmp_path, ['fork', '50', '70', '30', 'exit'], 'later')
    names = sorted(n for n in os.listdir(tmp_path) if 'trace.csv' in n)
    child = [n for n in names if n.startswith('trace.csv.')][0]
    assert names == sorted(['trace.csv', child, '.trace.csv.dylspool', f'.{child}.dylspool'])
    r = tool('dyl-trace', 'summary', '--json', path, str(tmp_path / child))
    assert r.stderr == ''
    assert [t['rows'] for t in json.loads(r.stdout)['traces']] == [80, 70]
    d = tmp_path / 'exec'
    d.mkdir()
    path = wrapped(tiny, d, ['exec', '40', '25'], 'later')
    pre = Trace(path)
    post = [n for n in os.listdir(d) if n.startswith('trace.csv.')][0]
    assert len(pre.rows) == 40 and 'total_ns' in pre.meta and 'rows_in_spool' not in pre.meta
    assert sorted(os.listdir(d)) == sorted(['trace.csv', post, f'.{post}.dylspool'])
    tool('dyl-trace', 'convert', str(d / post))
    assert len(Trace(str(d / post)).rows) == 25
    assert sorted(os.listdir(d)) == sorted(['trace.csv', post])


def test_a_missing_spool_and_a_linked_trace_are_one_line(tiny, tmp_path):
    path = wrapped(tiny, tmp_path, ['calls', '10'], 'later')
    os.rename(spool_of(path), str(tmp_path / 'moved'))
    for cmd in (['summary'], ['convert']):
        r = tool('dyl-trace', *cmd, path, rc=2)
        assert r.stderr.count('\n') == 1 and '.trace.csv.dylspool' in r.stderr, r.stderr
    os.rename(str(tmp_path / 'moved'), spool_of(path))
    os.symlink(path, str(tmp_path / 'link.csv'))
    os.symlink(spool_of(path), spool_of(str(tmp_path / 'link.csv')))
    r = tool('dyl-trace', 'convert', str(tmp_path / 'link.csv'), rc=2)
    assert 'symbolic link' in r.stderr and r.stderr.count('\n') == 1
    assert os.path.islink(str(tmp_path / 'link.csv'))


def test_dyl_flow_reads_a_later_trace(tmp_path):
    """std.flow: TRACE.flow is written at exit in both modes; dyl-flow reads the trace
    whose rows are in its spool as the CSV (std.flow's chain scenario: 800 B an edge)."""
    dyltest.make('bin/dyl-flow')
    fl_apps = os.path.join(dyltest.ROOT, 'microgens', 'std.flow', 'apps')
    lib, h = dyltest.c_library(tmp_path, 'fl', os.path.join(fl_apps, 'fl.h'),
                               os.path.join(fl_apps, 'libfl.c'))
    app = dyltest.build_c(tmp_path, os.path.join(fl_apps, 'app.c'), 'app', f'-I{tmp_path}', lib,
                          f'-Wl,-rpath,{tmp_path}', '-lpthread')
    w = dyltest.wrap(tmp_path, '--lib', lib, '--header', h, '-g', 'std.flow')
    out = {}
    for mode in ('exit', 'later'):
        _, trace = dyltest.run_both([app, 'chain'], w, tmp_path, env={'DYL_CONVERT': mode},
                                    trace=f'{mode}.csv')
        assert os.path.exists(trace + '.flow')
        assert os.path.exists(spool_of(trace)) == (mode == 'later')
        r = tool('dyl-flow', trace)
        assert r.stderr == ''
        out[mode] = r.stdout
    assert out['later'] == out['exit'] and '800' in out['later']
