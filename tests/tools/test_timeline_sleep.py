"""The timeline prediction against a real run, without CPU noise (bench/threads/run.py,
doc/threads.md): a library whose kernel sleeps its work size in microseconds, traced on
the slow library, predicted with a model of its twin that sleeps a quarter (dyl-model on
the twin's traced sweep), and compared with the twin's runs (any number of callers at
once: --devices unlimited; callers taking turns: --devices 1).  The shape 'small' of
bench/threads/shapes.c at scale 2: a thread whose 40 ms call (slow: 160 ms) arrives while
main's 20 ms one runs, a join, then main's 10 ms call; about 90 ms on the twin.

Everything sleeps, and the programs run at a real-time priority (chrt -f 10; skipped
where that is not allowed), so a loaded machine does not delay their wakeups: what is
left is the timer's granularity (timer slack set to 1 ns, wakeups late by tens of
microseconds) over the ~10 sleeps and thread starts on the critical path, under 1 ms of
~90 ms, and the wrapper's own first call in each thread, in both runs.  What the load
still does (the exit's write-out of the trace waiting for the disk, a wakeup late all the
same) only ever adds: the least of 3 rounds is compared on each side (their medians
differed by 4.7 % once in 8 tries here, at load 10; the least: 0.9 %).  Measured here:
within 1.1 % over 5 rounds; the tolerance is 3 %.  Amdahl's sum would be off by 70 %, and
one device against unlimited differs by 20 %."""
import importlib.util
import os
import subprocess

import pytest

from dyltest import ROOT, make

spec = importlib.util.spec_from_file_location('threads_run', os.path.join(ROOT, 'bench', 'threads',
                                                                           'run.py'))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def rt_allowed():
    try:
        return subprocess.run(['chrt', '-f', '10', 'true'], capture_output=True).returncode == 0
    except OSError:
        return False


@pytest.mark.skipif(not rt_allowed(), reason='chrt -f (a real-time priority) is not allowed here')
def test_small_shape_predicted_within_3_percent(tmp_path):
    make('all')
    d = str(tmp_path)
    bench.build(d, os.path.join(ROOT, 'bin', 'dyliberator'))
    model = bench.model(d, 2, True)
    rows = bench.check(d, 'small', 2, model, 3, True)
    for devices, slow, pred, measured, _ in rows:
        # (median, least, greatest) each: the least
        assert abs(pred[1] / measured[1] - 1) < 0.03, (devices, slow, pred, measured)
    # the one device made the thread's call wait for main's: 20 ms longer
    assert rows[1][2][1] > rows[0][2][1] + 15e6, rows
