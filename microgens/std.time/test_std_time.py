"""std.time: call durations, with the clock chosen by clock=."""
import os
import pytest

from dyltest import Trace, c_app, c_library, run_both, wrap

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'apps')
HEADER = os.path.join(C_FILES, 'sleepy.h')
SOURCE = os.path.join(C_FILES, 'libsleepy.c')
APP = os.path.join(C_FILES, 'app.c')


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('time')
    lib, h = c_library(d, 'sleepy', HEADER, SOURCE)
    return d, lib, h, c_app(d, 'app', APP, lib)


def durations(trace, func):
    return [int(r['t_ns']) for r in trace.rows if r['func'] == func]


def test_monotonic_clock_sees_sleep(built):
    d, lib, h, app = built
    w = wrap(d, '--lib', lib, '--header', h, name='mono.so')
    _, tp = run_both([app], w, d, trace='mono.csv')
    t = Trace(tp)
    assert t.meta['time_clock'] == 'monotonic'
    sleeps = durations(t, 'sleepy')
    assert len(sleeps) == 3 and all(s >= 20_000_000 for s in sleeps)
    # the calls sit inside the run, one after another
    starts = [int(r['t_start_ns']) for r in t.by_seq()]
    assert starts == sorted(starts)
    assert sum(sleeps) + durations(t, 'spin')[0] <= int(t.meta['total_ns'])


def test_thread_clock_ignores_sleep(built):
    d, lib, h, app = built
    w = wrap(d, '--lib', lib, '--header', h, '-g', 'std.time:clock=thread', name='cpu.so')
    _, tp = run_both([app], w, d, trace='cpu.csv')
    t = Trace(tp)
    assert t.meta['time_clock'] == 'thread-cputime'
    # CPU time of a 20 ms sleep is microseconds; a 2e7-iteration loop is milliseconds
    assert all(s < 5_000_000 for s in durations(t, 'sleepy'))
    assert durations(t, 'spin')[0] > 1_000_000
    # T for these t_ns is the process's CPU time: more than the calls' CPU time, less
    # than the wall time, which holds the sleeps (3 x 20 ms)
    cpu = int(t.meta['cpu_ns'])
    assert sum(durations(t, 'sleepy')) + durations(t, 'spin')[0] < cpu < int(t.meta['total_ns']) - 50_000_000


def test_bad_clock_is_a_clear_error(built):
    d, lib, h, _ = built
    from dyltest import dyliberator
    r = dyliberator('--lib', lib, '--header', h, '-g', 'std.time:clock=sundial', '--no-build',
                    cwd=str(d), check=False)
    assert r.returncode == 2
    assert 'std.time:clock=sundial: choose one of auto, monotonic, thread' in r.stderr
