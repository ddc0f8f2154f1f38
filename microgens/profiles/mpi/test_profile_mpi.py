"""The mpi profile: --lib libmpi.so.40 alone wraps the calls that order ranks (its
functions) from Open MPI's header, and -g std.mpi builds on it."""
import os

import pytest

from dyltest import DYLIBERATOR, run

MPI_H = '/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h'
pytestmark = pytest.mark.skipif(not os.path.exists(MPI_H), reason='libopenmpi-dev is not installed')


def test_profile_wraps_the_calls_that_order_ranks(tmp_path):
    out = run([DYLIBERATOR, '--lib', 'libmpi.so.40', '-g', 'std.mpi', '--list'],
              cwd=str(tmp_path)).stdout
    wrapped = {line.split()[1] for line in out.splitlines() if line.startswith('wrap MPI_')}
    for f in ('MPI_Init', 'MPI_Finalize', 'MPI_Allreduce', 'MPI_Ialltoallv', 'MPI_Send',
              'MPI_Irecv', 'MPI_Waitall', 'MPI_Sendrecv'):
        assert f in wrapped, out
    assert 'MPI_Comm_rank' not in wrapped and len(wrapped) == 47, out
