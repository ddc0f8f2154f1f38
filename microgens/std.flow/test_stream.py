"""std.flow on long runs (issue 38): TRACE.flow is made in one pass over the rows, in
memory bounded by what is alive (threads, their events between two calls, live objects),
not by the run's length; std.flow's chunks of the spool are not rows: they do not count
towards DYL_CONVERT_MAX."""
import os
import subprocess

import pytest

from dyltest import ROOT, Trace, build_c, c_library, wrap
import flowread

BENCH = os.path.join(ROOT, 'bench', 'flow')


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('stream')
    # N calls, one a round, over 8 live 64 KiB blocks (what bench/flow/stream.sh measures)
    lib, h = c_library(d, 'ptrs', os.path.join(BENCH, 'ptrs.h'), os.path.join(BENCH, 'libptrs.c'))
    app = build_c(d, os.path.join(BENCH, 'streambench.c'), 'app', f'-I{d}', lib, f'-Wl,-rpath,{d}')
    return d, app, wrap(d, '--lib', lib, '--header', h, '-g', 'std.flow')


def run(built, n, name, **env):
    """the app's N calls under std.flow: (the trace's path, its peak RSS in KiB)"""
    d, app, w = built
    path = str(d / f'{name}.csv')
    env = dict(os.environ, LD_PRELOAD=w, DYL_TRACE=path, **env)
    env.pop('DYL_CONVERT', None)
    p = subprocess.Popen([app, str(n)], env=env, stdout=subprocess.PIPE)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    assert p.returncode == 0 and out.split()[0] == b'%d' % sum(r % 8 for r in range(n))
    return path, ru.ru_maxrss


def test_flow_chunks_do_not_count_towards_convert_max(built):
    """600 calls: a spool of 618 KiB, 256 KiB of it std.flow's window (the rows' window
    and names area are the rest).  Under a DYL_CONVERT_MAX of 512K the rows become CSV at
    exit (the whole spool is over it), and TRACE.flow has every call's access: one ACCESS
    record a call, the 8 blocks born before the first"""
    path, _ = run(built, 600, 'small', DYL_CONVERT_MAX='512K')
    t = Trace(path)
    assert len(t.rows) == 600
    assert not os.path.exists(os.path.join(os.path.dirname(path), '.small.csv.dylspool'))
    head, recs = flowread.read(path + '.flow')
    assert head['nseq'] == 600
    acc = [r for r in recs if r['type'] == 'ACCESS']
    assert [r['seq'] for r in acc] == list(range(600))
    blocks = {r['obj_id'] for r in recs if r['type'] == 'OBJECT' and r['size'] == 65536}
    assert len(blocks) == 8 and {r['obj_id'] for r in acc} == blocks
    assert [(r['seq'], r['obj_id']) for r in recs if r['type'] == 'FREE' and r['obj_id'] in blocks] == \
        [(600, o) for o in sorted(blocks)]


def test_memory_does_not_grow_with_the_run(built):
    """30,000 then 300,000 calls over the same live blocks: the peak RSS (the exit's
    conversion included) grows by less than 8 MiB (it grew by ~37 MiB when the converter
    held every event: 128 bytes a call), and TRACE.flow by about a byte a call"""
    _, small = run(built, 30000, 'short')
    path, big = run(built, 300000, 'long')
    assert big - small < 8 << 10, (small, big)
    head, recs = flowread.read(path + '.flow')
    assert head['nseq'] == 300000
    assert sum(r['type'] == 'ACCESS' for r in recs) == 300000
    # packed (version 2): each call repeats one of 8 recent accesses, one byte (48 plain)
    assert head['version'] == 2 and os.path.getsize(path + '.flow') < 2 * 300000
