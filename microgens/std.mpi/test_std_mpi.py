"""std.mpi: each MPI call that orders ranks, with its exact columns, on a 4-rank job
(apps/mpi_jobs.c calls): the communicator (MPI_COMM_WORLD 0, a split one the FNV-1a hash
of its world ranks), the peer as a world rank (a receive's from its status, where the
program ignored it), the tag, each communicator's collective sequence, the requests a
Waitall and a Wait completed, and the bytes (count x type size, v-forms summed, the
root's side apart); the rank, size and host in the header.  The wrapper also loads into
mpirun itself (no libmpi there: it refers to no symbol of libmpi) and leaves no trace there."""
import os
import subprocess

import pytest

from dyltest import ROOT, Trace
from mpijob import NP, build, have_mpi, job, rank_traces

pytestmark = pytest.mark.skipif(not have_mpi(), reason='Open MPI (mpicc, mpirun) is not installed')


@pytest.fixture(scope='module')
def calls(tmp_path_factory):
    d, app, wrapper, _ = build(tmp_path_factory.mktemp('std_mpi'))
    traces = job(d, app, wrapper, 'slow', 'calls', 'calls')
    return traces, {r: Trace(p) for r, p in rank_traces(traces).items()}


def comm_id(world_ranks):
    """std.mpi's id of a communicator other than MPI_COMM_WORLD"""
    h = 2166136261
    for r in world_ranks:
        h = ((h ^ r) * 16777619) & 0xffffffff
    return (h & 0x7fffffff) | 1


def mpi_rows(t):
    return [r for r in t.by_seq() if r['mpi_comm'] != '' or r['func'] in ('MPI_Waitall', 'MPI_Wait')]


def cols(r):
    return (r['func'], r['in_bytes'], r['out_bytes'], r['mpi_comm'], r['mpi_peer'], r['mpi_tag'],
            r['mpi_seq'], r['mpi_req'], r['args'])


def expected(rank):
    nxt, prv = (rank + 1) % NP, (rank + NP - 1) % NP
    half = comm_id([r for r in range(NP) if r % 2 == rank % 2])
    return [
        ('MPI_Bcast', '24' if rank == 1 else '0', '0' if rank == 1 else '24', '0', '1', '', '0', '', ''),
        ('MPI_Reduce', '40', '40' if rank == 0 else '0', '0', '0', '', '1', '', ''),
        ('MPI_Allgather', '16', str(16 * NP), '0', '', '', '2', '', ''),
        ('MPI_Allgatherv', str(8 * (rank + 1)), '80', '0', '', '', '3', '', ''),
        ('MPI_Alltoall', str(4 * NP), str(4 * NP), '0', '', '', '4', '', ''),
        ('MPI_Irecv', '0', '0', '0', str(prv), '3', '', '0', ''),
        ('MPI_Isend', '48', '0', '0', str(nxt), '3', '', '1', ''),
        ('MPI_Waitall', '', '48', '0', str(prv), '3', '', '0', f'r:0:0:{prv}:3:48:-1 s:1:0:{nxt}:3:48:-1'),
        ('MPI_Sendrecv', '7', '7', '0', str(nxt), '4', '', '', f'r:-1:0:{prv}:4:7:-1'),
        ('MPI_Allreduce', '36', '36', str(half), '', '', '0', '', ''),
        ('MPI_Ibarrier', '0', '0', str(half), '', '', '1', '2', ''),
        ('MPI_Wait', '', '0', str(half), '', '', '1', '2', f'c:2:{half}:-1:-1:0:1'),
        ('MPI_Barrier', '0', '0', '0', '', '', '5', '', ''),
    ]


def test_columns_exact_on_every_rank(calls):
    _, ranks = calls
    assert sorted(ranks) == list(range(NP))
    for rank, t in ranks.items():
        assert t.columns[-5:] == ['mpi_comm', 'mpi_peer', 'mpi_tag', 'mpi_seq', 'mpi_req']
        assert [cols(r) for r in mpi_rows(t)] == expected(rank), rank


def test_header_names_rank_size_host(calls):
    _, ranks = calls
    for rank, t in ranks.items():
        assert t.meta['mpi_rank'] == str(rank)
        assert t.meta['mpi_size'] == str(NP)
        assert t.meta['mpi_host']
        # MPI_Init and MPI_Finalize are rows (the clocks' alignment), without columns
        assert t.count('MPI_Init') == 1 and t.count('MPI_Finalize') == 1


def test_mpirun_itself_runs_under_the_wrapper(calls):
    traces, ranks = calls
    # LD_PRELOAD held the wrapper for mpirun and its daemons too (no libmpi there): they
    # ran, and, calling nothing wrapped, left no trace: one trace a rank
    assert len(traces) == NP and sorted(t.path for t in ranks.values()) == traces


def test_dyl_flow_messages_between_ranks(calls):
    """dyl-flow --messages: each send matched with its receive, sender's call to receiver's"""
    traces, _ = calls
    flow = os.path.join(ROOT, 'bin', 'dyl-flow')
    out = subprocess.run([flow, '--messages', *traces], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    want = ['sender,receiver,messages,bytes']
    want += [f'rank {r}: MPI_Isend,rank {(r + 1) % NP}: MPI_Waitall,1,48' for r in range(NP)]
    want += [f'rank {r}: MPI_Sendrecv,rank {(r + 1) % NP}: MPI_Sendrecv,1,7' for r in range(NP)]
    assert out == want
    dot = subprocess.run([flow, '--messages', '--dot', *traces], capture_output=True, text=True,
                         check=True).stdout
    assert dot.count(' -> ') == 2 * NP
    assert '"rank 3: MPI_Isend" -> "rank 0: MPI_Waitall" [label="48 B, 1 message"]' in dot


def test_dyl_flow_messages_refuses_traces_without_ranks(tmp_path):
    t = tmp_path / 'plain.csv'
    t.write_text('# dyliberator trace 1\n# pid=1\nseq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,'
                 'work,depth,args\n0,1,f,0,1,,,,0,\n# total_ns=10\n')
    r = subprocess.run([os.path.join(ROOT, 'bin', 'dyl-flow'), '--messages', str(t)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no trace is an MPI rank's" in r.stderr
