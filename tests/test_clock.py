"""The trace clock: the invariant TSC by default where the CPU has one, CLOCK_MONOTONIC
on request (DYL_CLOCK), both giving CLOCK_MONOTONIC nanoseconds in the trace; the
clock's own cost reported in the metadata."""
import pytest

from dyltest import Trace, c_app, c_library, run_both, wrap

HEADER = 'void sleepy(int us);\nint tick(int x);\n'
SOURCE = r'''
#include <unistd.h>
void sleepy(int us) { usleep(us); }
int tick(int x) { return x + 1; }
'''
# 3 sleeps of 20 ms, each between 1000 short calls: the conversion must keep both right
APP = r'''
#include <stdio.h>
#include "clk.h"
int main(void) {
	int x = 0;
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 1000; j++)
			x = tick(x);
		sleepy(20000);
	}
	printf("%d\n", x);
	return 0;
}
'''


def has_invariant_tsc():
    try:
        flags = open('/proc/cpuinfo').read()
    except OSError:
        return False
    return ' constant_tsc' in flags and ' nonstop_tsc' in flags


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('clock')
    lib, h = c_library(d, 'clk', HEADER, SOURCE)
    return d, c_app(d, 'app', APP, lib), wrap(d, '--lib', lib, '--header', h)


@pytest.mark.parametrize('clock', [None, 'tsc', 'monotonic'])
def test_clock_choice_and_times(built, clock):
    d, app, w = built
    if clock == 'tsc' and not has_invariant_tsc():
        pytest.skip('no invariant TSC')
    env = {'DYL_CLOCK': clock} if clock else {}
    r, tp = run_both([app], w, d, env=env, trace=f'clk-{clock}.csv')
    assert r.stdout == b'3000\n'
    t = Trace(tp)
    want = clock or ('tsc' if has_invariant_tsc() else 'monotonic')
    assert t.meta['clock'] == want
    cost = int(t.meta['clock_cost_ns'])
    assert 0 < cost < 10_000
    sleeps = [r for r in t.by_seq() if r['func'] == 'sleepy']
    ticks = [r for r in t.by_seq() if r['func'] == 'tick']
    assert len(sleeps) == 3 and len(ticks) == 3000
    for s in sleeps:
        assert 20_000_000 <= int(s['t_ns']) < 2_000_000_000
    # one thread: seq order is start order, the calls do not overlap, and all lie
    # inside the run
    rows = t.by_seq()
    for a, b in zip(rows, rows[1:]):
        assert int(a['t_start_ns']) + int(a['t_ns']) <= int(b['t_start_ns'])
    last = rows[-1]
    assert int(last['t_start_ns']) + int(last['t_ns']) <= int(t.meta['total_ns'])
    assert int(t.meta['total_ns']) >= 60_000_000
