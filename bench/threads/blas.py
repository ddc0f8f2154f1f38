#!/usr/bin/python3
"""Real threads, real kernels (issue 22): the 4-thread dgemm_ program and an OpenMP loop
calling dgemm_, traced on the reference BLAS and predicted with a model of OpenBLAS serial
(dyl-model on a one-thread traced run of it: the same calls, one at a time), against their
runs on OpenBLAS serial.

    bench/threads/blas.py [--rounds N] [--n N] [--out DIR]

Each round, interleaved: a traced run on the reference BLAS (predicted with --devices 1,
2 and unlimited: this machine's 2 cores are the "devices" of a faster CPU library), and a
traced run on OpenBLAS serial (its '# total_ns=', the wall time from the wrapper's start
to the exit).  Prints medians and ranges; the prediction is read on the trace's clock as
in run.py.  CPU-bound: on a loaded machine the spread is wide.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402

LIB = '/usr/lib/x86_64-linux-gnu'
REF, SERIAL = f'{LIB}/blas', f'{LIB}/openblas-serial'


def build(d):
    cc = ['cc', '-O2', '-std=gnu11']
    run.sh(*cc, '-o', f'{d}/dgemm_threads', f'{run.HERE}/dgemm_threads.c', f'-L{REF}', '-lblas',
           '-lpthread')
    run.sh(*cc, '-fopenmp', '-o', f'{d}/omp_blas', f'{run.HERE}/omp_blas.c', f'-L{REF}', '-lblas')
    run.sh(os.path.join(run.BIN, 'dyliberator'), '-q', '--lib', f'{REF}/libblas.so.3', '--header',
           os.path.join(run.ROOT, 'examples', 'blas.h'), '--defs',
           os.path.join(run.ROOT, 'examples', 'blas.defs'), '-f', 'dgemm_', '-o', f'{d}/blas.so')


def traced(d, lib, cmd, name, extra_env=None):
    trace = os.path.join(d, f'{name}.csv')
    env = dict(os.environ, LD_LIBRARY_PATH=lib, LD_PRELOAD=f'{d}/blas.so', DYL_TRACE=trace,
               **(extra_env or {}))
    run.sh(*cmd, env=env)
    return trace


def spread(v):
    return f'{statistics.median(v) / 1e6:8.1f} {min(v) / 1e6:6.0f}..{max(v) / 1e6:<6.0f}'


def program(d, name, cmd, one, env, rounds):
    """CMD on the reference BLAS against OpenBLAS serial; ONE: CMD's one-thread form, for
    the model."""
    model = os.path.join(d, f'{name}-model.csv')
    run.sh(os.path.join(run.BIN, 'dyl-model'),
           traced(d, SERIAL, one, f'{name}-sweep', dict(env, OMP_NUM_THREADS='1')), out=model)
    res = {k: [] for k in ('ref', '1', '2', 'unlimited', 'serial')}
    for i in range(rounds):
        ref = traced(d, REF, cmd, f'{name}-ref-{i}', env)
        res['ref'].append(run.total_ns(ref))
        for devices in ('1', '2', 'unlimited'):
            res[devices].append(run.predicted(ref, devices, model))
        res['serial'].append(run.total_ns(traced(d, SERIAL, cmd, f'{name}-serial-{i}', env)))
    meas = statistics.median(res['serial'])
    print(f'{name}: reference BLAS {spread(res["ref"])} ms; OpenBLAS serial measured '
          f'{spread(res["serial"])} ms')
    for devices in ('1', '2', 'unlimited'):
        print(f'  predicted, --devices {devices:9} {spread(res[devices])} ms  '
              f'{(statistics.median(res[devices]) / meas - 1) * 100:+6.1f} %', flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--n', type=int, default=300)
    ap.add_argument('--out', default='/tmp/dyl-threads-blas')
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    build(a.out)
    d, n = a.out, str(a.n)
    program(d, 'dgemm_threads-4x10', [f'{d}/dgemm_threads', '4', '10', n],
            [f'{d}/dgemm_threads', '1', '10', n], {}, a.rounds)
    program(d, 'omp_blas-40-4threads', [f'{d}/omp_blas', '40', n], [f'{d}/omp_blas', '10', n],
            {'OMP_NUM_THREADS': '4'}, a.rounds)


if __name__ == '__main__':
    main()
