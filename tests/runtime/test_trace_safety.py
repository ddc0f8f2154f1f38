"""The trace and its spool under attack and under a hostile program (issue 19): planted
symlinks and files of another user, a setuid program, a program that closes the runtime's
descriptors, two processes of a pipeline on one trace name, a full disk, unknown DYL_*
settings.  Each scenario runs a small C program of tests/apps/ with a wrapper of libtiny."""
import collections
import errno
import glob
import json
import os
import resource
import shutil
import signal
import stat
import subprocess
import tempfile
import time

import pytest

import dyltest
from dyltest import Trace

APPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'apps')
NOBODY = 65534
IS_ROOT = os.geteuid() == 0


class Apps:
    """The built library, programs and wrapper (paths)."""


@pytest.fixture(scope='module')
def apps(tmp_path_factory):
    dyltest.run(['make', '-s', '-C', dyltest.ROOT, 'all'])
    d = str(tmp_path_factory.mktemp('safety'))
    a = Apps()
    src = lambda name: os.path.join(APPS, name)  # noqa: E731
    link = ['-I' + APPS, '-L' + d, '-ltiny', '-Wl,-rpath,' + d, '-lpthread']
    a.lib = dyltest.build_c(d, src('libtiny.c'), 'libtiny.so', '-fPIC', '-shared',
                            '-Wl,-soname,libtiny.so')
    a.app = dyltest.build_c(d, src('tinyapp.c'), 'tinyapp', *link)
    a.closefds = dyltest.build_c(d, src('closefds.c'), 'closefds', *link)
    a.wrap = dyltest.wrap(d, '--lib', a.lib, '--header', src('tiny.h'))
    a.flow = dyltest.wrap(d, '--lib', a.lib, '--header', src('tiny.h'), '-g', 'std.flow',
                          name='flow.so')
    return a


def env_of(wrap, **kw):
    base = {k: v for k, v in os.environ.items()
            if not k.startswith('DYL_') and k != 'LD_PRELOAD'}
    return dict(base, LD_PRELOAD=wrap, **kw)


def run(cmd, env, cwd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(cwd),
                          timeout=120, **kw)


def ours(stderr):
    return [l for l in stderr.splitlines() if l.startswith('dyliberator:')]


def counts(tr):
    return collections.Counter(tr.funcs())


def check_complete(tr):
    seqs = sorted(int(r['seq']) for r in tr.rows)
    assert seqs == list(range(len(seqs))), f'{tr.path}: seq not 0..{len(seqs) - 1}'
    assert 'total_ns' in tr.meta, f'{tr.path}: no footer'


# --- the program closes the runtime's descriptors -------------------------------------

def more_files():
    """Room for 1000 files and the runtime's two beside the program's."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4096 if hard == resource.RLIM_INFINITY else min(hard, 4096)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


@pytest.mark.parametrize('nfiles,before', [(10, 5), (1000, 5), (1000, 0)])
def test_program_closes_the_runtimes_descriptors(apps, tmp_path, nfiles, before):
    """A daemon closes 3..4095, then opens NFILES files and keeps them open while the
    runtime writes out (windows full, a new thread's window, the conversion at exit):
    each file holds exactly what the program wrote, and the trace has every call.
    BEFORE 0: it closes them before its first call, when the runtime holds only what it
    made at start-up (the trace, its spool, a window and the names area)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < nfiles + 16:
        pytest.skip(f'RLIMIT_NOFILE {hard}: too few descriptors')
    calls = 50000       # each thread's window holds about 16000 rows: several write-outs
    out = tmp_path / 'files'
    out.mkdir()
    trace = tmp_path / 'trace.csv'
    r = run([apps.closefds, str(nfiles), str(out), str(calls), str(before)],
            env_of(apps.wrap, DYL_TRACE=str(trace)), tmp_path, preexec_fn=more_files)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f'closefds: {nfiles} files, {before + 2 * calls} calls'), r.stdout
    assert ours(r.stderr) == [], r.stderr
    for i in range(nfiles):
        assert (out / f'f{i}').read_text() == f'file {i}\nend {i}\n', f'f{i}'
    tr = Trace(str(trace))
    check_complete(tr)
    assert counts(tr) == {'tiny_add': before + 2 * calls}
    assert len({r['tid'] for r in tr.rows}) == 2
    assert sorted(os.listdir(tmp_path)) == ['files', 'trace.csv']


# --- symlinks and other users' files ---------------------------------------------------

def test_trace_path_is_a_symlink(apps, tmp_path):
    """DYL_TRACE names a symlink to a victim: the victim is unchanged, one line on
    stderr, nothing is written anywhere else."""
    victim = tmp_path / 'victim'
    victim.write_text('precious\n')
    (tmp_path / 't.csv').symlink_to(victim)
    r = run([apps.app, 'calls', '5'], env_of(apps.wrap, DYL_TRACE=str(tmp_path / 't.csv')),
            tmp_path)
    assert r.returncode == 0 and r.stdout == 'calls: 5 sum 10\n'
    assert victim.read_text() == 'precious\n'
    lines = ours(r.stderr)
    assert len(lines) == 1 and 'symbolic link' in lines[0] and 't.csv' in lines[0], r.stderr
    assert sorted(os.listdir(tmp_path)) == ['t.csv', 'victim']


@pytest.fixture
def sticky_dir():
    """A /tmp-like folder (1777) and a folder beside it for the victims."""
    d = tempfile.mkdtemp(prefix='dyl-sticky-')
    try:
        os.chmod(d, 0o1777)
        victims = os.path.join(d, 'victims')
        os.mkdir(victims, 0o700)
        yield d, victims
    finally:
        shutil.rmtree(d)


@pytest.mark.skipif(not IS_ROOT, reason='plants files of another user (needs root)')
def test_planted_symlinks_in_a_shared_folder(apps, sticky_dir):
    """Another user planted trace.csv and .t2.csv.dylspool as symlinks to root's files
    and t3.csv as a file of its own: root's runs write through none of them."""
    d, victims = sticky_dir
    plant = {}
    for name in ('trace.csv', '.t2.csv.dylspool'):
        target = os.path.join(victims, name.strip('.') + '.victim')
        with open(target, 'w') as f:
            f.write('root only\n')
        os.symlink(target, os.path.join(d, name))
        os.lchown(os.path.join(d, name), NOBODY, NOBODY)
        plant[name] = target
    theirs = os.path.join(d, 't3.csv')
    with open(theirs, 'w') as f:
        f.write('nobody\n')
    os.chown(theirs, NOBODY, NOBODY)
    os.chmod(theirs, 0o666)

    # the default name, a symlink: refused, nothing recorded
    r = run([apps.app, 'calls', '5'], env_of(apps.wrap), d)
    assert r.returncode == 0 and r.stdout == 'calls: 5 sum 10\n'
    lines = ours(r.stderr)
    assert len(lines) == 1 and 'symbolic link' in lines[0], r.stderr
    # the spool's name, a symlink: the trace is written, the spool stays in memory
    r = run([apps.app, 'calls', '5'], env_of(apps.wrap, DYL_TRACE='t2.csv'), d)
    lines = ours(r.stderr)
    assert len(lines) == 1 and 'spool' in lines[0] and 'symbolic link' in lines[0], r.stderr
    tr = Trace(os.path.join(d, 't2.csv'))
    check_complete(tr)
    assert counts(tr) == {'tiny_add': 5}
    assert os.stat(os.path.join(d, 't2.csv')).st_mode & 0o777 == 0o600
    # another user's file: refused
    r = run([apps.app, 'calls', '5'], env_of(apps.wrap, DYL_TRACE='t3.csv'), d)
    lines = ours(r.stderr)
    assert len(lines) == 1 and "another owner" in lines[0], r.stderr
    with open(theirs) as f:
        assert f.read() == 'nobody\n'
    for target in plant.values():
        with open(target) as f:
            assert f.read() == 'root only\n', target
    assert sorted(os.listdir(d)) == ['.t2.csv.dylspool', 't2.csv', 't3.csv', 'trace.csv',
                                     'victims']


@pytest.mark.parametrize('name', ['trace.csv', 'trace.csv.flow'])
def test_fifo_planted_at_a_trace_name(apps, sticky_dir, name):
    """A FIFO planted at the trace's name, or its .flow's, in a shared folder (by another
    user where the test is root): nobody reads it, so an open for writing waited for a
    reader for ever, and the program's output was lost.  Now the open does not wait:
    the FIFO is refused with one line, the program runs on with its own output.  (The
    trace is opened read-write first, which a FIFO does not make wait; write-only then,
    where reading is not allowed: mode 0222, which root is not held to.)"""
    d, _ = sticky_dir
    fifo = os.path.join(d, name)
    os.mkfifo(fifo)
    os.chmod(fifo, 0o222 if name == 'trace.csv' else 0o666)
    if IS_ROOT:
        os.chown(fifo, NOBODY, NOBODY)
    wrap = apps.flow if name.endswith('.flow') else apps.wrap
    r = subprocess.run([apps.app, 'calls', '5'], capture_output=True, text=True,
                       env=env_of(wrap), cwd=d, timeout=60)
    assert r.returncode == 0 and r.stdout == 'calls: 5 sum 10\n', r.stderr
    lines = ours(r.stderr)
    assert len(lines) == 1 and name in lines[0], r.stderr
    assert 'no regular file' in lines[0], r.stderr     # (not ENXIO's "No such device")
    if name == 'trace.csv':
        assert sorted(os.listdir(d)) == ['trace.csv', 'victims']
    else:
        assert counts(Trace(os.path.join(d, 'trace.csv'))) == {'tiny_add': 5}
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_existing_spool_and_flow_made_private(apps, tmp_path):
    """A spool and a .flow left 0666 (by hand, or an older tool) are written 0600, as new
    ones are: both can hold the program's data."""
    trace = tmp_path / 't.csv'
    for f in ('.t.csv.dylspool', 't.csv.flow'):
        (tmp_path / f).write_text('old\n')
        os.chmod(tmp_path / f, 0o666)
    r = run([apps.app, 'calls', '3'], env_of(apps.flow, DYL_TRACE=str(trace),
                                              DYL_CONVERT='later'), tmp_path)
    assert r.returncode == 0 and ours(r.stderr) == [], r.stderr
    for f in ('t.csv', '.t.csv.dylspool', 't.csv.flow'):
        assert os.stat(tmp_path / f).st_mode & 0o777 == 0o600, f


def test_unwritable_folder_says_why(apps, tmp_path):
    """A trace in a folder the process may not write: the warning names the open's error,
    not the "No such file or directory" of the check that followed.  (Root writes into a
    0555 folder: as root the folder is a read-only mount.)"""
    d = tmp_path / 'ro'
    d.mkdir()
    if IS_ROOT:
        if subprocess.run(['mount', '-t', 'tmpfs', '-o', 'ro,size=64k', 'tmpfs', str(d)],
                          capture_output=True).returncode != 0:
            pytest.skip('cannot mount a read-only tmpfs')
        why = os.strerror(errno.EROFS)
    else:
        os.chmod(d, 0o555)
        why = os.strerror(errno.EACCES)
    try:
        r = run([apps.app, 'calls', '3'], env_of(apps.wrap, DYL_TRACE=str(d / 't.csv')),
                tmp_path)
        assert r.returncode == 0 and r.stdout == 'calls: 3 sum 3\n', r.stderr
        lines = ours(r.stderr)
        assert len(lines) == 1 and f'({why})' in lines[0], r.stderr
        assert os.listdir(d) == []
    finally:
        if IS_ROOT:
            subprocess.run(['umount', str(d)], check=True)


def test_trace_created_for_its_owner_only(apps, tmp_path):
    r = run([apps.app, 'calls', '3'], env_of(apps.wrap, DYL_TRACE=str(tmp_path / 't.csv')),
            tmp_path)
    assert r.returncode == 0 and ours(r.stderr) == []
    assert os.stat(tmp_path / 't.csv').st_mode & 0o777 == 0o600


# --- a setuid program ---------------------------------------------------------------

@pytest.mark.skipif(not IS_ROOT or not shutil.which('runuser'),
                    reason='needs root and runuser (a setuid-root program run by nobody)')
def test_setuid_program_writes_nothing(apps):
    """A setuid-root program with the wrapper loaded, run by nobody with DYL_TRACE naming
    a root-only file: AT_SECURE, so the wrapper forwards every call and writes nothing.

    The dynamic linker ignores LD_PRELOAD paths in an AT_SECURE process, so the program
    is linked against the wrapper itself (before libtiny: the wrapper's tiny_add wins),
    with an absolute rpath to a folder nobody can read (the linker honours it then).
    Run by root, the same program writes its trace: the wrapper is there and records."""
    d = tempfile.mkdtemp(prefix='dyl-suid-')
    try:
        os.chmod(d, 0o755)
        victims = os.path.join(d, 'victims')
        os.mkdir(victims, 0o700)
        for f in ('libtiny.so',):
            shutil.copy(os.path.join(os.path.dirname(apps.lib), f), d)
        shutil.copy(os.path.join(dyltest.ROOT, 'build', 'libdylrt.so'), d)
        wrap = os.path.join(d, 'wrap.so')
        dyltest.dyliberator('--lib', os.path.join(d, 'libtiny.so'), '--header',
                            os.path.join(APPS, 'tiny.h'), '-o', wrap, '--no-build', cwd=d)
        dyltest.run(['make', '-s', '-C', os.path.join(d, 'wrap.d'), f'DYL_RUNTIME={d}'])
        app = os.path.join(d, 'suidapp')
        dyltest.run(['cc', '-O2', '-o', app, os.path.join(APPS, 'tinyapp.c'), '-I' + APPS,
                     '-Wl,--no-as-needed', wrap, '-L' + d, '-ltiny', '-Wl,-rpath,' + d,
                     '-lpthread'])
        os.chmod(app, 0o4755)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(('DYL_', 'LD_'))}
        # root runs it: no AT_SECURE, the trace is written
        ctl = os.path.join(victims, 'control.csv')
        r = run([app, 'calls', '5'], dict(env, DYL_TRACE=ctl), d)
        assert r.returncode == 0 and r.stdout == 'calls: 5 sum 10\n', r.stderr
        assert counts(Trace(ctl)) == {'tiny_add': 5}
        # nobody runs it: setuid root, AT_SECURE
        victim = os.path.join(victims, 'victim')
        with open(victim, 'w') as f:
            f.write('root only\n')
        before = sorted(os.listdir(victims))
        # (run from the root-only folder: a trace by the default name would land there)
        r = run(['runuser', '-u', 'nobody', '--', 'env', f'DYL_TRACE={victim}', app, 'calls',
                 '5'], env, victims)
        assert r.returncode == 0 and r.stdout == 'calls: 5 sum 10\n', r.stderr
        assert r.stderr == ''
        with open(victim) as f:
            assert f.read() == 'root only\n'
        assert sorted(os.listdir(victims)) == before
    finally:
        shutil.rmtree(d)


# --- two processes of a pipeline ------------------------------------------------------

def test_pipeline_keeps_both_traces(apps, tmp_path):
    """`a | b`, b's first call after a ended (it waits for a's output to end, then
    sleeps, then execs the program): b started before a ended, so a's trace is not
    stale; both are kept, five times over.  (a waits until b's side has started: a
    shell builtin loop, as a wrapped command there would leave a trace of its own.)"""
    for i in range(5):
        d = tmp_path / f'run{i}'
        d.mkdir()
        script = ('(while [ ! -e ready ]; do :; done; exec "$0" calls 3) | '
                  '(: > ready; cat >/dev/null; sleep 0.2; exec "$0" calls 4)')
        r = run(['/bin/sh', '-c', script, apps.app], env_of(apps.wrap), d)
        assert r.returncode == 0 and r.stdout == 'calls: 4 sum 6\n', r.stderr
        os.unlink(d / 'ready')
        found = sorted(os.path.basename(p) for p in glob.glob(str(d / 'trace.csv*')))
        assert len(found) == 2 and found[0] == 'trace.csv', found
        first, second = (Trace(str(d / n)) for n in found)
        assert counts(first) == {'tiny_add': 3}
        assert counts(second) == {'tiny_add': 4}
        assert found[1] == f'trace.csv.{second.meta["pid"]}'


def test_run_after_run_replaces_the_trace(apps, tmp_path):
    """`app; app`: the first ended before the second started, its trace is replaced.
    (A tick of the process clock apart: a second run whose exec took 100 ms under heavy
    load is taken by its clock ticks, 10 ms, rounded down: then both would be kept.)"""
    env = env_of(apps.wrap)
    for n in (3, 4):
        r = run([apps.app, 'calls', str(n)], env, tmp_path)
        assert r.returncode == 0
        time.sleep(0.02)
    assert sorted(os.listdir(tmp_path)) == ['trace.csv']
    assert counts(Trace(str(tmp_path / 'trace.csv'))) == {'tiny_add': 4}


# --- a full disk ---------------------------------------------------------------------

def file_size_limit(size=256 * 1024):
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # write() fails with EFBIG instead


def test_full_disk_is_said_in_the_trace(apps, tmp_path):
    """The spool cannot grow (RLIMIT_FSIZE: EFBIG, as a full disk's ENOSPC): one line
    on stderr, '# error=disk full' in the trace, and dyl-trace says the disk was full
    rather than that the process was killed."""
    trace = tmp_path / 't.csv'
    r = run([apps.app, 'threads', '4', '100000'], env_of(apps.wrap, DYL_TRACE=str(trace)),
            tmp_path, preexec_fn=file_size_limit)
    assert r.returncode == 0 and 'thread 3: 100000 calls' in r.stdout
    lines = ours(r.stderr)
    assert len(lines) == 1 and 'File too large' in lines[0], r.stderr
    assert '# error=disk full' in trace.read_text()
    s = subprocess.run([os.path.join(dyltest.ROOT, 'bin', 'dyl-trace'), 'summary', str(trace)],
                       capture_output=True, text=True, timeout=60)
    assert 'the disk was full' in s.stderr and 'killed?' not in s.stderr, s.stderr


# --- DYL_* settings -------------------------------------------------------------------

@pytest.mark.parametrize('var, value, words', [
    ('DYL_CLOCK', 'bogus', ['DYL_CLOCK=bogus: unknown value; using', 'one of: tsc, monotonic']),
    ('DYL_DIFF_WATCH', 'no', ['DYL_DIFF_WATCH=no: unknown value', 'one of: 0, 1']),
    ('DYL_TRACEE', 'x.csv', ['DYL_TRACEE: unknown variable', 'DYL_TRACE']),
])
def test_unknown_setting_warned_once(apps, tmp_path, var, value, words):
    """A typo in a DYL_* name or value: one line on stderr (also with a forked child),
    the program and its trace otherwise as without it."""
    trace = tmp_path / 't.csv'
    r = run([apps.app, 'fork', '3', '4', '5', 'exit'],
            env_of(apps.wrap, DYL_TRACE=str(trace), **{var: value}), tmp_path)
    assert r.returncode == 0
    lines = ours(r.stderr)
    assert len(lines) == 1, r.stderr
    for w in words:
        assert w in lines[0], lines[0]
    check_complete(Trace(str(trace)))


def test_known_settings_say_nothing(apps, tmp_path):
    trace = tmp_path / 't.csv'
    r = run([apps.app, 'calls', '3'],
            env_of(apps.wrap, DYL_TRACE=str(trace), DYL_CLOCK='monotonic', DYL_OFF='0',
                   DYL_DIFF_WATCH='0', DYL_MICROGEN_PATH='/nonexistent'), tmp_path)
    assert r.returncode == 0 and r.stderr == ''
    tr = Trace(str(trace))
    assert tr.meta['clock'] == 'monotonic' and counts(tr) == {'tiny_add': 3}


def run_to_a_full_disk(apps, tmp_path, calls, limit):
    """CALLS calls with files limited to LIMIT bytes: the program unchanged, one line on
    stderr saying the disk is full and the rows stay in the spool.  The stderr line, and
    the rows dyl-trace cat reads (the calls in order, seq 0..n-1)."""
    trace = tmp_path / 't.csv'
    r = run([apps.app, 'calls', str(calls)], env_of(apps.wrap, DYL_TRACE=str(trace)),
            tmp_path, preexec_fn=lambda: file_size_limit(limit))
    assert r.returncode == 0 and r.stdout == f'calls: {calls} sum {sum(range(calls))}\n'
    lines = ours(r.stderr)
    assert len(lines) == 1 and 'the disk is full' in lines[0], r.stderr
    assert 'stay in the spool' in lines[0], r.stderr
    s = subprocess.run([os.path.join(dyltest.ROOT, 'bin', 'dyl-trace'), 'cat', str(trace)],
                       capture_output=True, text=True, timeout=60)
    assert s.returncode == 0, s.stderr
    rows = [l.split(',') for l in s.stdout.splitlines() if l[:1].isdigit()]
    assert [int(r[0]) for r in rows] == list(range(len(rows)))
    assert {r[2] for r in rows} == {'tiny_add'}
    return lines[0], s.stderr, rows


def test_full_disk_keeps_the_rows_written(apps, tmp_path):
    """The disk fills (RLIMIT_FSIZE 2 MiB: EFBIG, as ENOSPC) in a run of 500,000 calls:
    the rows written to the spool before it stay there (the spool was deleted: 0 rows of
    the 3.5 MB written, on a 4 MiB tmpfs), and the trace names it after its '# error='
    line.  One line on stderr says the disk is full; the tools read the first N calls,
    N * 16 B of records within the limit."""
    line, said, rows = run_to_a_full_disk(apps, tmp_path, 500000, 2 << 20)
    assert 'File too large' in line and 'the disk was full' in said, said
    text = (tmp_path / 't.csv').read_text()
    assert '# error=disk full' in text and '# rows_in_spool=.t.csv.dylspool\n' in text, text
    assert '# total_ns=' in text
    assert (tmp_path / '.t.csv.dylspool').stat().st_size <= 2 << 20
    # the footer is the trace's (the spool could not take it): the tools read total_ns
    total = int(text.split('# total_ns=')[1].split('\n')[0])
    s = subprocess.run([os.path.join(dyltest.ROOT, 'bin', 'dyl-trace'), 'summary', '--json',
                        str(tmp_path / 't.csv')], capture_output=True, text=True, timeout=60)
    assert s.returncode == 0 and json.loads(s.stdout)['traces'][0]['total_ns'] == total, s.stderr
    n = len(rows)
    # whole blocks (a window's 16,308 rows each: 6 here, 97,848 rows); the rest of the
    # 2 MiB is the 256 KiB window, the 64 KiB names area and the block that did not fit
    assert 90000 <= n and n * 16 <= (2 << 20) - (256 << 10), n


def test_full_disk_at_the_conversion_keeps_the_spool(apps, tmp_path):
    """30,000 calls: the spool fits in 900 KiB, their CSV (32 B a row) does not.  The
    conversion at exit stops at the limit; the spool stays with every row (it was removed:
    24,369 rows were left, in the CSV cut short), and the tools read all 30,000 from it."""
    _, _, rows = run_to_a_full_disk(apps, tmp_path, 30000, 900 << 10)
    assert (tmp_path / 't.csv').stat().st_size == 900 << 10
    assert len(rows) == 30000


def test_full_disk_then_killed_says_so_from_the_spool(apps, tmp_path):
    """The spool could not grow, then the process was killed (no conversion): the
    spool's head says the disk was full, and dyl-trace reading it says so too."""
    trace = tmp_path / 't.csv'
    p = subprocess.Popen([apps.app, 'kill-me', '2', '100000'],
                         env=env_of(apps.wrap, DYL_TRACE=str(trace)), cwd=str(tmp_path),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=lambda: file_size_limit(2 << 20))  # windows fit
    try:
        line = p.stdout.readline().decode()
    finally:
        p.kill()
        p.communicate(timeout=20)
    assert p.returncode == -9 and line.startswith('ready'), line
    spool = tmp_path / '.t.csv.dylspool'
    assert spool.exists()
    trace.write_text(trace.read_text().replace('# error=', '# was_error='))  # the spool alone
    s = subprocess.run([os.path.join(dyltest.ROOT, 'bin', 'dyl-trace'), 'summary', str(trace)],
                       capture_output=True, text=True, timeout=60)
    assert s.returncode == 0, s.stderr
    assert 'disk full' in s.stderr and 'killed?' not in s.stderr, s.stderr
    assert 'died' not in s.stderr, s.stderr
    assert 'tiny_add' in s.stdout      # the rows spooled before the disk was full
