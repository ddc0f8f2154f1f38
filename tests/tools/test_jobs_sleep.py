"""The run timeline of several processes (doc/jobs-timeline.md) against real runs, without
CPU noise, as test_timeline_sleep.py does for threads: tests/apps/jobs_procs.c's processes
call bench/threads' sleeping kernel (libsleepk: the slow library sleeps its work in us, its
twin a quarter of it).  Each shape is traced on the slow library, predicted with a model of
the twin (dyl-model on the twin's traced sweep), and compared with the twin's run, traced
the same way: the run's T' against the twin run's T, both first start to last end on the
traces' clocks (so both hold the same tracing set-up).  The least of 3 rounds on each side
(a late wakeup only ever adds).  The programs run at a real-time priority (chrt -f 10).

The shapes, at scale 2: 'fork', a parent working 20 ms while its child calls an 80 ms
kernel (20 ms on the twin), then waiting for it and calling a 20 ms one (5 ms): about 26 ms
on the twin, where adding the processes up says 110 ms; 'pipe', a | b, a calling a 40 ms
kernel (10 ms) before each of its two writes, b blocked on them: about 21 ms on the twin.

It needs the runtime's process events ('# procs=recorded': fork, waitpid, pipe reads and
writes, doc/jobs.md); a runtime without them is skipped, with the reason."""
import importlib.util
import json
import os
import subprocess

import pytest

from dyltest import ROOT, make

spec = importlib.util.spec_from_file_location('threads_run', os.path.join(ROOT, 'bench', 'threads',
                                                                           'run.py'))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')


def rt_allowed():
    try:
        return subprocess.run(['chrt', '-f', '10', 'true'], capture_output=True).returncode == 0
    except OSError:
        return False


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    make('all')
    d = str(tmp_path_factory.mktemp('jobs'))
    bench.build(d, os.path.join(ROOT, 'bin', 'dyliberator'))
    bench.sh('cc', '-O2', '-std=gnu11', f'-I{os.path.join(ROOT, "bench", "threads")}', '-o',
             os.path.join(d, 'jobs_procs'), os.path.join(ROOT, 'tests', 'apps', 'jobs_procs.c'),
             f'-L{os.path.join(d, "slow")}', '-lsleepk')
    return d, bench.model(d, 2, True)


def run(d, lib, shape, name):
    """SHAPE on LIB under the wrapper, one trace per process: their paths."""
    out = os.path.join(d, name)
    os.makedirs(out)
    bench.sh('chrt', '-f', '10', os.path.join(d, 'jobs_procs'), shape, '2',
             env=bench.env(d, lib, os.path.join(out, 'trace.%p.csv')))
    return [os.path.join(out, f) for f in sorted(os.listdir(out))]


def job(traces, model):
    r = json.loads(bench.sh(SPEEDUP, '--json', '--devices', 'unlimited', *traces, model))
    return r['job']


@pytest.mark.skipif(not rt_allowed(), reason='chrt -f (a real-time priority) is not allowed here')
@pytest.mark.parametrize('shape,nprocs', [('fork', 2), ('pipe', 3)])
def test_predicted_within_3_percent(built, shape, nprocs):
    d, model = built
    slow = run(d, 'slow', shape, f'{shape}-probe')
    if not any('# procs=recorded' in open(t).read() for t in slow):
        pytest.skip("the runtime records no process events ('# procs=recorded', doc/jobs.md)")
    assert len(slow) == nprocs
    pred, meas = [], []
    for i in range(3):
        pred.append(job(run(d, 'slow', shape, f'{shape}-slow-{i}'), model)['predicted_total_ns'])
        meas.append(job(run(d, 'fast', shape, f'{shape}-fast-{i}'), model)['total_ns'])
    assert abs(min(pred) / min(meas) - 1) < 0.03, (pred, meas)
