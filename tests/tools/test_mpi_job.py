"""dyl-speedup over an MPI job's traces (speedup/dyl-speedup/mpi.c, doc/jobs-mpi.md): 4 ranks
of apps/mpi_jobs.c (microgens/std.mpi/), traced under mpirun on the slow sleep library,
predicted with the model of its twin 4x faster, against the job run on the twin.  Three
shapes: barriers with an unbalanced load (rank r sleeps (r + 1) x 20 ms a round), a
token going round a ring of sends (20 ms a hop), ranks whose kernels run in two threads
each, then an Allreduce.  Compared: the job between the last MPI_Init exit and the last
MPI_Finalize entry (MPI_Init's own start-up, hundreds of ms that vary from run to run, is
no kernel's).  Everything sleeps, at a real-time priority (chrt; skipped where that is not
allowed), so only the timer's granularity is left: measured here within 0.4 %; the
tolerance is 3 %.  Adding the ranks' times, or taking each rank alone, would be off by
the waits (the barrier job: rank 0 waits 3/4 of its time)."""
import os
import re
import subprocess
import sys

import pytest

from dyltest import ROOT

sys.path.insert(0, os.path.join(ROOT, 'microgens', 'std.mpi'))
from mpijob import build, have_mpi, job, rank_traces, rt_allowed  # noqa: E402

pytestmark = pytest.mark.skipif(not have_mpi(), reason='Open MPI (mpicc, mpirun) is not installed')
SPEEDUP = f'{ROOT}/bin/dyl-speedup'


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    return build(tmp_path_factory.mktemp('mpi_job'))


def report(traces, model):
    out = subprocess.run([SPEEDUP, *traces, model], capture_output=True, text=True, check=True).stdout
    return out[out.index('MPI job:'):]


def window(text):
    """(T, predicted T') between MPI_Init and MPI_Finalize, ms"""
    m = re.search(r"between MPI_Init and MPI_Finalize: T = ([\d.]+) ms, predicted T' = ([\d.]+) ms", text)
    return float(m.group(1)), float(m.group(2))


def path_ranks(text):
    """The critical path's ranks, latest first"""
    return [int(m) for m in re.findall(r'^  rank (\d+) ', text, re.M)]


@pytest.mark.skipif(not rt_allowed(), reason='chrt -f (a real-time priority) is not allowed here')
@pytest.mark.parametrize('shape', ['barrier', 'ring', 'threads'])
def test_job_predicted_within_3_percent_of_the_twin(built, shape):
    d, app, wrapper, model = built
    slow = report(job(d, app, wrapper, 'slow', f'{shape}-slow', shape, '20000', rt=True), model)
    fast = report(job(d, app, wrapper, 'fast', f'{shape}-fast', shape, '20000', rt=True), model)
    predicted, twin = window(slow)[1], window(fast)[0]
    assert abs(predicted / twin - 1) < 0.03, (shape, predicted, twin, slow)
    if shape == 'barrier':  # the last rank (4 x the work) starts the critical path
        assert path_ranks(slow)[-1] == 3, slow


def test_barrier_job_figures(built):
    d, app, wrapper, model = built
    traces = job(d, app, wrapper, 'slow', 'barrier', 'barrier', '2000')
    assert len(rank_traces(traces)) == 4
    text = report(traces, model)
    assert 'MPI job: 4 ranks, one host' in text
    rows = re.findall(r'^(\d)\s+\S+\s+' + r'\s+'.join([r'([\d.]+)'] * 6) + r'\s+(\d+)$', text, re.M)
    assert [int(r[0]) for r in rows] == [0, 1, 2, 3]
    assert [int(r[7]) for r in rows] == [5, 5, 5, 5]  # kernels replaced: 5 rounds each
    # the critical path: from a rank's start, handed on at barriers only (which rank
    # arrives last depends on the machine's load at 2 ms a kernel: the 20 ms runs above
    # say rank 3)
    steps = re.findall(r'^  rank \d+ .*$', text, re.M)
    assert steps[-1].endswith('from its start'), text
    assert all('released in MPI_Barrier' in s for s in steps[:-1]), text
    # 20 barriers compared across ranks: the clocks' residual is their exits' spread
    assert 'exits of 20 synchronizing collectives' in text
    assert 'matched: 0 receives with their sends, 5 collectives across ranks' in text


def test_ring_matches_every_receive(built):
    d, app, wrapper, model = built
    text = report(job(d, app, wrapper, 'slow', 'ring', 'ring', '2000'), model)
    # the token's 12 hops: each receive waits for its sender's MPI_Send
    assert 'matched: 12 receives with their sends, 0 collectives across ranks' in text, text
    assert 'released in MPI_Recv' in text and 'had no match' not in text


def moved(traces, d, name, shift_ns):
    """TRACES with ranks 2 and 3 on another host whose clock is SHIFT_NS ahead"""
    out = os.path.join(d, name)
    os.makedirs(out, exist_ok=True)
    paths = []
    for p in traces:
        with open(p) as f:
            text = f.read()
        if re.search(r'^# mpi_rank=[23]$', text, re.M):
            text = text.replace('# mpi_host=', '# mpi_host=other-')
            text = re.sub(r'^# start_ns=(\d+)$', lambda m: f'# start_ns={int(m.group(1)) + shift_ns}',
                          text, flags=re.M)
        paths.append(os.path.join(out, os.path.basename(p)))
        with open(paths[-1], 'w') as f:
            f.write(text)
    return paths


def test_several_hosts_aligned_at_mpi_init(built):
    """Ranks on two hosts: their clocks' offset does not matter (aligned at MPI_Init's exit)"""
    d, app, wrapper, model = built
    traces = job(d, app, wrapper, 'slow', 'hosts', 'barrier', '2000')
    a = report(moved(traces, d, 'ahead3', 3 * 10**9), model)
    b = report(moved(traces, d, 'ahead7', 7 * 10**9), model)
    assert "several hosts; clocks aligned at MPI_Init's exit" in a
    assert a == b
    assert 'matched: 0 receives with their sends, 5 collectives across ranks' in a
