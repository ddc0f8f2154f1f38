#!/usr/bin/python3
"""The timeline prediction checked without CPU noise (issue 22; doc/threads.md).

A library whose kernel sleeps for its work size in microseconds (libsleepk.c, the slow
one), its faster twin sleeping a quarter of it, and the twin as one device (callers take
turns).  For each shape of shapes.c: trace the run on the slow library (a wrapper built
with bin/dyliberator), predict it with dyl-speedup and a model of the faster twin
(dyl-model on the twin's traced sweep), and measure the run on the twin: the prediction
with --devices unlimited against the twin, with --devices 1 against the one-device twin.

    bench/threads/run.py [--rounds N] [--scale K] [--out DIR] [--tolerance PCT] [SHAPE...]

The twin's runs are measured under the same wrapper, their wall time from the wrapper's
start to the exit ('# total_ns='), and the prediction is read on that clock (T' less
what T adds to total_ns: the start-up before the wrapper's clock, a CPU time that varies
by milliseconds from run to run on a loaded machine, and tracing's cost where it is
taken out).  So both sides hold the same tracing set-up, and only the timeline is
compared.  Prints one line per shape and device count: total_ns of the slow run, the
predicted one, the twin's (median of N runs, and their range) and the error.  Exit 1
when an error exceeds the tolerance (2 %).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.join(ROOT, 'bin')
SHAPES = ['call_join', 'join_call', 'outlives', 'pool', 'nested']
WORKS = [0, 10000, 20000, 30000, 40000, 80000]     # every work size shapes.c calls with


def sh(*cmd, env=None, out=None):
    r = subprocess.run(list(cmd), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0:
        sys.exit(f'{" ".join(cmd)} failed ({r.returncode}):\n{r.stderr}')
    if out:
        with open(out, 'w') as f:
            f.write(r.stdout)
    return r.stdout


def build(d, dyliberator):
    """The three libraries (one soname, three folders), the programs, the wrapper."""
    cc = ['cc', '-O2', '-std=gnu11', f'-I{HERE}']
    for sub, flags in (('slow', ['-DSLEEPK_DIV=1']), ('fast', ['-DSLEEPK_DIV=4']),
                       ('fast1', ['-DSLEEPK_DIV=4', '-DSLEEPK_ONE_DEVICE'])):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
        lib = os.path.join(d, sub, 'libsleepk.so.1')
        sh(*cc, '-shared', '-fPIC', *flags, '-Wl,-soname,libsleepk.so.1', '-o', lib,
           os.path.join(HERE, 'libsleepk.c'), '-lpthread')
        link = os.path.join(d, sub, 'libsleepk.so')
        if not os.path.exists(link):
            os.symlink('libsleepk.so.1', link)
    for prog in ('shapes', 'sweep'):
        sh(*cc, '-o', os.path.join(d, prog), os.path.join(HERE, f'{prog}.c'),
           f'-L{os.path.join(d, "slow")}', '-lsleepk', '-lpthread')
    sh(dyliberator, '-q', '--lib', os.path.join(d, 'slow', 'libsleepk.so.1'),
       '--header', os.path.join(HERE, 'sleepk.h'), '--defs', os.path.join(HERE, 'sleepk.defs'),
       '-o', os.path.join(d, 'wrap.so'))


def env(d, lib, trace=None):
    e = dict(os.environ, LD_LIBRARY_PATH=os.path.join(d, lib))
    e.pop('LD_PRELOAD', None)
    if trace:
        e.update(LD_PRELOAD=os.path.join(d, 'wrap.so'), DYL_TRACE=trace)
    return e


def model(d, scale, rt):
    """The faster twin's model, from a traced sweep of it (its calls one at a time).  The
    least time of each work size: a sleep's noise (a late wakeup) only ever adds."""
    trace = os.path.join(d, 'sweep.csv')
    sh(*(['chrt', '-f', '10'] if rt else []), os.path.join(d, 'sweep'),
       *(str(w * scale) for w in WORKS), env=env(d, 'fast', trace))
    path = os.path.join(d, 'model.csv')
    sh(os.path.join(BIN, 'dyl-model'), '--stat', 'min', trace, out=path)
    return path


def total_ns(trace):
    """The trace's '# total_ns=': the wall time from the wrapper's start to the exit."""
    with open(trace) as f:
        return int([l for l in f if l.startswith('# total_ns=')][-1].split('=')[1])


def traced(d, lib, shape, scale, name, rt):
    """Runs SHAPE on LIB under the wrapper: its trace."""
    trace = os.path.join(d, f'{name}.csv')
    sh(*(['chrt', '-f', '10'] if rt else []), os.path.join(d, 'shapes'), shape, str(scale),
       env=env(d, lib, trace))
    return trace


def predicted(trace, devices, model_csv):
    """dyl-speedup's T' for TRACE, on the trace's clock (T' less what T adds to total_ns)."""
    r = json.loads(sh(os.path.join(BIN, 'dyl-speedup'), '--json', '--devices', devices, trace,
                      model_csv))
    if not r['timeline']:
        sys.exit(f'{trace}: no timeline ({r["notes"]})')
    return r['predicted_total_ns'] - (r['total_ns'] - total_ns(trace))


def check(d, shape, scale, model_csv, rounds, rt):
    """[(devices, slow total_ns, predicted, measured: each (median, lo, hi), error)] for
    SHAPE, from ROUNDS interleaved rounds: a traced slow run predicted for both device
    counts, a run of the twin, a run of the one-device twin."""
    runs = {k: [] for k in ('slow', 'unlimited', '1', 'fast', 'fast1')}
    for i in range(rounds):
        slow = traced(d, 'slow', shape, scale, f'{shape}-slow-{i}', rt)
        runs['slow'].append(total_ns(slow))
        for devices in ('unlimited', '1'):
            runs[devices].append(predicted(slow, devices, model_csv))
        for lib in ('fast', 'fast1'):
            runs[lib].append(total_ns(traced(d, lib, shape, scale, f'{shape}-{lib}-{i}', rt)))
    spread = {k: (statistics.median(v), min(v), max(v)) for k, v in runs.items()}
    return [(devices, spread['slow'], spread[devices], spread[lib],
             spread[devices][0] / spread[lib][0] - 1)
            for devices, lib in (('unlimited', 'fast'), ('1', 'fast1'))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('shapes', nargs='*', default=SHAPES)
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--scale', type=int, default=10, help='times every sleep by K')
    ap.add_argument('--out', default='/tmp/dyl-threads')
    ap.add_argument('--tolerance', type=float, default=2.0, help='per cent')
    ap.add_argument('--rt', action='store_true',
                    help='run the programs at a real-time priority (chrt -f 10: needs the '
                    'right), so that a loaded machine does not delay their wakeups')
    ap.add_argument('--dyliberator', default=os.path.join(BIN, 'dyliberator'),
                    help="the wrapper generator (another checkout's, say)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    build(a.out, a.dyliberator)
    m = model(a.out, a.scale, a.rt)
    bad = 0
    print(f'{"shape":10} {"devices":>9} {"slow run":>10} {"predicted":>20} {"measured":>20} '
          f'{"error":>7}   (total_ns, ms: median and range; scale {a.scale}, {a.rounds} rounds)')
    ms = lambda x: f'{x[0] / 1e6:7.1f} {x[1] / 1e6:5.0f}..{x[2] / 1e6:<5.0f}'
    for shape in a.shapes:
        for devices, slow, pred, meas, err in check(a.out, shape, a.scale, m, a.rounds, a.rt):
            bad += abs(err) * 100 > a.tolerance
            print(f'{shape:10} {devices:>9} {slow[0] / 1e6:8.1f}ms {ms(pred)} {ms(meas)} '
                  f'{err * 100:+6.2f}%', flush=True)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
