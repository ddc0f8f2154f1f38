"""Helpers of std.mpi's tests and the MPI job tests (tests/tools/test_mpi_job.py): the
sleep kernel's library built twice (bench/threads/libsleepk.c: the slow one, and its twin
4x faster, one soname), apps/mpi_jobs.c, one wrapper of libmpi and the kernel, and runs of
a 4-rank job under mpirun (as root: --allow-run-as-root; one machine: --oversubscribe)."""
import glob
import os
import shutil
import subprocess

from dyltest import ROOT, TIMEOUT, make, run, wrap

HERE = os.path.dirname(os.path.abspath(__file__))
SLEEPK = os.path.join(ROOT, 'bench', 'threads')
MPI_H = '/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h'
NP = 4


def have_mpi():
    """mpicc, mpirun and Open MPI's header (Debian's openmpi-bin, libopenmpi-dev)."""
    return bool(shutil.which('mpicc') and shutil.which('mpirun') and os.path.exists(MPI_H))


def rt_allowed():
    """chrt -f 10 (a real-time priority: sleeps wake on time on a loaded machine)."""
    try:
        return subprocess.run(['chrt', '-f', '10', 'true'], capture_output=True).returncode == 0
    except OSError:
        return False


def build(d):
    """The libraries (D/slow, D/fast), the app, the wrapper (libmpi's MPI_* and sleepk,
    -g std.mpi) and the twin's model (sleepk(us) takes us / 4 microseconds)."""
    make('all')
    d = str(d)
    for sub, div in (('slow', 1), ('fast', 4)):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
        run(['cc', '-O2', '-shared', '-fPIC', f'-DSLEEPK_DIV={div}', f'-I{SLEEPK}',
             '-Wl,-soname,libsleepk.so.1', '-o', os.path.join(d, sub, 'libsleepk.so.1'),
             os.path.join(SLEEPK, 'libsleepk.c')])
        if not os.path.exists(os.path.join(d, sub, 'libsleepk.so')):
            os.symlink('libsleepk.so.1', os.path.join(d, sub, 'libsleepk.so'))
    app = os.path.join(d, 'mpi_jobs')
    run(['mpicc', '-O2', f'-I{SLEEPK}', '-o', app, os.path.join(HERE, 'apps', 'mpi_jobs.c'),
         f'-L{os.path.join(d, "slow")}', '-lsleepk', '-lpthread'])
    wrapper = wrap(d, '--lib', 'libmpi.so.40', '--lib', os.path.join(d, 'slow', 'libsleepk.so.1'),
                   '--header', MPI_H, '--header', os.path.join(SLEEPK, 'sleepk.h'),
                   '--defs', os.path.join(SLEEPK, 'sleepk.defs'), '-f', 'MPI_*', '-f', 'sleepk',
                   '-g', 'std.mpi')
    model = os.path.join(d, 'model.csv')
    with open(model, 'w') as f:
        f.write('func,work,t_ns\nsleepk,1,250\nsleepk,1000000,250000000\n')
    return d, app, wrapper, model


def job(d, app, wrapper, lib, out, *args, rt=False):
    """Runs APP ARGS as NP ranks on library LIB ('slow' or 'fast'), traced into OUT
    (DYL_TRACE=OUT/trace.%p.csv): the traces."""
    assert out not in ('slow', 'fast'), 'the libraries live there'
    out = os.path.join(d, out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1',
               LD_LIBRARY_PATH=os.path.join(d, lib), LD_PRELOAD=wrapper,
               DYL_TRACE=os.path.join(out, 'trace.%p.csv'))
    cmd = ['mpirun', '--oversubscribe', '-np', str(NP), '-x', 'LD_LIBRARY_PATH', '-x', 'LD_PRELOAD',
           '-x', 'DYL_TRACE', app, *args]
    subprocess.run((['chrt', '-f', '10'] if rt else []) + cmd, env=env, check=True,
                   timeout=TIMEOUT, capture_output=True)
    return sorted(glob.glob(os.path.join(out, 'trace.*.csv')))


def rank_traces(traces):
    """The traces of the ranks (those with '# mpi_rank='), by rank: {rank: path}.  mpirun
    itself is traced too (LD_PRELOAD reaches it): its trace has no rank."""
    ranks = {}
    for t in traces:
        with open(t) as f:
            for line in f:
                if line.startswith('# mpi_rank='):
                    ranks[int(line.split('=')[1])] = t
                    break
    return ranks
