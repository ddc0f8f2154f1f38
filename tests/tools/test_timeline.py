"""dyl-speedup's timeline prediction (doc/threads.md) on hand-made traces whose answers are
worked out by hand in the comments.  Every kernel call here has a model f = t / 4 (k, work
in ns, model k: 0 -> 0, 40000 -> 10000), so a call of t ns at work t takes t / 4.

The threads' '# ' lines are those of THREADS.md: '# threads=recorded', '# thread tid= parent=
create_ns= start_ns= end_ns=', '# join tid= target= call_ns= ret_ns='; the main thread is
tid = pid (100 here) and runs from 0 to total_ns.
"""
import json
import os
import subprocess

import pytest

from dyltest import make

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')
HEADER = 'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work'


@pytest.fixture(scope='module', autouse=True)
def built():
    make('bin/dyl-speedup')


def trace(tmp_path, calls, threads, joins, total, recorded=True, extra=(), name='t.csv'):
    """CALLS: (tid, start, t) of kernel k at work t; THREADS: (tid, parent, create, start,
    end or None); JOINS: (tid, target, call, ret)."""
    lines = ['# dyliberator trace 1', '# pid=100', *extra, HEADER]
    lines += [f'{i},{tid},k,{s},{t},,,{t}' for i, (tid, s, t) in enumerate(calls)]
    if recorded:
        lines.append('# threads=recorded')
    lines += [f'# thread tid={t} parent={p} create_ns={c} start_ns={s} end_ns={"" if e is None else e}'
              for t, p, c, s, e in threads]
    lines += [f'# join tid={t} target={g} call_ns={a} ret_ns={b}' for t, g, a, b in joins]
    lines.append(f'# total_ns={total}')
    path = tmp_path / name
    path.write_text('\n'.join(lines) + '\n')
    return str(path)


@pytest.fixture
def model(tmp_path):
    path = tmp_path / 'm.csv'
    path.write_text('func,work,t_ns\nk,0,0\nk,40000,10000\n')
    return str(path)


def predict(*args, check=True):
    r = subprocess.run([SPEEDUP, '--json', *args], capture_output=True, text=True)
    if check:
        assert r.returncode == 0, r.stderr
    return (json.loads(r.stdout) if r.returncode == 0 else None), r


def threads(result):
    return {t['tid']: t for t in result['threads']}


# main creates 101 at 1000 (started 1100), calls at 2000 for 10000, joins 101 12500..21600;
# 101 calls at 1200 for 20000 and ends at 21500; total 22000.  Amdahl: 22000 - 30000 + 7500
# = -500, no run time.  Unlimited: 101 ends at 1200 + 5000 + 300 = 6500, main reaches its
# join at 5000, returns at 6500 + 100 (the join's own cost, 21600 - 21500): T' = 6600 + 400
# = 7000.  One device: main's call waits for 101's (busy till 6200): 4200, ends at 8700,
# joins at 9200 (101 is done): 9300, T' = 9700.
CALL_THEN_JOIN = dict(calls=[(101, 1200, 20000), (100, 2000, 10000)],
                      threads=[(101, 100, 1000, 1100, 21500)],
                      joins=[(100, 101, 12500, 21600)], total=22000)


@pytest.mark.parametrize('devices,want,wait', [('unlimited', 7000, 0), ('1', 9700, 4200)])
def test_call_then_join(tmp_path, model, devices, want, wait):
    r, _ = predict(trace(tmp_path, **CALL_THEN_JOIN), model, '--devices', devices)
    assert r['timeline'] is True
    assert r['predicted_total_ns'] == want
    assert r['S_G'] == pytest.approx(22000 / want)
    assert r['amdahl_predicted_total_ns'] == -500
    assert r['queue_wait_ns'] == wait
    th = threads(r)
    assert th[100]['main'] and th[100]['measured_ns'] == 22000 and th[100]['predicted_ns'] == want
    assert th[100]['queue_wait_ns'] == wait
    assert th[101]['parent'] == 100 and th[101]['measured_ns'] == 20400
    assert th[101]['predicted_start_ns'] == 1100 and th[101]['predicted_end_ns'] == 6500
    assert th[101]['P'] == pytest.approx(20000 / 20400) and th[101]['S'] == pytest.approx(20400 / 5400)
    # unlimited: main to the creation, 101 from its start, main after its join
    path = [(s['tid'], s['from_ns'], s['to_ns'], s['after']) for s in r['critical_path']]
    assert path == ([(100, 0, 1000, 'start'), (101, 1100, 6500, 'start'), (100, 6500, 7000, 'join')]
                    if devices == 'unlimited' else [(100, 0, 9700, 'start')])


def test_the_default_is_one_device(tmp_path, model):
    r, _ = predict(trace(tmp_path, **CALL_THEN_JOIN), model)
    assert r['devices'] == 1 and r['predicted_total_ns'] == 9700
    csv = subprocess.run([SPEEDUP, '--csv', trace(tmp_path, **CALL_THEN_JOIN), model, '--devices',
                          'unlimited'], capture_output=True, text=True).stdout.splitlines()
    for line in ('# predicted_total_ns=7000', '# timeline=1', '# amdahl_predicted_total_ns=-500',
                 '# queue_wait_ns=0', '# devices=unlimited'):
        assert line in csv, csv[-12:]


def test_the_table_shows_threads_path_and_queueing(tmp_path, model):
    r = subprocess.run([SPEEDUP, trace(tmp_path, **CALL_THEN_JOIN), model], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert 'S_G = T / T\' = 2.268' in r.stdout
    assert "critical path (from the wrapper's start): 100 0.000 ns..9.700 us" in r.stdout
    assert 'queueing: 1 of 2 replaced calls waited for a device, 4.200 us in all' in r.stdout


# main creates 101 at 0; 101 calls at 0 for 8000 and ends at 8000; main joins it 1000..8100,
# then calls at 9000 for 4000; total 14000.  101 ends at 2000, the join returns at 2100,
# main's call 3000..4000: T' = 5000 for any number of devices.
@pytest.mark.parametrize('devices', ['unlimited', '1'])
def test_join_then_call(tmp_path, model, devices):
    r, _ = predict(trace(tmp_path, [(101, 0, 8000), (100, 9000, 4000)], [(101, 100, 0, 0, 8000)],
                         [(100, 101, 1000, 8100)], 14000), model, '--devices', devices)
    assert r['predicted_total_ns'] == 5000 and r['queue_wait_ns'] == 0


# main creates 101 at 0, calls at 1000 for 4000, joins 101 6000..20050; 101 calls at 0 for
# 20000, ends at 20000; total 20100.  Unlimited: 101 ends at 5000, main's join returns at
# 5050: T' = 5100.  One device: main's call waits 4000 (5000..6000), the join at 7000
# finds 101 done: 7050, T' = 7100.
@pytest.mark.parametrize('devices,want', [('unlimited', 5100), ('1', 7100)])
def test_a_thread_that_outlives_mains_calls(tmp_path, model, devices, want):
    r, _ = predict(trace(tmp_path, [(101, 0, 20000), (100, 1000, 4000)], [(101, 100, 0, 0, 20000)],
                         [(100, 101, 6000, 20050)], 20100), model, '--devices', devices)
    assert r['predicted_total_ns'] == want


# main calls at 0 for 4000 (f 1000: 3000 earlier from then on), creates 101 at 5000 (started
# 5100: 2100 on the prediction), joins it 5500..7400; 101 calls at 5200 for 2000 (2200..2700)
# and ends at 7300: 2800; the join returns at 2900: T' = 8000 - 4500 = 3500.
def test_a_thread_starts_where_its_creator_is(tmp_path, model):
    r, _ = predict(trace(tmp_path, [(100, 0, 4000), (101, 5200, 2000)], [(101, 100, 5000, 5100, 7300)],
                         [(100, 101, 5500, 7400)], 8000), model)
    assert threads(r)[101]['predicted_start_ns'] == 2100
    assert r['predicted_total_ns'] == 3500


# nobody joins 101, which ends after main on the prediction (a model slower at work 1000):
# main calls at 100 for 999 (f 500) and ends at 2000: 1501; 101 (created at 0) calls at
# 500 for 1000 (f 2000) and ends at 1990: 2990.  The process ends with 101: T' = 2990.
def test_a_thread_that_outlives_main(tmp_path):
    model = tmp_path / 'm2.csv'
    model.write_text('func,work,t_ns\nk,999,500\nk,1000,2000\n')
    r, _ = predict(trace(tmp_path, [(100, 100, 999), (101, 500, 1000)], [(101, 100, 0, 0, 1990)],
                         [], 2000), str(model), '--devices', 'unlimited')
    assert threads(r)[100]['predicted_end_ns'] == 2000 - 499
    assert r['predicted_total_ns'] == 2990
    assert r['critical_path'][-1]['tid'] == 101


# (a model f = 0.4 t here) three threads created at 0 call at 0, 10, 20 for 1000 (f 400)
# and end at 1000, 1010, 1020; main
# joins them (30..1001, 1001..1011, 1011..1021), total 1100.  One device: 400, 800, 1200 ends;
# waits 390 + 780; the last join returns at 1201: T' = 1280.  Two: 103 waits 380: T' = 880.
# Unlimited: T' = 500.
@pytest.mark.parametrize('devices,want,wait', [('unlimited', 500, 0), ('1', 1280, 1170),
                                               ('2', 880, 380)])
def test_a_queue_of_three_calls(tmp_path, devices, want, wait):
    model = tmp_path / 'm4.csv'
    model.write_text('func,work,t_ns\nk,0,0\nk,1000,400\n')
    r, _ = predict(trace(tmp_path, [(101, 0, 1000), (102, 10, 1000), (103, 20, 1000)],
                         [(101 + i, 100, 0, 0, 1000 + 10 * i) for i in range(3)],
                         [(100, 101, 30, 1001), (100, 102, 1001, 1011), (100, 103, 1011, 1021)],
                         1100), str(model), '--devices', devices)
    assert r['predicted_total_ns'] == want and r['queue_wait_ns'] == wait
    assert r['waited_calls'] == {'unlimited': 0, '1': 2, '2': 1}[devices]


def test_one_thread_is_amdahls_answer(tmp_path, model):
    """The main thread alone: T' = T - measured + predicted, to the nanosecond, with the
    start-up in T and tracing's cost out of it as without the thread lines."""
    calls = [(100, 1000 + 3000 * i, 1000 + 7 * i) for i in range(20)]
    extra = ['# startup_ns=777', '# overhead_ns=300']
    with_lines, _ = predict(trace(tmp_path, calls, [], [], 90000, extra=extra, name='a.csv'), model)
    without, _ = predict(trace(tmp_path, calls, [], [], 90000, recorded=False, extra=extra,
                               name='b.csv'), model)
    assert with_lines['timeline'] is True and without['timeline'] is False
    assert with_lines['total_ns'] == 90000 + 777 - 300
    assert abs(with_lines['predicted_total_ns'] - without['predicted_total_ns']) < 1e-6
    assert with_lines['amdahl_predicted_total_ns'] == without['predicted_total_ns']
    assert with_lines['S_G'] == pytest.approx(without['S_G'], rel=1e-12)


def test_a_trace_without_thread_lines_keeps_amdahl_with_a_note(tmp_path, model):
    r, _ = predict(trace(tmp_path, recorded=False, **CALL_THEN_JOIN), model)
    assert r['timeline'] is False and r['threads'] == []
    assert r['predicted_total_ns'] == -500 and r['S_G'] is None
    assert any("no '# threads=recorded' line" in n for n in r['notes']), r['notes']


def test_only_faster_uses_the_timeline(tmp_path, model):
    """A model slower for 101's call (f 2 t): --only-faster keeps it; main's shrinks.
    main: call 2000..12000 -> 2000..4500; 101 keeps 1200..21200, ends at 21500; the join
    returns at 21500 + 100: T' = 22000 (the main thread waits for 101 as measured)."""
    slow = tmp_path / 'slow.csv'
    slow.write_text('func,work,t_ns\nk,10000,2500\nk,20000,40000\n')
    r, _ = predict(trace(tmp_path, **CALL_THEN_JOIN), str(slow), '--only-faster',
                   '--devices', 'unlimited')
    assert r['timeline'] is True and r['calls'] == 1
    assert r['predicted_total_ns'] == 22000 and r['S_G'] == 1


def test_bad_thread_lines_are_bad_input(tmp_path, model):
    bad = trace(tmp_path, [(100, 0, 10)], [(101, 100, 0, 0, 5)], [], 100)
    with open(bad) as f:
        text = f.read().replace('create_ns=0', 'create_ns=x')
    with open(bad, 'w') as f:
        f.write(text)
    _, r = predict(bad, model, check=False)
    assert r.returncode == 2
    assert r.stderr.count('\n') == 1 and bad in r.stderr
    assert 'create_ns is not a non-negative integer' in r.stderr


@pytest.mark.parametrize('value', ['0', 'x', '-1', ''])
def test_bad_devices(tmp_path, model, value):
    _, r = predict(trace(tmp_path, **CALL_THEN_JOIN), model, '--devices', value, check=False)
    assert r.returncode == 2 and '--devices' in r.stderr


# an OpenMP region of main from 0 to 9500 ('# parallel'): main creates 101 at 100 (started
# 200; it runs till exit, end_ns empty) and calls 300..4300 (f 1000: ends 1300); 101 calls
# 2000..9300 (f 1825: ends 3825).  The region's closing barrier waits for 101's work: main
# reaches it at 1300, goes on at 3825 + 200 (9500 - 9300) = 4025: T' = 10000 - 5475 = 4525.
# Without the barrier main would end at 7000.
def test_an_openmp_region_waits_for_its_team(tmp_path, model):
    path = trace(tmp_path, [(100, 300, 4000), (101, 2000, 7300)], [(101, 100, 100, 200, None)],
                 [], 10000, extra=())
    with open(path) as f:
        text = f.read().replace('# threads=recorded', '# threads=recorded\n# parallel tid=100 call_ns=0 ret_ns=9500')
    with open(path, 'w') as f:
        f.write(text)
    r, _ = predict(path, model)
    assert r['predicted_total_ns'] == 4525
    assert [s['tid'] for s in r['critical_path']] == [100, 101, 100]


def test_one_thread_with_nested_rows_is_amdahls_answer(tmp_path, model):
    """Tracing's cost of nested rows is an average (overhead_ns / rows = 440 / 22 = 20 ns a
    row): the short call (100 ns, 10 rows in it: 200 ns) goes below 0, and only the sum is
    meant.  T = 10000 - 440 = 9560; t = 5100 - 400 = 4700; f = 25 + 1250: Amdahl's T' =
    6135, and the timeline's the same (clipping the short call at 0 gave 6035)."""
    def write(name, recorded):
        rows = [(1, 'k', 0, 100, 100, 0)] + [(2 + i, 'x', 5 + i, 1, '', 1) for i in range(10)]
        rows += [(12, 'k', 1000, 5000, 5000, 0)] + [(13 + i, 'x', 1100 + i, 1, '', 1) for i in range(10)]
        lines = ['# dyliberator trace 1', '# pid=100', HEADER + ',depth']
        lines += [f'{s},100,{f},{a},{t},,,{w},{d}' for s, f, a, t, w, d in rows]
        lines += (['# threads=recorded'] if recorded else []) + ['# total_ns=10000', '# overhead_ns=440']
        path = tmp_path / name
        path.write_text('\n'.join(lines) + '\n')
        return str(path)
    with_lines, _ = predict(write('a.csv', True), model)
    without, _ = predict(write('b.csv', False), model)
    assert without['predicted_total_ns'] == 6135
    assert with_lines['timeline'] and with_lines['predicted_total_ns'] == pytest.approx(6135, abs=1e-6)


# Waits ('# wait', '# wake'; doc/threads.md, "Waits and wake-ups").  Main (100) creates the
# writer 101 at 0 (start 10) and the producer 102 at 20 (start 30), joins 101 from 60 to
# 41600, ends at 42000.  102 calls at 100 for 40000 (f 10000), wakes object 7 at 40200 and
# ends at 40300.  101 waits on 7 from 50 to 40500 and ends at 41500.  Two wake-ups of 7 are
# not the one: 102's at 40, before the wait began, and 101's own at 40400.  Predicted: 102's
# wake-up at 10200, the wait returns then (not 300 after), 101 ends at 11200, main's join
# returns at 11300 and main ends at 11700.  Without the wait: T' = T = 42000.
WAITS = ['# wait tid=101 on=cond obj=7 call_ns=50 ret_ns=40500',
         '# wake tid=102 on=cond obj=7 at_ns=40', '# wake tid=102 on=cond obj=7 at_ns=40200',
         '# wake tid=101 on=mutex obj=7 at_ns=40400']


def waits_trace(tmp_path, waits):
    path = trace(tmp_path, calls=[(102, 100, 40000)],
                 threads=[(101, 100, 0, 10, 41500), (102, 100, 20, 30, 40300)],
                 joins=[(100, 101, 60, 41600)], total=42000)
    with open(path) as f:
        text = f.read().replace('# total_ns=', '\n'.join(waits) + '\n# total_ns=')
    with open(path, 'w') as f:
        f.write(text)
    return path


@pytest.mark.parametrize('waits,want', [(WAITS, 11700), ([], 42000)])
def test_a_wait_ends_at_its_wake_up(tmp_path, model, waits, want):
    r, _ = predict(waits_trace(tmp_path, waits), model, '--devices', 'unlimited')
    assert r['predicted_total_ns'] == want
    if waits:
        assert threads(r)[101]['predicted_end_ns'] == 11200
        assert [s['after'] for s in r['critical_path']] == ['start', 'start', 'wake', 'join']


def test_bad_wait_lines_are_bad_input(tmp_path, model):
    bad = waits_trace(tmp_path, ['# wait tid=101 on=cond obj=7 call_ns=500 ret_ns=400'])
    _, r = predict(bad, model, check=False)
    assert r.returncode == 2
    assert r.stderr.count('\n') == 1 and bad in r.stderr and 'ret_ns is before call_ns' in r.stderr


def test_the_path_and_t_prime_say_how_they_meet(tmp_path, model):
    # The path is on the trace's clock, from the wrapper's start; T' is on T's: the path's
    # end (9,700 ns, as above) plus the start-up before the wrapper (2,000 ns).
    t = trace(tmp_path, **CALL_THEN_JOIN, extra=['# startup_ns=2000'])
    r = subprocess.run([SPEEDUP, t, model], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "critical path (from the wrapper's start): 100 0.000 ns..9.700 us" in r.stdout
    assert ("T' = the path's end 9.700 us + 2.000 us (start-up, less tracing's cost) = 11.70 us"
            in r.stdout), r.stdout
