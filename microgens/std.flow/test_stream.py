"""std.flow on long runs (issue 38): TRACE.flow is made in one pass over the rows, in
memory bounded by what is alive (threads, their events between two calls, live objects),
not by the run's length; std.flow's chunks of the spool are not rows: they do not count
towards DYL_CONVERT_MAX."""
import os
import subprocess

import pytest

from dyltest import Trace, build_c, c_library, wrap
import flowread

HEADER = 'long p1(const double *a);\n'
LIB = '#include "st.h"\nlong p1(const double *a) { return (long)a[0]; }\n'
# N calls, one a round, over 8 live 64 KiB blocks (bench/flow/streambench.c)
APP = r'''
#include <stdio.h>
#include <stdlib.h>
#include "st.h"
int main(int argc, char **argv)
{
	long n = atol(argv[1]), s = 0;
	double *b[8];
	for (int i = 0; i < 8; i++) {
		b[i] = malloc(65536);
		for (int j = 0; j < 8192; j++)
			b[i][j] = i;
	}
	for (long r = 0; r < n; r++)
		s += p1(b[r % 8]);
	for (int i = 0; i < 8; i++)
		free(b[i]);
	printf("%ld\n", s);
	return 0;
}
'''


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('stream')
    lib, h = c_library(d, 'st', HEADER, LIB)
    app = build_c(d, APP, 'app', f'-I{d}', lib, f'-Wl,-rpath,{d}')
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
    assert p.returncode == 0 and out == b'%d\n' % sum(r % 8 for r in range(n))
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
    held every event: 128 bytes a call)"""
    _, small = run(built, 30000, 'short')
    path, big = run(built, 300000, 'long')
    assert big - small < 8 << 10, (small, big)
    head, recs = flowread.read(path + '.flow')
    assert head['nseq'] == 300000
    assert sum(r['type'] == 'ACCESS' for r in recs) == 300000
