"""Waits and wake-ups (doc/threads.md, "Waits and wake-ups"): a thread that waits for
another's results, and makes no library call itself, follows that thread on the timeline.

tests/runtime/threads/waitapp.c: producers call libtiny's tiny_sleep_us for K_US = 80 ms
each, N = 8 results, two producers at once; the writer waits for each result (a condition
variable, a semaphore; or once, on a mutex main holds through its calls, or at a barrier)
and then sleeps W_US = 0.2 ms without a library call.  The model makes the kernel K = 4
times faster (work = microseconds, f = work / 4 us).

Measured T holds the producers' 4 calls in a row (320 ms); the writer, which waits for
them, ends W later.  Predicted, the writer's waits end when the producers' wake-ups do on
their timelines: T' = T less what a producer's calls save (t - f, about 240 ms), less the
time the writer's last wait took after its wake-up (a wait's end is its wake-up's: see
timeline.c), plus what the writer lags when its own time between waits (kept as measured)
exceeds the 20 ms between results predicted: on a loaded machine its 0.2 ms sleeps took
12 ms here.  So T - T' lies between the least saving less the writer's time outside its
waits, and the greatest plus every wait's time after its wake-up (both read from the
trace), give or take half a predicted call (K_US / K / 2 = 10 ms).
Without the waits recorded (DYL_WAITS=off) the writer's measured life holds the process:
T' = T.  Everything sleeps; the programs run at a real-time priority where allowed (as
test_timeline_sleep.py), so that fewer wake-ups come late on a loaded machine."""
import json
import os
import re
import subprocess

import pytest

import dyltest
from dyltest import run_both

HERE = os.path.dirname(os.path.abspath(__file__))
APPS = os.path.join(HERE, '..', 'apps')
SPEEDUP = os.path.join(dyltest.ROOT, 'bin', 'dyl-speedup')
N, K_US, W_US, K = 8, 80000, 200, 4
TOL = K_US * 1000 / K / 2


class Built:
    """The library, the program, the wrapper and the model (paths)."""


@pytest.fixture(scope='module')
def app(tmp_path_factory):
    dyltest.run(['make', '-s', '-C', dyltest.ROOT, 'runtime', 'bin/dyl-speedup'])
    d = str(tmp_path_factory.mktemp('waits'))
    b = Built()
    b.lib = dyltest.build_c(d, os.path.join(APPS, 'libtiny.c'), 'libtiny.so', '-fPIC',
                            '-shared', '-Wl,-soname,libtiny.so')
    b.app = dyltest.build_c(d, os.path.join(HERE, 'threads', 'waitapp.c'), 'waitapp',
                            '-I' + APPS, '-L' + d, '-ltiny', '-Wl,-rpath,' + d, '-lpthread')
    b.wrap = dyltest.wrap(d, '--lib', b.lib, '--header', os.path.join(APPS, 'tiny.h'),
                          '--defs', os.path.join(HERE, 'threads', 'waitapp.defs'),
                          '-f', 'tiny_sleep_us')
    b.model = os.path.join(d, 'model.csv')
    with open(b.model, 'w') as f:
        f.write(f'func,work,t_ns\ntiny_sleep_us,0,0\ntiny_sleep_us,{K_US},{K_US * 1000 // K}\n')
    return b


def rt():
    """chrt -f 10 where a real-time priority is allowed, else nothing."""
    try:
        ok = subprocess.run(['chrt', '-f', '10', 'true'], capture_output=True).returncode == 0
    except OSError:
        ok = False
    return ['chrt', '-f', '10'] if ok else []


def lines(path, kind):
    with open(path) as f:
        return [dict(kv.split('=', 1) for kv in line.split()[2:])
                for line in f if line.startswith(f'# {kind} ')]


def after_wake_ups(path):
    """What the trace's waits took after the wake-up that ended them, summed: the last
    wake-up of the object by another thread while it waited (a barrier's: an arrival)."""
    waits = lines(path, 'wait')
    wakes = [(k['obj'], k['tid'], int(k['at_ns'])) for k in lines(path, 'wake')]
    wakes += [(w['obj'], w['tid'], int(w['call_ns'])) for w in waits if w['on'] == 'barrier']
    total = 0
    for w in waits:
        call, ret = int(w['call_ns']), int(w['ret_ns'])
        at = [a for obj, tid, a in wakes if obj == w['obj'] and tid != w['tid'] and call <= a <= ret]
        total += ret - max(at) if at else 0
    return total


def outside_waits(path, tid):
    """Thread TID's measured life less its waits: its own time, kept as measured."""
    t = [x for x in lines(path, 'thread') if int(x['tid']) == tid][0]
    waits = [w for w in lines(path, 'wait') if int(w['tid']) == tid]
    return (int(t['end_ns']) - int(t['start_ns'])
            - sum(int(w['ret_ns']) - int(w['call_ns']) for w in waits))


def predict(app, trace):
    r = subprocess.run([SPEEDUP, '--json', '--devices', 'unlimited', trace, app.model],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = subprocess.run([SPEEDUP, '--devices', 'unlimited', trace, app.model],
                          capture_output=True, text=True)
    assert text.returncode == 0, text.stderr
    return json.loads(r.stdout), text.stdout


@pytest.mark.parametrize('mode', ['cond', 'sem', 'mutex', 'barrier'])
def test_writer_follows_the_kernel(app, tmp_path, mode):
    r, path = run_both(rt() + [app.app, mode], app.wrap, tmp_path)
    assert r.returncode == 0
    waits = lines(path, 'wait')
    assert [w for w in waits if w['on'] == mode], waits
    if mode != 'barrier':       # (a barrier's arrivals are its wake-ups)
        assert [w for w in lines(path, 'wake') if w['on'] == mode]
    res, text = predict(app, path)
    assert res['timeline'] is True
    T, Tp = res['total_ns'], res['predicted_total_ns']
    # the producers' calls are the chain the writer waits on
    savings = [t['t_ns'] - t['f_ns'] for t in res['threads'] if t['calls']]
    assert min(savings) >= N / 2 * K_US * 1000 * (1 - 1 / K), res['threads']
    slack = after_wake_ups(path)
    lag = sum(outside_waits(path, t['tid']) for t in res['threads'] if not t['calls'] and not t['main'])
    assert min(savings) - lag - TOL <= T - Tp <= max(savings) + slack + TOL, \
        (T, Tp, savings, lag, slack)
    assert lag < min(savings) / 2       # (else the test would say nothing)
    assert Tp >= N / 2 * K_US * 1000 / K
    # P is a share (of the threads' time when they ran at once), never above 100 %
    assert 0 <= res['P'] <= 1, res['P']
    assert all(0 <= k['P'] <= 1 for k in res['kernels']), res['kernels']
    shown = [float(x) for x in re.findall(r'(-?\d+\.\d+)%', text)]
    assert shown and all(0 <= x <= 100 for x in shown), text
    assert 'would say -' not in text, text
    # (whether the critical path goes through a wake-up depends on the run's timing: a
    # writer that found its last result ready did not wait for it; test_timeline.py has
    # the path on a hand-made trace)
    assert re.search(r'waits: [1-9]\d* of \d+ end at the predicted time of the wake-up', text), text


def test_without_waits_the_writer_holds_the_process(app, tmp_path):
    """DYL_WAITS=off: no wait is recorded, and the writer's measured life keeps T' at T
    (what the waits above fix)."""
    r, path = run_both(rt() + [app.app, 'cond'], app.wrap, tmp_path, env={'DYL_WAITS': 'off'})
    assert r.returncode == 0
    assert not lines(path, 'wait') and not lines(path, 'wake')
    res, _ = predict(app, path)
    saving = min(t['t_ns'] - t['f_ns'] for t in res['threads'] if t['calls'])
    assert res['total_ns'] - res['predicted_total_ns'] < saving / 2
