"""bin/dyl: dyl record (a program run unchanged under a cached wrapper, a record folder)
and dyl report (the folder to dyl-speedup), on a small C program over the reference
BLAS (tests/tools/dyl_front_app.c) with -f cblas_ddot: each call is one trace row."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from dyltest import DEBIAN_PY, REF_BLAS, ROOT, build_c, make

DYL = os.path.join(ROOT, 'bin', 'dyl')
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, ROOT)
from generator.front import elfnote, libs, report, wrapcache  # noqa: E402


@pytest.fixture(scope='module', autouse=True)
def built():
    make('all')


@pytest.fixture(scope='module')
def cache(tmp_path_factory):
    """A cache folder of this module's own: its wrappers are built here, counted here."""
    return str(tmp_path_factory.mktemp('cache'))


@pytest.fixture(scope='module')
def app(tmp_path_factory):
    d = tmp_path_factory.mktemp('app')
    blas = os.path.dirname(REF_BLAS)
    return build_c(d, os.path.join(HERE, 'dyl_front_app.c'), 'dyl_front_app',
                   '-I/usr/include/x86_64-linux-gnu', REF_BLAS, f'-Wl,-rpath,{blas}')


def dyl(cache, *args, cwd, **kw):
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    env.pop('LD_PRELOAD', None)
    return subprocess.run([DYL, *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=300, **kw)


def record(cache, cwd, *command, opts=('-f', 'cblas_ddot')):
    return dyl(cache, 'record', '--lib', REF_BLAS, *opts, '--', *command, cwd=cwd)


def rows(path):
    """The trace's call rows: (func, depth)."""
    with open(path) as f:
        lines = [ln for ln in f if not ln.startswith('#')]
    return [ln.split(',')[2] for ln in lines[1:]]


def traces(folder):
    return sorted(os.path.join(folder, n) for n in os.listdir(folder)
                  if n.startswith('trace.') and n.endswith('.csv'))


def dyl_lines(stderr):
    return [ln for ln in stderr.splitlines() if ln.startswith('dyl record:')]


def test_passes_output_and_status_through(cache, app, tmp_path):
    plain = subprocess.run([app, '4', 'out', '3'], capture_output=True, text=True)
    r = record(cache, tmp_path, app, '4', 'out', '3')
    assert r.returncode == 3 and plain.returncode == 3
    assert r.stdout == plain.stdout == 'sum 5468.533\n'
    others = [ln for ln in r.stderr.splitlines() if ln not in dyl_lines(r.stderr)]
    assert [ln for ln in others if not ln.startswith('dyliberator:')] == ['to stderr 4']
    (t,) = traces(tmp_path / 'dyl.data')
    assert rows(t) == ['cblas_ddot'] * 4


def test_signal_is_128_plus_n(cache, app, tmp_path):
    r = record(cache, tmp_path, app, '2', 'term')
    assert r.returncode == 128 + signal.SIGTERM
    rec = json.loads((tmp_path / 'dyl.data' / 'record.json').read_text())
    assert (rec['exit_status'], rec['signal']) == (143, signal.SIGTERM)


def test_sigterm_to_dyl_reaches_the_program(cache, app, tmp_path):
    ready = tmp_path / 'ready'
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    p = subprocess.Popen([DYL, 'record', '-q', '--lib', REF_BLAS, '-f', 'cblas_ddot', app, '1',
                          'wait', str(ready)], cwd=tmp_path, env=env)
    deadline = time.monotonic() + 120
    while not ready.exists() and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=60) == 143
    rec = json.loads((tmp_path / 'dyl.data' / 'record.json').read_text())
    assert rec['signal'] == signal.SIGTERM


def test_cache_hit_skips_the_build(cache, app, tmp_path):
    assert record(cache, tmp_path, app, '1').returncode == 0
    with open(wrapper_json(tmp_path)) as f:
        meta = json.load(f)
    before = os.stat(meta['wrapper'])
    again = record(cache, tmp_path, app, '1')
    assert again.returncode == 0
    assert not any('building the wrapper' in ln for ln in dyl_lines(again.stderr))
    assert any('the wrapper is cached' in ln for ln in dyl_lines(again.stderr))
    after = os.stat(meta['wrapper'])
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert json.load(open(wrapper_json(tmp_path)))['built'] == meta['built']


def wrapper_json(folder):
    rec = json.loads((folder / 'dyl.data' / 'record.json').read_text())
    return os.path.join(os.path.dirname(rec['wrapper']), 'wrapper.json')


def test_key_changes_with_f_and_one_build_at_once(cache, app, tmp_path):
    """-f cblas_d* is another wrapper; two records started at once build it once."""
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    procs = []
    for i in (1, 2):
        (tmp_path / str(i)).mkdir()
        procs.append(subprocess.Popen(
            [DYL, 'record', '--lib', REF_BLAS, '-f', 'cblas_d*', app, '3'], cwd=tmp_path / str(i),
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    errs = [p.communicate(timeout=300)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    builds = [ln for e in errs for ln in dyl_lines(e) if 'building the wrapper' in ln]
    assert len(builds) == 1
    recs = [json.loads((tmp_path / str(i) / 'dyl.data' / 'record.json').read_text()) for i in (1, 2)]
    assert recs[0]['cache_key'] == recs[1]['cache_key']
    ddot = record(cache, tmp_path, app, '1')
    key = json.loads((tmp_path / 'dyl.data' / 'record.json').read_text())['cache_key']
    assert key != recs[0]['cache_key'] and ddot.returncode == 0


def test_sh_c_children_one_trace_each(cache, app, tmp_path):
    r = record(cache, tmp_path, 'sh', '-c', f'{app} 2 out 0; {app} 5 out 0')
    assert r.returncode == 0 and r.stdout == 'sum 2734.267\nsum 6835.667\n'
    counts = sorted(len(rows(t)) for t in traces(tmp_path / 'dyl.data'))
    assert counts == [2, 5]


def test_exec_in_one_process_two_traces(cache, app, tmp_path):
    """A program exec'd in the same process writes trace.PID.csv.1 (DYL_TRACE's rule):
    record.json lists it, dyl report counts both."""
    r = record(cache, tmp_path, app, '3', 'exec', '4')
    assert r.returncode == 0 and r.stdout == 'sum 5468.533\n'
    rec = json.loads((tmp_path / 'dyl.data' / 'record.json').read_text())
    assert len(rec['traces']) == 2 and rec['traces'][1] == rec['traces'][0] + '.1'
    counts = [len(rows(tmp_path / 'dyl.data' / t)) for t in rec['traces']]
    assert counts == [3, 4]
    out = json.loads(dyl(cache, 'report', '--device', 'nvidia-h100-pcie', '--json', cwd=tmp_path).stdout)
    assert [k['calls'] for k in out['kernels'] if k['func'] == 'cblas_ddot'] == [7]


def test_python_children_one_trace_each(cache, app, tmp_path):
    r = record(cache, tmp_path, DEBIAN_PY, os.path.join(HERE, 'dyl_front_children.py'), app)
    assert r.returncode == 0, r.stderr
    counts = sorted(len(rows(t)) for t in traces(tmp_path / 'dyl.data'))
    assert [c for c in counts if c] == [2, 5]
    flows = [t + '.flow' for t in traces(tmp_path / 'dyl.data') if rows(t)]
    assert all(os.path.isfile(f) for f in flows)


def test_record_json(cache, app, tmp_path):
    r = dyl(cache, 'record', '--lib', REF_BLAS, '-f', 'cblas_ddot', '-o', 'run1', app, '3', 'out',
            '0', cwd=tmp_path)
    assert r.returncode == 0
    rec = json.loads((tmp_path / 'run1' / 'record.json').read_text())
    assert rec['command'] == [app, '3', 'out', '0'] and rec['cwd'] == str(tmp_path)
    assert rec['exit_status'] == 0 and rec['signal'] is None
    assert rec['version'] == open(os.path.join(ROOT, 'VERSION')).read().strip()
    (lib,) = rec['libraries']
    assert lib['path'] == os.path.realpath(REF_BLAS) and lib['name'] == REF_BLAS
    readelf = subprocess.run(['readelf', '-n', REF_BLAS], capture_output=True, text=True).stdout
    assert f'Build ID: {lib["build_id"]}' in readelf
    assert rec['options']['f'] == ['cblas_ddot']
    assert {'std.flow:host_reads=on', 'std.diff'} <= set(rec['options']['g'])
    assert os.path.basename(os.path.dirname(rec['wrapper'])) == rec['cache_key']
    assert os.path.isfile(rec['wrapper'])
    assert rec['traces'] == [os.path.basename(t) for t in traces(tmp_path / 'run1')]
    assert rec['start'][1] <= rec['end'][1]


def test_old_record_replaced_other_folder_kept(cache, app, tmp_path):
    old = tmp_path / 'dyl.data'
    old.mkdir()
    (old / 'record.json').write_text('{}')
    (old / 'trace.1.csv').write_text('stale')
    assert record(cache, tmp_path, app, '1').returncode == 0
    assert not (old / 'trace.1.csv').exists()
    mine = tmp_path / 'mine'
    mine.mkdir()
    (mine / 'keep').write_text('x')
    r = dyl(cache, 'record', '-o', 'mine', '--lib', REF_BLAS, app, cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1
    assert r.stderr.startswith('dyl record: ') and 'no record.json' in r.stderr
    assert os.listdir(mine) == ['keep']


@pytest.mark.parametrize('args, words', [
    (['record', '--bogus', 'true'], "dyl record: unknown option '--bogus' (see dyl record --help)"),
    (['record'], 'dyl record: no PROGRAM to run (see dyl record --help)'),
    (['record', '-o'], "dyl record: a value must follow '-o' (see dyl record --help)"),
    (['record', '--lib', 'libnosuchlib.so.9', 'true'], 'dyl record: --lib libnosuchlib.so.9: '),
    (['report', '--bogus'], "dyl report: unknown option '--bogus' (see dyl report --help)"),
    (['report', '--html'], "dyl report: a value must follow '--html' (see dyl report --help)"),
    (['report', 'nowhere', '--device', 'nvidia-h100-pcie'], 'dyl report: nowhere: no such file or folder'),
    (['report', '--model', 'nosuch-model'], 'dyl report: nosuch-model: no such file, nor models/'),
    (['report'], 'dyl report: name an accelerator: --device NAME (e.g. --device nvidia-h100-pcie)'),
    (['nosuch'], "dyl: unknown command 'nosuch' (see dyl --help)"),
    (['--frobnicate'], "dyl: unknown option '--frobnicate' (see dyl --help)"),
])
def test_bad_usage_one_line_exit_2(cache, tmp_path, args, words):
    r = dyl(cache, *args, cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ''
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith(words), r.stderr


def test_program_not_found_127(cache, tmp_path):
    r = dyl(cache, 'record', '--lib', REF_BLAS, 'no-such-program-here', cwd=tmp_path)
    assert r.returncode == 127
    assert r.stderr == 'dyl record: no-such-program-here: command not found\n'


def test_help_version_and_tools(cache, tmp_path):
    h = dyl(cache, '--help', cwd=tmp_path)
    assert h.returncode == 0 and 'dyl record -- ./app' in h.stdout and 'dyl report --device' in h.stdout
    version = open(os.path.join(ROOT, 'VERSION')).read().strip()
    assert dyl(cache, '--version', cwd=tmp_path).stdout == f'dyl (dyliberator) {version}\n'
    for c in ('record', 'report'):
        assert dyl(cache, c, '--version', cwd=tmp_path).stdout == f'dyl {c} (dyliberator) {version}\n'
        assert '--version' in dyl(cache, c, '--help', cwd=tmp_path).stdout
    assert 'usage: dyl record' in dyl(cache, 'record', '--help', cwd=tmp_path).stdout
    assert 'usage: dyl report' in dyl(cache, 'report', '--help', cwd=tmp_path).stdout
    own = subprocess.run([os.path.join(ROOT, 'bin', 'dyl-speedup'), '--help'], capture_output=True,
                         text=True)
    assert dyl(cache, 'speedup', '--help', cwd=tmp_path).stdout == own.stdout


def test_report_of_a_record_folder(cache, app, tmp_path):
    """dyl report DIR --json: dyl-speedup over the folder's trace, 7 calls replaced."""
    assert record(cache, tmp_path, app, '7').returncode == 0
    r = dyl(cache, 'report', '--device', 'nvidia-h100-pcie', '--json', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    (k,) = [k for k in out['kernels'] if k['func'] == 'cblas_ddot']
    assert k['calls'] == 7
    (t,) = traces(tmp_path / 'dyl.data')
    direct = subprocess.run([os.path.join(ROOT, 'bin', 'dyl-speedup'), t, '--device',
                             'nvidia-h100-pcie', '--json'], capture_output=True, text=True)
    assert json.loads(direct.stdout)['S_G'] == out['S_G']


def test_report_command_line(tmp_path):
    """Folders expand to their traces; models and links by name under models/."""
    d = tmp_path / 'r'
    d.mkdir()
    for n in ('trace.9.csv', 'trace.9.csv.flow', 'trace.10.csv', 'record.json'):
        (d / n).write_text('')
    bindir = os.path.join(ROOT, 'bin')
    cmd = report.command(ROOT, bindir, report.parse(
        [str(d), '--model', 'example-pcie-gpu-dgemm', '--link', 'pcie4-x16', '--', '-x', 'y']))
    assert cmd[1:3] == [str(d / 'trace.10.csv'), str(d / 'trace.9.csv')]
    assert cmd[3] == os.path.join(ROOT, 'models', 'example-pcie-gpu-dgemm.csv')
    link = os.path.join(ROOT, 'models', 'link-pcie4-x16.csv')
    assert cmd[4:6] == ['--link', link] if '--link' in report.speedup_options(cmd[0]) else \
        cmd[4] == link
    assert cmd[-2:] == ['-x', 'y']


def test_libraries_found_by_profile(tmp_path, app):
    """The profiles' globs pick the libraries of a program's ldd closure; a Python program
    is a runner (every installed library with a profile)."""
    prof = tmp_path / 'profiles' / 'blas'
    prof.mkdir(parents=True)
    (prof / 'profile.toml').write_text('summary = "BLAS"\nlibs = ["libblas.so*"]\n'
                                       'functions = ["cblas_*"]\n')
    (tmp_path / 'profiles' / 'empty').mkdir()
    profs = libs.profiles(str(tmp_path / 'profiles'))
    assert [p['name'] for p in profs] == ['blas'] and profs[0]['functions'] == ['cblas_*']
    chosen = libs.with_profiles(libs.closure(app), profs)
    assert chosen == {'libblas.so.3': os.path.realpath(REF_BLAS)}
    assert libs.kind(app) == 'elf' and libs.kind(DEBIAN_PY) == 'runner'
    assert libs.kind(os.path.join(ROOT, 'bin', 'dyl')) == 'script'
    assert elfnote.read(os.path.join(ROOT, 'VERSION')) is None


def test_tool_hash_follows_the_sources(tmp_path):
    """A changed generator, micro-generator or runtime file is another key; a test or a
    README is not."""
    for d in ('generator', 'microgens/std.x', 'runtime'):
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / 'microgens/std.x/template.c.j2').write_text('a')
    h = wrapcache.tool_hash(str(tmp_path))
    (tmp_path / 'microgens/std.x/README.md').write_text('words')
    (tmp_path / 'microgens/std.x/test_x.py').write_text('assert 1')
    assert wrapcache.tool_hash(str(tmp_path)) == h
    (tmp_path / 'microgens/std.x/template.c.j2').write_text('b')
    assert wrapcache.tool_hash(str(tmp_path)) != h


def test_choice_kept_until_a_file_changes(tmp_path, app, monkeypatch):
    """A second record of the same program asks neither ldd nor ldconfig; a changed
    program asks again."""
    from generator.front import record as rec
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))
    prog = tmp_path / 'prog'
    prog.write_bytes(open(app, 'rb').read())
    asked = []
    monkeypatch.setattr(libs, 'closure', lambda p: asked.append(p) or {'libblas.so.3': REF_BLAS})
    monkeypatch.setattr(libs, 'profiles', lambda folder: [
        {'name': 'blas', 'libs': ['libblas.so*'], 'functions': [], 'summary': ''}])
    opts = {'lib': [], 'f': [], 'g': [], 'flow': True}
    first = rec.choose_cached(ROOT, opts, str(prog))
    assert first[0][0]['profiles'] == ['blas'] and len(asked) == 1
    assert rec.choose_cached(ROOT, opts, str(prog)) == first and len(asked) == 1
    os.utime(prog, ns=(0, 0))
    rec.choose_cached(ROOT, opts, str(prog))
    assert len(asked) == 2


def test_preload_appended_and_trace_path(cache, tmp_path):
    """The program's own LD_PRELOAD stays first; DYL_TRACE names DIR/trace.%p.csv."""
    libm = '/lib/x86_64-linux-gnu/libm.so.6'
    env = dict(os.environ, XDG_CACHE_HOME=cache, LD_PRELOAD=libm)
    r = subprocess.run([DYL, 'record', '-q', '--lib', REF_BLAS, '-f', 'cblas_ddot', 'sh', '-c',
                        'echo "$LD_PRELOAD"; echo "$DYL_TRACE"'], cwd=tmp_path, env=env,
                       capture_output=True, text=True)
    rec = json.loads((tmp_path / 'dyl.data' / 'record.json').read_text())
    assert r.stdout == f'{libm}:{rec["wrapper"]}\n{tmp_path}/dyl.data/trace.%p.csv\n'


def test_choice_without_lib(tmp_path, app):
    """Without --lib: an ELF program's profiled libraries; a runner's (python3), every
    installed one with a profile, no link editor's libfoo.so; no profiled library at all:
    one line, exit 2."""
    from generator.front import record as rec
    profs = [{'name': 'blas', 'libs': ['libblas.so*'], 'functions': [], 'summary': ''}]
    opts = {'lib': []}
    libraries, why = rec.choose(opts, app, profs)
    assert [(lib['name'], lib['path'], lib['profiles']) for lib in libraries] == \
        [('libblas.so.3', os.path.realpath(REF_BLAS), ['blas'])] and why.startswith('the libraries it links')
    libraries, why = rec.choose(opts, DEBIAN_PY, profs)
    assert 'libblas.so.3' in [lib['name'] for lib in libraries] and 'starts others' in why
    assert not [lib for lib in libraries if lib['name'].endswith('.so')]
    with pytest.raises(rec.Problem, match='no library to wrap'):
        rec.choose(opts, app, [{'name': 'none', 'libs': ['libnothing.so*'], 'functions': []}])
