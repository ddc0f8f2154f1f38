"""Process events in the trace: the '# fork', '# spawn', '# exec', '# waitpid',
'# pipe_write' and '# pipe_read' lines after the rows, '# ppid=' and '# exec_of=1' in the
header (doc/jobs.md), recorded by the interposers every wrapper compiles in
(runtime/include/dyl_procs.h, dyl_process.h; runtime/procs/); %r and %h in DYL_TRACE.

The program (tests/runtime/procs/procapp.c) calls libtiny from processes in several
shapes; it runs plain and wrapped with the same output and exit status, and its traces'
lines must agree with each other: who forked whom, who waited for whom and when, the
bytes through a pipe."""
import glob
import os
import re
import socket
import subprocess

import pytest

import dyltest
from dyltest import run_both

HERE = os.path.dirname(os.path.abspath(__file__))
APPS = os.path.join(HERE, '..', 'apps')
RANK_VARS = ('OMPI_COMM_WORLD_RANK', 'PMI_RANK', 'PMIX_RANK', 'SLURM_PROCID')


class Built:
    """The library, the program and the wrapper (paths)."""


@pytest.fixture(scope='module')
def app(tmp_path_factory):
    dyltest.run(['make', '-s', '-C', dyltest.ROOT, 'runtime'])
    d = str(tmp_path_factory.mktemp('procs'))
    b = Built()
    b.lib = dyltest.build_c(d, os.path.join(APPS, 'libtiny.c'), 'libtiny.so', '-fPIC',
                            '-shared', '-Wl,-soname,libtiny.so')
    b.app = dyltest.build_c(d, os.path.join(HERE, 'procs', 'procapp.c'), 'procapp',
                            '-I' + APPS, '-L' + d, '-ltiny', '-Wl,-rpath,' + d, '-lpthread')
    b.wrap = dyltest.wrap(d, '--lib', b.lib, '--header', os.path.join(APPS, 'tiny.h'))
    b.wrap2 = dyltest.wrap(d, '--lib', b.lib, '--header', os.path.join(APPS, 'tiny.h'),
                           name='wrap2.so')
    return b


class Proc:
    """One trace: .pid, .ppid, .start_ns, .end_ns (epoch ns), .exec_of, .events [(word,
    {key: int})], .rows (how many)."""

    def __init__(self, path):
        self.path = path
        with open(path) as f:
            text = f.read()
        meta = dict(re.findall(r'^# (\w+)=(\S*)$', text, re.M))
        self.pid, self.ppid = int(meta['pid']), int(meta['ppid'])
        self.start_ns, self.end_ns = int(meta['start_ns']), int(meta['end_ns'])
        self.exec_of = meta.get('exec_of')
        self.recorded = meta.get('procs') == 'recorded'
        self.events = [(m.group(1), {k: int(v) for k, v in
                                     (kv.split('=') for kv in m.group(2).split())})
                       for m in re.finditer(r'^# (fork|spawn|exec|waitpid|pipe_write|pipe_read)'
                                            r' (.*)$', text, re.M)]
        self.rows = sum(1 for line in text.splitlines() if line[:1].isdigit())

    def of(self, word):
        return [v for w, v in self.events if w == word]


def traces(d, pattern='t.*'):
    return [Proc(p) for p in sorted(glob.glob(os.path.join(d, pattern)))]


def wrapped(b, tmp_path, *args, env=None, shell=None, preload=None):
    """Runs procapp ARGS (or the shell line SHELL) under the wrapper (or PRELOAD), a trace
    a process (DYL_TRACE=t.%p.csv); the traces."""
    e = {k: v for k, v in os.environ.items() if not k.startswith('DYL_') and k not in RANK_VARS}
    e.update(env or {}, LD_PRELOAD=preload or b.wrap, DYL_TRACE=str(tmp_path / 't.%p.csv'))
    cmd = ['/bin/sh', '-c', shell] if shell else [b.app, *args]
    dyltest.run(cmd, env=e, cwd=str(tmp_path))
    return traces(str(tmp_path))


@pytest.mark.parametrize('mode', [['fork'], ['spawn'], ['vfork'], ['clone'], ['exec'],
                                  ['errno'], ['mtfork', '5']], ids=lambda m: m[0])
def test_program_unchanged(app, tmp_path, mode):
    # output, errno values and exit status as without the wrapper
    run_both([app.app, *mode], app.wrap, tmp_path)


def test_fork_and_wait(app, tmp_path):
    """Two children forked and waited for: two fork lines naming them, two waitpid lines
    for them, each returning after its child's end (placed by start_ns)."""
    procs = wrapped(app, tmp_path, 'fork')
    assert len(procs) == 3
    parent = [p for p in procs if p.of('fork')]
    assert len(parent) == 1
    parent = parent[0]
    kids = {p.pid: p for p in procs if p is not parent}
    assert parent.recorded and all(k.recorded for k in kids.values())
    forks, waits = parent.of('fork'), parent.of('waitpid')
    assert sorted(f['child'] for f in forks) == sorted(kids)
    assert [w['pid'] for w in waits] == [f['child'] for f in forks]
    for f in forks:
        kid = kids[f['child']]
        assert kid.ppid == parent.pid and kid.events == [] and kid.rows == 2
        assert parent.start_ns + f['call_ns'] <= kid.start_ns
    for w in waits:
        assert w['call_ns'] <= w['ret_ns']
        assert parent.start_ns + w['ret_ns'] >= kids[w['pid']].end_ns
    assert all(p.of('pipe_write') == [] and p.of('pipe_read') == [] for p in procs)


def parent_and_child(procs, word):
    """The two processes of a run where one started the other (WORD: fork or spawn) and
    waited for it: both lines name the child, whose ppid is the parent."""
    assert len(procs) == 2
    parent = next(p for p in procs if p.of(word))
    kid = next(p for p in procs if p is not parent)
    assert [f['child'] for f in parent.of(word)] == [kid.pid]
    assert [w['pid'] for w in parent.of('waitpid')] == [kid.pid]
    assert kid.ppid == parent.pid
    return parent, kid


def test_spawn_and_wait(app, tmp_path):
    parent, kid = parent_and_child(wrapped(app, tmp_path, 'spawn'), 'spawn')
    assert kid.exec_of is None
    assert parent.start_ns + parent.of('waitpid')[0]['ret_ns'] >= kid.end_ns


def test_vfork_recorded_by_the_parent(app, tmp_path):
    """The vfork child records nothing (it shares the parent's memory until it execs): the
    parent's one fork line names it, and the image it execs writes its own trace, with no
    exec_of (the vfork child wrote none before)."""
    parent, kid = parent_and_child(wrapped(app, tmp_path, 'vfork'), 'fork')
    assert kid.exec_of is None and kid.rows == 2


def test_clone_as_fork(app, tmp_path):
    """clone() without CLONE_VM is a fork: the parent's fork line names the child it waits
    for.  The child records nothing (no fork handler runs in it): one trace."""
    procs = wrapped(app, tmp_path, 'clone')
    assert len(procs) == 1
    p = procs[0]
    assert len(p.of('fork')) == 1 and p.rows == 1
    assert [w['pid'] for w in p.of('waitpid')] == [p.of('fork')[0]['child']]


def test_two_wrappers_record_once(app, tmp_path):
    parent_and_child(wrapped(app, tmp_path, 'vfork', preload=f'{app.wrap}:{app.wrap2}'), 'fork')


def test_exec_leaves_two_traces(app, tmp_path):
    procs = wrapped(app, tmp_path, 'exec')
    assert len(procs) == 2 and procs[0].pid == procs[1].pid
    before, after = sorted(procs, key=lambda p: p.start_ns)
    assert len(before.of('exec')) == 1 and before.exec_of is None
    assert after.exec_of == '1' and after.of('exec') == [] and after.rows == 2
    assert before.start_ns + before.of('exec')[0]['call_ns'] <= after.start_ns
    assert after.ppid == before.ppid
    # (DYL_EXEC_OF, which tells the new image, is out of its environment when main runs:
    # test_program_unchanged[exec], the child prints it)


def test_multithreaded_fork(app, tmp_path):
    """Forks while another thread calls the library; each child _exits at once (records
    nothing, leaves no trace)."""
    procs = wrapped(app, tmp_path, 'mtfork', '5')
    assert len(procs) == 1
    p = procs[0]
    assert len(p.of('fork')) == 5
    assert [w['pid'] for w in p.of('waitpid')] == [f['child'] for f in p.of('fork')]


def pipe_sides(procs, writer_pid=None):
    w = [p for p in procs if p.of('pipe_write')]
    r = [p for p in procs if p.of('pipe_read')]
    assert len(w) == 1 and len(r) == 1
    return w[0], r[0]


@pytest.mark.parametrize('kind', ['pipe', 'fifo'])
def test_pipeline_bytes(app, tmp_path, kind):
    """`writer | reader` (a pipe of the shell's, or a FIFO): the writer's K writes of N
    bytes are K pipe_write lines, the reader's pipe_read bytes add up to K*N, the last one 0
    (end of file), all on the same pipe inode."""
    k, n = 40, 3000
    if kind == 'pipe':
        line = f'{app.app} writer {k} {n} | {app.app} reader'
    else:
        os.mkfifo(str(tmp_path / 'fifo'))
        line = f'{app.app} writer {k} {n} > fifo & {app.app} reader < fifo; wait'
    procs = wrapped(app, tmp_path, shell=line)
    w, r = pipe_sides(procs)
    writes, reads = w.of('pipe_write'), r.of('pipe_read')
    assert [x['bytes'] for x in writes] == [n] * k
    assert sum(x['bytes'] for x in reads) == k * n
    assert reads[-1]['bytes'] == 0 and all(x['bytes'] > 0 for x in reads[:-1])
    assert {x['pipe'] for x in writes} == {x['pipe'] for x in reads}
    if kind == 'fifo':
        assert writes[0]['pipe'] == os.stat(str(tmp_path / 'fifo')).st_ino
    assert all(x['call_ns'] <= x['ret_ns'] for x in writes + reads)


def test_rank_and_host_in_the_name(app, tmp_path):
    """%r: the launcher's rank (the first of OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK,
    SLURM_PROCID), '-' when none; %h: the host's name."""
    e = {k: v for k, v in os.environ.items() if not k.startswith('DYL_') and k not in RANK_VARS}
    e.update(LD_PRELOAD=app.wrap, DYL_TRACE=str(tmp_path / 'r%r.%h.%p.csv'))
    host = socket.gethostname()
    for extra in ({'OMPI_COMM_WORLD_RANK': '3', 'SLURM_PROCID': '7'}, {'SLURM_PROCID': '7'},
                  {}):
        dyltest.run([app.app, 'child', '1'], env=dict(e, **extra), cwd=str(tmp_path))
    names = sorted(os.path.basename(p).rsplit('.', 2)[0] for p in
                   glob.glob(str(tmp_path / 'r*.csv')))
    assert names == sorted([f'r3.{host}', f'r7.{host}', f'r-.{host}'])


@pytest.mark.skipif(not os.path.exists('/dev/full'), reason='no /dev/full')
def test_pipe_writes_on_a_full_disk(app, tmp_path):
    """Every trace write fails (ENOSPC) while the program writes into a pipe (its stdout
    here): its bytes and exit status unchanged, one warning."""
    e = {k: v for k, v in os.environ.items() if not k.startswith('DYL_') and k not in RANK_VARS}
    cmd = [app.app, 'writer', '200', '1000']
    plain = subprocess.run(cmd, capture_output=True, env=e, timeout=60)
    wrapped = subprocess.run(cmd, capture_output=True, timeout=60,
                             env=dict(e, LD_PRELOAD=app.wrap, DYL_TRACE='/dev/full'))
    assert wrapped.returncode == plain.returncode == 0
    assert wrapped.stdout == plain.stdout and len(plain.stdout) == 200 * 1000
    assert wrapped.stderr.count(b'dyliberator:') == 1, wrapped.stderr
