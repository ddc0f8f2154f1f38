"""dyl-speedup: the arithmetic of the paper's section III on small traces and models whose
answers are worked out by hand in the comments, and what it does with bad input.

    P   = sum t / T        S_P = sum t / sum f(w)        S_G = 1 / ((1 - P) + P / S_P)
    predicted_total_ns = T - sum t + sum f(w)
"""
import json
import os
import re
import subprocess

import pytest

from dyltest import make

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')
DATA = os.path.join(ROOT, 'tests', 'tools', 'data')

HEADER = 'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work'
HEADER_DEPTH = HEADER + ',depth,args'


@pytest.fixture(scope='module', autouse=True)
def built():
    make('bin/dyl-speedup')


def close(a, b, rel=1e-9):
    return a == pytest.approx(b, rel=rel, abs=1e-12)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def trace(tmp_path, rows, total_ns, name='trace.csv', header=HEADER):
    """ROWS: (tid, func, t_start, t_ns, work[, depth, args]) tuples; work None = empty."""
    lines = ['# dyliberator trace 1', header]
    for seq, r in enumerate(rows):
        tid, func, start, t, work = r[:5]
        extra = ''
        if header == HEADER_DEPTH:
            extra = f',{r[5] if len(r) > 5 else 0},{r[6] if len(r) > 6 else ""}'
        w = '' if work is None else work
        lines.append(f'{seq},{tid},{func},{start},{t},,{w},{w}{extra}')
    if total_ns is not None:
        lines.append(f'# total_ns={total_ns}')
    return write(tmp_path, name, '\n'.join(lines) + '\n')


def model(tmp_path, samples, name='model.csv'):
    """SAMPLES: (func, work, t_ns) tuples, written in the order given."""
    return write(tmp_path, name, 'func,work,t_ns\n' + ''.join(f'{f},{w},{t}\n' for f, w, t in samples))


def run(*args, check=True):
    r = subprocess.run([SPEEDUP, *args], capture_output=True, text=True)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def predict(*args):
    r = run('--json', *args)
    return json.loads(r.stdout), r.stderr


def kernel(result, func):
    found = [k for k in result['kernels'] if k['func'] == func]
    assert len(found) == 1, result['kernels']
    return found[0]


WORKED = [(7, 'dgemm_', 0, 100, 10), (7, 'dgemm_', 200, 300, 30)]


def worked(tmp_path, meta, name='trace.csv'):
    """The worked example's two calls (t = 100 and 300 ns, work 10 and 30), total_ns = 1000,
    then META: '# key=value' lines."""
    t = trace(tmp_path, WORKED, 1000, name=name)
    with open(t, 'a') as f:
        f.write(meta)
    return t


def line_model(tmp_path, func='dgemm_', name='model.csv'):
    # f(w) = w through (0,0) (20,20) (40,40)
    return model(tmp_path, [(func, 0, 0), (func, 20, 20), (func, 40, 40)], name=name)


# --- the arithmetic ---

def test_worked_example(tmp_path):
    # T = 1000; two dgemm_ calls t = 100, 300 at w = 10, 30; f(w) = w -> f = 10, 30.
    # P = 400/1000 = 0.4; S_P = 400/40 = 10; S_G = 1/(0.6 + 0.04) = 1.5625;
    # predicted total = 1000 - 400 + 40 = 640.
    t = trace(tmp_path, [(7, 'dgemm_', 0, 100, 10), (7, 'dgemm_', 200, 300, 30)], 1000)
    res, err = predict(t, line_model(tmp_path))
    assert err == ''
    assert res['total_ns'] == 1000 and res['t_ns'] == 400
    assert close(res['P'], 0.4)
    assert close(res['predicted_ns'], 40)
    assert close(res['S_P'], 10)
    assert close(res['S_G'], 1.5625)
    assert close(res['predicted_total_ns'], 640)
    k = kernel(res, 'dgemm_')
    assert k['calls'] == 2 and k['t_ns'] == 400
    assert close(k['predicted_ns'], 40) and close(k['S_P'], 10) and close(k['P'], 0.4)
    assert k['out_of_range_calls'] == 0
    assert res['not_accelerated'] == []
    assert len(res['processes']) == 1 and close(res['processes'][0]['S_G'], 1.5625)


def test_accelerator_setup_once_per_process(tmp_path):
    # The worked example with '# setup_ns=60' in the model file: the accelerator is set
    # up once per process that uses it.  Per process: predicted = 40 + 60 = 100;
    # S_P = 400/100 = 4; T' = 1000 - 400 + 100 = 700; S_G = 1000/700.
    # Two such processes: T = 2000, T' = 1400, setup 120.
    m = write(tmp_path, 'm.csv', '# made by hand\n#  setup_ns=60  (loading it)\n'
              'func,work,t_ns\ndgemm_,0,0\ndgemm_,40,40\n')
    t1 = trace(tmp_path, WORKED, 1000, name='a.csv')
    res, _ = predict(t1, m)
    assert close(res['setup_ns'], 60) and close(res['predicted_ns'], 40)
    assert close(res['S_P'], 4) and close(res['predicted_total_ns'], 700)
    assert close(res['S_G'], 1000 / 700)
    t2 = trace(tmp_path, WORKED, 1000, name='b.csv')
    res, _ = predict(t1, t2, m)
    assert close(res['setup_ns'], 120) and close(res['predicted_total_ns'], 1400)
    # a process that replaces no call sets nothing up
    t3 = trace(tmp_path, [(7, 'other', 0, 100, 10)], 1000, name='c.csv')
    res, _ = predict(t1, t3, m, line_model(tmp_path, 'other', name='o.csv'))
    assert close(res['setup_ns'], 60)
    # the table says so
    assert 'accelerator set-up' in run(t1, m).stdout
    # a bad value: one line naming the file and line
    bad = write(tmp_path, 'bad.csv', 'func,work,t_ns\n# setup_ns=fast\ndgemm_,0,0\n')
    r = run(t1, bad, check=False)
    assert r.returncode != 0 and f'{bad}:2:' in r.stderr and len(r.stderr.splitlines()) == 1


def test_thread_cpu_times_are_set_against_the_process_cpu_time(tmp_path):
    # The worked example's calls, timed in thread CPU time (std.time clock=thread): T is
    # the process's CPU time (cpu_ns = 800), not its wall time (total_ns = 1000).
    # P = 400/800 = 0.5; T' = 800 - 400 + 40 = 440; S_G = 800/440.
    t = worked(tmp_path, '# cpu_ns=800\n')
    plain, _ = predict(t, line_model(tmp_path))
    assert plain['total_ns'] == 1000 and plain['T_clock'] == 'wall'  # wall-clock t_ns
    text = open(t).read().replace('# dyliberator trace 1\n', '# dyliberator trace 1\n# time_clock=thread-cputime\n')
    cpu = write(tmp_path, 'cpu.csv', text)
    res, err = predict(cpu, line_model(tmp_path))
    assert err == ''
    assert res['total_ns'] == 800 and res['T_clock'] == 'cpu'
    assert close(res['P'], 0.5) and close(res['predicted_total_ns'], 440)
    assert close(res['S_G'], 800 / 440)
    table = run(cpu, line_model(tmp_path)).stdout
    assert "T = 800.0 ns (cpu_ns: the process's CPU time)" in table
    assert '# T_clock=cpu' in run('--csv', cpu, line_model(tmp_path)).stdout
    # thread CPU times without the process's CPU time: the wall T, with a warning
    old = write(tmp_path, 'old.csv', text.replace('# cpu_ns=800\n', ''))
    res, _ = predict(old, line_model(tmp_path))
    assert res['total_ns'] == 1000 and res['T_clock'] == 'mixed'
    assert 'P mixes two clocks' in run(old, line_model(tmp_path)).stdout
    # a CPU-time trace and a wall-time trace in one run: mixed as well
    res, _ = predict(cpu, t, line_model(tmp_path))
    assert res['total_ns'] == 1800 and res['T_clock'] == 'mixed'


def test_cpu_time_for_one_thread_timed_on_the_wall_clock(tmp_path):
    # The worked example's wall-clock calls in a process whose CPU time was 800 of its
    # 1000 ns (the rest: others held its core).  --cpu-time: T = 800 (the start-up is in
    # cpu_ns already), P = 400/800, T' = 800 - 400 + 40 = 440; without it, the wall.
    t = worked(tmp_path, '# startup_ns=50\n# cpu_ns=800\n')
    m = line_model(tmp_path)
    res, err = predict(t, m, '--cpu-time')
    assert err == '' and res['total_ns'] == 800 and res['T_clock'] == 'cpu'
    assert close(res['P'], 0.5) and close(res['predicted_total_ns'], 440)
    assert close(res['S_G'], 800 / 440) and res['notes'] == []
    assert "T = 800.0 ns (cpu_ns: the process's CPU time, --cpu-time)" in run(t, m, '--cpu-time').stdout
    wall, _ = predict(t, m)
    assert wall['total_ns'] == 1050 and wall['T_clock'] == 'wall'
    # two threads: their CPU times add up to no run time, so the wall stays (a note)
    t2 = trace(tmp_path, [(7, 'dgemm_', 0, 100, 10), (8, 'dgemm_', 200, 300, 30)], 1000, name='t2.csv')
    with open(t2, 'a') as f:
        f.write('# cpu_ns=1600\n')
    res, _ = predict(t2, m, '--cpu-time')
    assert res['total_ns'] == 1000 and res['T_clock'] == 'wall'
    assert any('--cpu-time does not apply' in n for n in res['notes'])
    # no cpu_ns: the wall, with the same note
    res, _ = predict(trace(tmp_path, WORKED, 1000, name='t3.csv'), m, '--cpu-time')
    assert res['total_ns'] == 1000 and any('--cpu-time does not apply' in n for n in res['notes'])
    # the calls (400 ns on the wall clock) waited for a core longer than the process ran
    # (cpu_ns=300): T = 300 would give T' = 300 - 400 + 40 < 0 (make validate's negative
    # S_G on a loaded machine).  The wall stays, with a note saying why.
    busy = worked(tmp_path, '# startup_ns=50\n# cpu_ns=300\n', name='busy.csv')
    res, _ = predict(busy, m, '--cpu-time')
    assert res['total_ns'] == 1050 and res['T_clock'] == 'wall' and close(res['S_G'], 1050 / 690)
    assert any("the calls' wall-clock time exceeds the process's CPU time" in n for n in res['notes'])
    # a --cpu-time trace beside one timed in thread CPU time: T is CPU time in both
    th = write(tmp_path, 'th.csv', open(t).read().replace(
        '# dyliberator trace 1\n', '# dyliberator trace 1\n# time_clock=thread-cputime\n'))
    res, _ = predict(t, th, m, '--cpu-time')
    assert res['total_ns'] == 1600 and res['T_clock'] == 'cpu'


def test_startup_before_the_wrapper_counts_in_T(tmp_path):
    # The worked example with '# startup_ns=250' (exec and the dynamic loader, before the
    # wrapper's clock started): T = 1000 + 250; T' = 1250 - 400 + 40 = 890.
    t = worked(tmp_path, '# startup_ns=250\n# cpu_ns=1100\n')
    res, err = predict(t, line_model(tmp_path))
    assert err == '' and res['T_clock'] == 'wall'
    assert res['total_ns'] == 1250 and close(res['predicted_total_ns'], 890)
    assert close(res['S_G'], 1250 / 890) and close(res['P'], 400 / 1250)
    assert 'T = 1.250 us (total_ns + startup_ns)' in run(t, line_model(tmp_path)).stdout
    bad_t = write(tmp_path, 'b.csv', f'{HEADER}\n# total_ns=5\n# startup_ns=x\n')
    assert bad(bad_t, line_model(tmp_path)) == f"dyl-speedup: {bad_t}:3: startup_ns is not a number ('x')"


def test_tracing_overhead_is_taken_out_of_T(tmp_path):
    # The worked example with '# overhead_ns=200' (what tracing cost the process, the
    # wrapper's own measure): T = 1000 - 200 = 800; P = 400/800 = 0.5; T' = 800 - 400 + 40
    # = 440; S_G = 800/440.  --keep-overhead: the worked example's answer, 1.5625.
    t = worked(tmp_path, '# overhead_ns=200\n')
    m = line_model(tmp_path)
    res, err = predict(t, m)
    assert err == '' and res['total_ns'] == 800 and res['overhead_ns'] == 200
    assert close(res['P'], 0.5) and close(res['predicted_total_ns'], 440)
    assert close(res['S_G'], 800 / 440)
    assert "tracing's own cost, 200.0 ns, is taken out of T" in run(t, m).stdout
    kept, _ = predict(t, m, '--keep-overhead')
    assert kept['total_ns'] == 1000 and kept['overhead_ns'] == 0 and close(kept['S_G'], 1.5625)
    # never below the calls' own time: an overhead of 900 leaves T = 400 (P = 1)
    t2 = worked(tmp_path, '# overhead_ns=900\n', name='t2.csv')
    res, _ = predict(t2, m)
    assert res['total_ns'] == 400 and res['overhead_ns'] == 600 and close(res['P'], 1)
    # two threads on the wall clock: their costs overlap in time, so T keeps it (a note
    # says so); timed in thread CPU time, T is the CPU time and loses it
    t3 = trace(tmp_path, [(7, 'dgemm_', 0, 100, 10), (8, 'dgemm_', 200, 300, 30)], 1000, name='t3.csv')
    with open(t3, 'a') as f:
        f.write('# overhead_ns=200\n')
    res, _ = predict(t3, m)
    assert res['total_ns'] == 1000 and res['overhead_ns'] == 0 and res['overhead_left_ns'] == 200
    assert any("left in T: several threads" in n for n in res['notes'])
    t4 = write(tmp_path, 't4.csv', open(t3).read().replace('# dyliberator trace 1\n',
               '# dyliberator trace 1\n# time_clock=thread-cputime\n') + '# cpu_ns=1000\n')
    res, _ = predict(t4, m)
    assert res['total_ns'] == 800 and res['overhead_ns'] == 200 and res['T_clock'] == 'cpu'
    # a measure above the process's CPU time took in waits (a call timed whole and
    # preempted): no more than the CPU time (150) comes out, T = 850, T' = 490, a note
    t5 = worked(tmp_path, '# cpu_ns=150\n# overhead_ns=200\n', name='t5.csv')
    res, _ = predict(t5, m)
    assert res['total_ns'] == 850 and res['overhead_ns'] == 150 and close(res['predicted_total_ns'], 490)
    assert any("'# overhead_ns=200', exceeds the process's CPU time" in n for n in res['notes'])
    bad_t = write(tmp_path, 'b.csv', f'{HEADER}\n# total_ns=5\n# overhead_ns=-1\n')
    assert bad(bad_t, m).startswith(f"dyl-speedup: {bad_t}:3: overhead_ns ")


def test_the_clock_read_in_each_t_ns_is_tracing_cost(tmp_path):
    # '# clock_cost_ns=40': a row's t_ns holds one read, 20 ns, of tracing's cost (half
    # of each of its two).  An overhead of 900 leaves T = 1000 - x >= 400 - 2 x 20, so
    # x = 640 and T = 360 (without the read, T = 400: a loop of 10^7 tiny calls kept T at
    # their summed t_ns, 167 ms, against ~30 ms untraced).  The replaced calls' times lose
    # their read too: t = (100 - 20) + (300 - 20) = 360, T' = 360 - 360 + 40 = 40.
    m = line_model(tmp_path)
    t = worked(tmp_path, '# clock_cost_ns=40\n# overhead_ns=900\n')
    res, err = predict(t, m)
    assert err == '' and res['total_ns'] == 360 and res['overhead_ns'] == 640
    assert res['measured_ns'] == 400 and res['t_ns'] == 360 and res['clock_reads_ns'] == 40
    assert close(res['predicted_total_ns'], 40) and close(res['S_G'], 360 / 40)
    assert "the clock read each replaced call's own t_ns held, 40.00 ns in all" in run(t, m).stdout
    # a measure that fits: all of it comes out, and each call's read with it
    t2 = worked(tmp_path, '# clock_cost_ns=40\n# overhead_ns=200\n', name='t2.csv')
    res, _ = predict(t2, m)
    assert res['total_ns'] == 800 and res['t_ns'] == 360 and close(res['predicted_total_ns'], 480)
    # --keep-overhead: T keeps tracing's cost, and so do the calls' times
    res, _ = predict(t2, m, '--keep-overhead')
    assert res['total_ns'] == 1000 and res['t_ns'] == 400 and res['clock_reads_ns'] == 0
    # timed in thread CPU time: the read of that clock costs another amount, not said
    th = write(tmp_path, 'th.csv', open(t2).read().replace(
        '# dyliberator trace 1\n', '# dyliberator trace 1\n# time_clock=thread-cputime\n'))
    res, _ = predict(th, m)
    assert res['t_ns'] == 400 and res['clock_reads_ns'] == 0
    bad_t = write(tmp_path, 'b.csv', f'{HEADER}\n# total_ns=5\n# clock_cost_ns=x\n')
    assert bad(bad_t, m) == f"dyl-speedup: {bad_t}:3: clock_cost_ns is not a number ('x')"


def nested_pair(tmp_path, overhead_b=250, name='b.csv'):
    """One program traced twice.  It spends 600 ns outside any wrapped call and 400 ns in
    outer(w=10), which calls inner 4 times; tracing costs 50 ns a call.
      A, outer alone wrapped: outer [100, 500), total_ns = 600 + 400 + 50, overhead 50.
      B, inner wrapped too: outer [100, 700) holds 4 x 50 ns of tracing; total_ns = 1250,
         overhead 5 x 50 = 250.
    Both: T = 1000, outer's time without tracing 400: T' = 1000 - 400 + f(10) = 610."""
    a = trace(tmp_path, [(1, 'outer', 100, 400, 10, 0)], 1050, name='a.csv', header=HEADER_DEPTH)
    rows = [(1, 'inner', s, 20, None, 1) for s in (150, 250, 350, 450)]
    b = trace(tmp_path, rows + [(1, 'outer', 100, 600, 10, 0)], 1250, name=name, header=HEADER_DEPTH)
    for path, o in ((a, 50), (b, overhead_b)):
        with open(path, 'a') as f:
            f.write(f'# overhead_ns={o}\n# overhead_calls_timed=1\n')
    return a, b, model(tmp_path, [('outer', 0, 0), ('outer', 10, 10)])


def test_tracing_cost_outside_any_call_is_not_spread_over_nested_rows(tmp_path):
    # nested_pair's program with 100 ns of tracing spent with no call open (set-up, the
    # exit's write-out: '# overhead_outside_ns=100') in both traces: A 1150 (150 of it
    # tracing's), B 1350 (350).  T = 1000 in both; B's rows cost (350 - 100) / 5 = 50 ns
    # each, so outer's time is 600 - 4 x 50 = 400 and T' = 610 for both wrappers.  Spread
    # over all rows (70 ns each), outer kept 320 and B said T' = 690: set-up left in T'.
    a, b, m = nested_pair(tmp_path)
    for path, total, o in ((a, 1150, 150), (b, 1350, 350)):
        text = open(path).read().replace('# overhead_ns=', '# overhead_outside_ns=100\n# overhead_ns=')
        text = re.sub(r'# total_ns=\d+', f'# total_ns={total}', text)
        text = re.sub(r'# overhead_ns=\d+', f'# overhead_ns={o}', text)
        write(tmp_path, os.path.basename(path), text)
    ra, _ = predict(a, m)
    rb, _ = predict(b, m)
    for r in (ra, rb):
        assert r['total_ns'] == 1000 and r['t_ns'] == 400 and close(r['predicted_total_ns'], 610)
    assert rb['inner_tracing_ns'] == 200 and close(rb['tracing_ns_per_row'], 50)


def test_tracing_cost_of_nested_calls_is_taken_out_once(tmp_path):
    a, b, m = nested_pair(tmp_path)
    ra, _ = predict(a, m)
    rb, _ = predict(b, m)
    for r in (ra, rb):
        assert r['total_ns'] == 1000 and r['t_ns'] == 400 and close(r['predicted_total_ns'], 610)
        assert close(r['S_G'], 1000 / 610)
    # B: 250 / 5 rows = 50 ns a row; the 4 rows in outer: 200 ns out of its 600 measured
    assert rb['measured_ns'] == 600 and rb['inner_rows'] == 4 and rb['inner_tracing_ns'] == 200
    assert close(rb['tracing_ns_per_row'], 50)
    k = kernel(rb, 'outer')
    assert k['measured_ns'] == 600 and k['t_ns'] == 400 and k['inner_tracing_ns'] == 200
    assert ra['inner_rows'] == 0 and ra['measured_ns'] == 400
    assert 'for the 4 calls nested in them' in run(b, m).stdout
    # --keep-overhead: T and outer's time both keep tracing's cost, T' = 1250 - 600 + 10
    kept, _ = predict(b, m, '--keep-overhead')
    assert kept['total_ns'] == 1250 and kept['t_ns'] == 600 and close(kept['predicted_total_ns'], 660)
    # a measure too large for the trace: x <= 600 / (4/5) = 750 (the nested rows' share of
    # it no more than the outer call holds) and x * 1/5 <= 1250 - 600 (the rest outside):
    # 750 taken, T = 500, 150 ns a row, outer's t = max(0, 600 - 600) = 0: T' = 510
    _, big, _ = nested_pair(tmp_path, overhead_b=5000, name='big.csv')
    r, _ = predict(big, m)
    assert r['overhead_ns'] == 750 and r['total_ns'] == 500 and r['t_ns'] == 0
    assert close(r['predicted_total_ns'], 510)
    # calls longer than total_ns: no room for the measure at all, T keeps it whole
    long = trace(tmp_path, [(1, 'inner', 150, 20, None, 1), (1, 'outer', 100, 1300, 10, 0)], 1250,
                 name='long.csv', header=HEADER_DEPTH)
    with open(long, 'a') as f:
        f.write('# overhead_ns=250\n')
    r, _ = predict(long, m)
    assert r['overhead_ns'] == 0 and r['total_ns'] == 1250 and r['S_G'] is None


@pytest.mark.serial  # compares tracing's cost in two runs: other jobs' time slices would count
def test_a_prediction_does_not_depend_on_whether_nested_calls_were_wrapped(tmp_path):
    """tests/apps/libnested.c: nested_outer(n) calls nested_inner n times through the PLT.
    The program is traced twice, nested_outer alone wrapped (A) and both (B), and
    nested_outer replaced by a model of 1 us a call.  T' is then the time outside the
    replaced calls, less tracing's cost there, plus the model's time.  That time outside
    differs between two runs by their start-up (about a millisecond), so each run's is
    taken from its own numbers: T + overhead_ns - measured_ns (T is what dyl-speedup left
    of total_ns + startup_ns).  What remains is what each took out for tracing outside the
    replaced calls: A all of its measure (its set-up and 10 calls), B its measure less
    what the 500,000 nested calls cost inside nested_outer.  The two agree within A's
    measure, give or take the noise of two runs; B taking out all of its own (the nested calls' cost twice: once from T, once
    more left inside nested_outer's time) would differ by that cost, about 25 ms here."""
    from dyltest import build_c, run_both, wrap
    n, r = 50000, 10
    d = str(tmp_path)
    lib = os.path.join(d, 'libnested.so')
    subprocess.run(['cc', '-O2', '-shared', '-fPIC', '-Wl,-soname,libnested.so', '-o', lib,
                    os.path.join(ROOT, 'tests', 'apps', 'libnested.c')], check=True)
    app = build_c(tmp_path, os.path.join(ROOT, 'tests', 'apps', 'nested_app.c'), 'app',
                  f'-I{ROOT}/tests/apps', lib, f'-Wl,-rpath,{d}')
    defs = write(tmp_path, 'n.defs', 'libnested*::nested_outer::postfix { work_size = n; }\n')
    header = os.path.join(ROOT, 'tests', 'apps', 'nested.h')
    m = model(tmp_path, [('nested_outer', 0, 1000)])
    res = {}
    for name, only in (('a', ['-f', 'nested_outer']), ('b', [])):
        w = wrap(tmp_path, '--lib', lib, '--header', header, '--defs', defs, *only, name=f'{name}.so')
        _, tr = run_both([app, str(n), str(r)], w, tmp_path, trace=f'{name}.csv')
        res[name], _ = predict(tr, m)
    a, b = res['a'], res['b']
    assert a['rows'] == r and b['rows'] == r + n * r
    assert a['inner_rows'] == 0 and b['inner_rows'] == n * r
    assert a['calls'] == b['calls'] == r and a['overhead_ns'] > 0 and b['overhead_ns'] > 0

    def outside(x):
        return x['total_ns'] + x['overhead_ns'] - x['measured_ns']

    left_a = a['predicted_total_ns'] - outside(a)
    left_b = b['predicted_total_ns'] - outside(b)
    # Taken out twice, the gap would be the nested calls' whole cost (inner_tracing_ns,
    # ~25 ms); taken out once, it is the noise of two runs' measures of that cost (a few
    # ms on a busy machine).  Half that cost tells them apart on any machine.
    assert b['inner_tracing_ns'] > 2 * a['overhead_ns'], (a, b)
    assert abs(left_a - left_b) < b['inner_tracing_ns'] / 2, (a, b)
    assert b['predicted_total_ns'] > 0 and 0 < b['S_G'] < float('inf')
    # nested_inner ran only inside nested_outer: nothing of it stays on the host
    assert b['not_accelerated'] == []
    assert kernel(b, 'nested_outer')['inner_rows'] == n * r


def test_no_negative_or_infinite_speedup(tmp_path):
    # One dgemm_ call of 1500 ns in a trace whose T is 1000 (a damaged trace; or, with
    # --cpu-time, a call that waited on the wall clock): T' = 1000 - 1500 + 10 = -490,
    # and 1 / ((1 - P) + f / T) would be 1000 / -490 = -2.04.  S_G is undefined: null in
    # the JSON, '-' in the table, empty in the CSV, and a note says why.  T' = 0 exactly
    # (1010 ns measured) would have been an infinite S_G: undefined too.
    m = line_model(tmp_path)
    for t_ns, t_prime in ((1500, -490), (1010, 0)):
        t = trace(tmp_path, [(7, 'dgemm_', 0, t_ns, 10)], 1000, name=f't{t_ns}.csv')
        res, _ = predict(t, m)
        assert res['S_G'] is None and close(res['predicted_total_ns'], t_prime)
        assert res['processes'][0]['S_G'] is None
        assert any(f"exceeds T, 1000 ns, by more than their predicted time" in n
                   for n in res['notes']), res['notes']
        out = run(t, m).stdout
        assert 'S_G = 1 / ((1 - P) + P / S_P) = -   (' in out and 'S_G is undefined' in out
        assert '# S_G=\n' in run('--csv', t, m).stdout
    # two processes, one of them so: the run's S_G is still defined, the process's not
    ok = trace(tmp_path, [(7, 'dgemm_', 0, 100, 10)], 100000, name='ok.csv')
    res, _ = predict(ok, t, m)
    assert res['S_G'] > 0 and res['processes'][1]['S_G'] is None


def test_bad_cpu_ns(tmp_path):
    t = write(tmp_path, 't.csv', f'{HEADER}\n# total_ns=5\n# cpu_ns=-3\n')
    assert bad(t, line_model(tmp_path)).startswith(f"dyl-speedup: {t}:3: cpu_ns ")


def test_table_and_csv_show_the_same_numbers(tmp_path):
    t = trace(tmp_path, [(7, 'dgemm_', 0, 100, 10), (7, 'dgemm_', 200, 300, 30),
                         (7, 'daxpy_', 600, 50, None)], 1000)
    m = line_model(tmp_path)
    table = run(t, m).stdout
    assert 'S_G = 1 / ((1 - P) + P / S_P) = 1.562' in table
    assert '640.0 ns' in table          # predicted T'
    assert 'not accelerated' in table and 'daxpy_' in table
    csv = run(m, '--csv', t).stdout.splitlines()   # options and files in any order
    assert csv[0].startswith('func,model,calls,t_ns,P,predicted_ns,S_P,')
    row = dict(zip(csv[0].split(','), csv[1].split(',')))
    assert row['func'] == 'dgemm_' and row['calls'] == '2' and row['t_ns'] == '400'
    assert close(float(row['S_P']), 10)
    meta = dict(l[2:].split('=') for l in csv if l.startswith('# '))
    assert close(float(meta['S_G']), 1.5625) and meta['total_ns'] == '1000'


def test_empty_trace(tmp_path):
    # No calls: nothing is replaced. P = 0, S_G = 1, the predicted total is T itself;
    # S_P is 0/0: null.  Not an error (there is no traced function a model could miss).
    t = trace(tmp_path, [], 500)
    res, _ = predict(t, line_model(tmp_path))
    assert res['P'] == 0 and res['S_G'] == 1 and res['predicted_total_ns'] == 500
    assert res['S_P'] is None
    assert res['kernels'] == [] and res['calls'] == 0
    assert any('no calls' in n for n in res['notes'])


def test_one_sample_model_is_a_constant(tmp_path):
    # Model: one sample (100, 50): f = 50 at every work size.  Calls t = 200 each at
    # w = 100 (the sample), 10 and 1000 (outside it: out of range, still 50).
    # sum t = 600, sum f = 150; T = 10000: P = 0.06, S_P = 4,
    # S_G = 1/(0.94 + 0.06/4) = 1/0.955.
    t = trace(tmp_path, [(1, 'dgemm_', 0, 200, 100), (1, 'dgemm_', 300, 200, 10),
                         (1, 'dgemm_', 600, 200, 1000)], 10000)
    m = model(tmp_path, [('dgemm_', 100, 50)])
    res, _ = predict(t, m)
    assert close(res['P'], 0.06) and close(res['S_P'], 4) and close(res['S_G'], 1 / 0.955)
    k = kernel(res, 'dgemm_')
    assert k['out_of_range_calls'] == 2 and k['out_of_range_t_ns'] == 400
    assert close(k['out_of_range_predicted_ns'], 100)
    assert any('one sample' in n for n in res['notes'])


def test_wildcards_first_match_wins(tmp_path):
    # Models in this order: dgemm_ f = w ((0,0),(100,100)); d* f = w/2 ((0,0),(100,50)).
    # dgemm_ matches both: the first, exact one wins: t 100 at w 40 -> f 40.
    # dsyrk_ matches d* only: t 60 at w 20 -> f 10.  sgemm_ matches none: not accelerated.
    # sum t = 160, sum f = 50, T = 1000: P = 0.16, S_P = 3.2, S_G = 1/(0.84 + 0.05) = 1/0.89.
    t = trace(tmp_path, [(1, 'dgemm_', 0, 100, 40), (1, 'dsyrk_', 200, 60, 20),
                         (1, 'sgemm_', 300, 50, 10)], 1000)
    m = model(tmp_path, [('dgemm_', 0, 0), ('dgemm_', 100, 100), ('d*', 0, 0), ('d*', 100, 50)])
    res, err = predict(t, m)
    assert close(res['P'], 0.16) and close(res['S_P'], 3.2) and close(res['S_G'], 1 / 0.89)
    assert kernel(res, 'dgemm_')['model'] == 'dgemm_'
    assert close(kernel(res, 'dgemm_')['predicted_ns'], 40)
    assert kernel(res, 'dsyrk_')['model'] == 'd*'
    assert close(kernel(res, 'dsyrk_')['predicted_ns'], 10)
    assert [(n['func'], n['calls'], n['t_ns']) for n in res['not_accelerated']] == [('sgemm_', 1, 50)]
    assert err == ''


def test_a_later_model_for_the_same_function_is_unused(tmp_path):
    # The same func in a second file loses to the first file's model, with a warning.
    t = trace(tmp_path, [(1, 'dgemm_', 0, 100, 10)], 1000)
    a = line_model(tmp_path, name='a.csv')
    b = model(tmp_path, [('dgemm_', 0, 0), ('dgemm_', 10, 1)], name='b.csv')
    res, err = predict(t, a, b)
    assert close(kernel(res, 'dgemm_')['predicted_ns'], 10)    # a's f(10) = 10
    assert 'b.csv:2: warning:' in err and 'not used' in err
    assert res['unused_models'] == [{'func': 'dgemm_', 'file': b, 'line': 2}]


def test_out_of_range_extrapolation(tmp_path):
    # dgemm_ model (10,20) (20,30): f = w + 10.  Calls: w 5 -> 15 (below the samples),
    # w 40 -> 50 (above), w 15 -> 25 (inside); t = 100, 200, 300.
    # dscal_ model (10,5) (20,20): slope 1.5, f(0) = 5 - 15 = -10 -> 0 (never below zero);
    # f(12) = 5 + 3 = 8; t = 40 (w 0), 60 (w 12).
    # dgemm_: t 600, f 90, out of range 2 calls, t 300 (share 0.5), f 65.
    # dscal_: t 100, f 8, out of range 1 call, t 40 (share 0.4), f 0.
    # T = 10000: sum t = 700, sum f = 98: P = 0.07, S_P = 700/98, S_G = 1/(0.93 + 0.0098).
    t = trace(tmp_path, [(1, 'dgemm_', 0, 100, 5), (1, 'dgemm_', 200, 200, 40),
                         (1, 'dgemm_', 500, 300, 15), (1, 'dscal_', 900, 40, 0),
                         (1, 'dscal_', 1000, 60, 12)], 10000)
    m = model(tmp_path, [('dgemm_', 10, 20), ('dgemm_', 20, 30), ('dscal_', 10, 5), ('dscal_', 20, 20)])
    res, _ = predict(t, m)
    g, s = kernel(res, 'dgemm_'), kernel(res, 'dscal_')
    assert close(g['predicted_ns'], 90) and g['out_of_range_calls'] == 2
    assert g['out_of_range_t_ns'] == 300 and close(g['out_of_range_share'], 0.5)
    assert close(g['out_of_range_predicted_ns'], 65)
    assert close(s['predicted_ns'], 8) and s['out_of_range_calls'] == 1
    assert close(s['out_of_range_share'], 0.4) and s['out_of_range_predicted_ns'] == 0
    assert res['out_of_range_calls'] == 3
    assert close(res['P'], 0.07) and close(res['S_P'], 700 / 98) and close(res['S_G'], 1 / 0.9398)
    assert any('dgemm_: 2 replaced calls' in n and 'extrapolated' in n for n in res['notes'])
    table = run(t, m).stdout
    assert '2 calls, 50.0% of time' in table


def test_only_faster(tmp_path):
    # f(w) = w.  Calls (t, w): (50, 10) f 10 faster; (20, 80) f 80 slower; (30, 30) f 30
    # not faster (equal).  T = 1000.
    # All replaced: sum t 100, sum f 120: P 0.1, S_P 100/120, S_G = 1/(0.9 + 0.12) = 1/1.02.
    # --only-faster: only the first: t 50, f 10: P 0.05, S_P 5, S_G = 1/(0.95 + 0.01) = 1/0.96.
    t = trace(tmp_path, [(1, 'dgemm_', 0, 50, 10), (1, 'dgemm_', 100, 20, 80),
                         (1, 'dgemm_', 200, 30, 30)], 1000)
    m = line_model(tmp_path)
    res, _ = predict(t, m)
    assert close(res['P'], 0.1) and close(res['S_P'], 100 / 120) and close(res['S_G'], 1 / 1.02)
    assert res['only_faster'] is False
    res, _ = predict(t, m, '--only-faster')
    assert res['only_faster'] is True and res['calls'] == 1
    assert close(res['P'], 0.05) and close(res['S_P'], 5) and close(res['S_G'], 1 / 0.96)
    k = kernel(res, 'dgemm_')
    assert k['slower_calls'] == 2 and k['slower_t_ns'] == 50 and k['calls'] == 1


def test_nested_call_is_not_counted_twice(tmp_path):
    # Thread 1: dgetrf_ [0, 1000) w 100, depth 0, calling dgemm_ [100, 400) w 50 at depth 1
    # (its row first, as the runtime writes rows when calls end); later dgemm_ [2000, 2300)
    # w 50 at depth 0.  Thread 2: dgemm_ [100, 400) w 50: the same times, another thread,
    # so not nested.  Models: dgetrf_ (0,0) (1000,500): f(100) = 50; dgemm_ (0,0) (100,10):
    # f(50) = 5.
    # Replaced: dgetrf_ t 1000 f 50; dgemm_ t 300 + 300 f 5 + 5; the nested dgemm_ is inside
    # dgetrf_'s 1000 ns and is not added: sum t = 1600 (not 1900), sum f = 60.
    # T = 10000: P = 0.16, S_P = 1600/60, S_G = 1/(0.84 + 0.006) = 1/0.846.
    t = trace(tmp_path, [(1, 'dgemm_', 100, 300, 50, 1), (1, 'dgetrf_', 0, 1000, 100, 0, '"m=10, n=10"'),
                         (2, 'dgemm_', 100, 300, 50, 0), (1, 'dgemm_', 2000, 300, 50, 0)],
              10000, header=HEADER_DEPTH)
    m = model(tmp_path, [('dgetrf_', 0, 0), ('dgetrf_', 1000, 500), ('dgemm_', 0, 0), ('dgemm_', 100, 10)])
    res, _ = predict(t, m)
    assert res['t_ns'] == 1600 and close(res['predicted_ns'], 60)
    assert close(res['P'], 0.16) and close(res['S_P'], 1600 / 60) and close(res['S_G'], 1 / 0.846)
    g = kernel(res, 'dgemm_')
    assert g['calls'] == 2 and g['nested_calls'] == 1 and g['t_ns'] == 600
    assert g['all_calls'] == 3
    assert kernel(res, 'dgetrf_')['calls'] == 1
    assert res['nested_calls'] == 1


def test_nested_call_inside_a_kept_call_is_replaced(tmp_path):
    # The outer dgetrf_ is not replaced, so its inner dgemm_ is, on its own:
    # (a) dgetrf_ has no work size: kept (t 1000), inner dgemm_ [100, 400) w 50 -> f 5.
    # (b) --only-faster and dgetrf_'s model says f(100) = 2000 > 1000: kept, same result.
    # T = 10000: sum t = 300, sum f = 5: P = 0.03, S_G = 1/(0.97 + 0.0005).
    m = model(tmp_path, [('dgetrf_', 0, 0), ('dgetrf_', 100, 2000), ('dgemm_', 0, 0), ('dgemm_', 100, 10)])
    a = trace(tmp_path, [(1, 'dgemm_', 100, 300, 50, 1), (1, 'dgetrf_', 0, 1000, None, 0)], 10000,
              name='a.csv', header=HEADER_DEPTH)
    res, _ = predict(a, m)
    assert close(res['P'], 0.03) and close(res['S_G'], 1 / 0.9705)
    assert kernel(res, 'dgetrf_')['no_work_calls'] == 1 and kernel(res, 'dgetrf_')['no_work_t_ns'] == 1000
    assert kernel(res, 'dgemm_')['calls'] == 1 and kernel(res, 'dgemm_')['nested_calls'] == 0
    assert any('without a work size' in n for n in res['notes'])
    b = trace(tmp_path, [(1, 'dgemm_', 100, 300, 50, 1), (1, 'dgetrf_', 0, 1000, 100, 0)], 10000,
              name='b.csv', header=HEADER_DEPTH)
    res, _ = predict(b, m, '--only-faster')
    assert close(res['P'], 0.03) and close(res['S_G'], 1 / 0.9705)
    assert kernel(res, 'dgetrf_')['slower_calls'] == 1


def test_rows_without_work_are_kept(tmp_path):
    # dgemm_ t 100 w 10 -> f 10; dgemm_ t 500 without work: not replaced, its time kept.
    # T = 1000: sum t = 100, sum f = 10: P = 0.1, S_P = 10, S_G = 1/(0.9 + 0.01) = 1/0.91.
    t = trace(tmp_path, [(1, 'dgemm_', 0, 100, 10), (1, 'dgemm_', 200, 500, None)], 1000)
    res, _ = predict(t, line_model(tmp_path))
    assert close(res['P'], 0.1) and close(res['S_G'], 1 / 0.91)
    k = kernel(res, 'dgemm_')
    assert k['no_work_calls'] == 1 and k['no_work_t_ns'] == 500 and k['calls'] == 1
    assert res['no_work_calls'] == 1


def test_several_traces(tmp_path):
    # Process a: T 1000, dgemm_ t 100 w 10 -> f 10: P 0.1, S_G = 1/(0.9 + 0.01) = 1/0.91.
    # Process b: T 600, dgemm_ t 300 w 30 -> f 30: P 0.5, S_G = 1/(0.5 + 0.05) = 1/0.55.
    # The run: T = 1600, sum t = 400, sum f = 40: P = 0.25, S_P = 10,
    # S_G = 1/(0.75 + 0.025) = 1/0.775, predicted total = 1600 - 400 + 40 = 1240.
    a = trace(tmp_path, [(1, 'dgemm_', 0, 100, 10)], 1000, name='a.csv')
    b = trace(tmp_path, [(2, 'dgemm_', 0, 300, 30)], 600, name='b.csv')
    res, _ = predict(line_model(tmp_path), a, b)
    assert res['total_ns'] == 1600
    assert close(res['P'], 0.25) and close(res['S_P'], 10) and close(res['S_G'], 1 / 0.775)
    assert close(res['predicted_total_ns'], 1240)
    pa, pb = res['processes']
    assert pa['trace'] == a and close(pa['S_G'], 1 / 0.91)
    assert pb['trace'] == b and close(pb['S_G'], 1 / 0.55) and close(pb['P'], 0.5)
    assert kernel(res, 'dgemm_')['calls'] == 2
    assert any('sum of the processes' in n for n in res['notes'])
    assert 'sum of the processes' in run(a, b, line_model(tmp_path)).stdout


def test_metadata_last_total_wins_and_quoted_fields(tmp_path):
    # '# total_ns' twice: the last (2000) wins.  Quoted args with commas and quotes in them.
    # dgemm_ t 100 w 10 -> f 10: P = 0.05, S_G = 1/(0.95 + 0.005).
    t = write(tmp_path, 't.csv', '# total_ns=99\n' + HEADER_DEPTH + '\n'
              '0,1,dgemm_,0,100,,,10,0,"a=1, b=""x,y"""\n'
              '1,1,"dgemm_",200,100,,,,0,\n'
              '# total_ns=2000\n')
    res, _ = predict(t, line_model(tmp_path))
    assert res['total_ns'] == 2000 and close(res['S_G'], 1 / 0.955)
    assert kernel(res, 'dgemm_')['no_work_calls'] == 1


def test_unsorted_model_is_sorted(tmp_path):
    # The samples of the worked example, shuffled: the same answer.
    t = trace(tmp_path, [(7, 'dgemm_', 0, 100, 10), (7, 'dgemm_', 200, 300, 30)], 1000)
    m = model(tmp_path, [('dgemm_', 40, 40), ('dgemm_', 0, 0), ('dgemm_', 20, 20)])
    res, err = predict(t, m)
    assert close(res['S_G'], 1.5625) and err == ''


def test_duplicate_samples_are_averaged(tmp_path):
    # (20, 10) and (20, 30) average to (20, 20): the worked example again, with a warning
    # naming the second sample's line (line 4: header, (0,0), (20,10), (20,30)).
    t = trace(tmp_path, [(7, 'dgemm_', 0, 100, 10), (7, 'dgemm_', 200, 300, 30)], 1000)
    m = model(tmp_path, [('dgemm_', 0, 0), ('dgemm_', 20, 10), ('dgemm_', 20, 30), ('dgemm_', 40, 40)])
    res, err = predict(t, m)
    assert close(res['S_G'], 1.5625)
    assert f'{m}:4: warning:' in err and 'mean 20' in err


def test_model_comments_are_allowed(tmp_path):
    # '#' lines and blank lines in a model are comments (an extension of the contract).
    t = trace(tmp_path, [(7, 'dgemm_', 0, 100, 10), (7, 'dgemm_', 200, 300, 30)], 1000)
    m = write(tmp_path, 'm.csv', '# illustrative\nfunc,work,t_ns\n\ndgemm_,0,0\n# mid\ndgemm_,40,40\n')
    res, _ = predict(t, m)
    assert close(res['S_G'], 1.5625)


def test_example_model(tmp_path):
    # models/example-pcie-gpu-dgemm.csv at n = 64 (a sample): work = 2*64^3 = 524288 flops,
    # f = 15000 + 32*64^2/12 + 2*64^3/1000 = 15000 + 10922.67 + 524.288 = 26446.955 ns.
    t = trace(tmp_path, [(1, 'dgemm_', 0, 100000, 524288)], 1000000)
    res, _ = predict(t, os.path.join(ROOT, 'models', 'example-pcie-gpu-dgemm.csv'))
    assert close(res['predicted_ns'], 26446.955)


def test_function_without_model_is_not_accelerated(tmp_path):
    t = trace(tmp_path, [(1, 'dgemm_', 0, 100, 10), (1, 'daxpy_', 200, 70, 5),
                         (1, 'daxpy_', 300, 30, 5)], 1000)
    res, _ = predict(t, line_model(tmp_path))
    assert res['not_accelerated'] == [{'func': 'daxpy_', 'calls': 2, 't_ns': 100, 'P': 0.1,
                                       'all_calls': 2, 'all_t_ns': 100}]
    assert [k['func'] for k in res['kernels']] == ['dgemm_']


def test_calls_nested_in_replaced_calls_do_not_stay_on_the_host(tmp_path):
    # dgetrf_ (replaced) holds daxpy_ (no model, 300 ns) and dgemm_ (200 ns, nested:
    # replaced with it) ; a daxpy_ of 50 ns at depth 0 and one of 40 ns inside ddot_ (no
    # model, depth 0) stay on the host: 2 calls, 90 ns (9 % of T = 1000).  Before, the
    # list said 3 calls, 390 ns: time the accelerator runs counted as the host's.
    rows = [(1, 'daxpy_', 10, 300, 5, 1), (1, 'dgemm_', 400, 200, 5, 1),
            (1, 'dgetrf_', 0, 700, 10, 0), (1, 'daxpy_', 800, 50, 5, 0),
            (1, 'daxpy_', 900, 40, 5, 1), (1, 'ddot_', 900, 60, 5, 0)]
    t = trace(tmp_path, rows, 1000, header=HEADER_DEPTH)
    m = model(tmp_path, [('dgetrf_', 0, 0), ('dgetrf_', 10, 10), ('dgemm_', 0, 0), ('dgemm_', 10, 10)])
    res, _ = predict(t, m)
    assert res['not_accelerated'] == [
        {'func': 'daxpy_', 'calls': 2, 't_ns': 90, 'P': 0.09, 'all_calls': 3, 'all_t_ns': 390},
        {'func': 'ddot_', 'calls': 1, 't_ns': 60, 'P': 0.06, 'all_calls': 1, 'all_t_ns': 60}]
    assert kernel(res, 'dgemm_')['hidden_calls'] == 1 and kernel(res, 'dgemm_')['nested_calls'] == 1
    out = run(t, m).stdout
    assert re.search(r'daxpy_ +2 calls +90\.00 ns +9\.00% of T', out), out
    # a function all of whose calls ran inside replaced ones is not listed
    only = trace(tmp_path, rows[:3], 1000, name='only.csv', header=HEADER_DEPTH)
    assert predict(only, m)[0]['not_accelerated'] == []


def test_model_matching_nothing_is_a_warning(tmp_path):
    t = trace(tmp_path, [(1, 'dgemm_', 0, 100, 10)], 1000)
    m = model(tmp_path, [('dgemm_', 0, 0), ('dgemm_', 10, 10), ('zgemm_', 1, 1)])
    res, err = predict(t, m)
    assert f"{m}:4: warning: model 'zgemm_' matches no traced function" in err
    assert res['unused_models'][0]['func'] == 'zgemm_'


def test_no_model_matching_is_an_error(tmp_path):
    t = trace(tmp_path, [(1, 'dgemm', 0, 100, 10)], 1000)
    r = run(t, line_model(tmp_path), '--json', check=False)
    assert r.returncode == 1 and r.stdout == ''
    assert 'no model matches any traced function (traced: dgemm)' in r.stderr


# --- bad input: one line naming FILE:LINE, exit 2 ---

def bad(*args):
    r = run('--json', *args, check=False)
    assert r.returncode == 2, r
    assert r.stdout == ''
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


def test_missing_file(tmp_path):
    msg = bad(str(tmp_path / 'nope.csv'), line_model(tmp_path))
    assert msg.startswith(f'dyl-speedup: {tmp_path}/nope.csv: cannot open')


@pytest.mark.parametrize('row, what', [
    ('0,1,dgemm_,0,100,,,10,0', 'malformed row: 9 fields, the header has 8'),
    ('0,1,dgemm_,0,100,,', 'malformed row: 7 fields, the header has 8'),
    ('0,1,dgemm_,0,1x0,,,10', "t_ns is not a number ('1x0')"),
    ('0,1,dgemm_,0,-100,,,10', 't_ns is negative (-100)'),
    ('0,1,dgemm_,-5,100,,,10', 't_start_ns is negative (-5)'),
    ('0,1,dgemm_,0,100,,,-10', 'work is negative (-10)'),
    ('0,1,dgemm_,0,,,,10', 't_ns is empty'),
    ('0,one,dgemm_,0,100,,,10', "tid is not a number ('one')"),
    ('0,1,,0,100,,,10', 'func is empty'),
    ('0,1,dgemm_,0,99999999999999999999999,,,10', 't_ns is too large (99999999999999999999999)'),
])
def test_bad_trace_row(tmp_path, row, what):
    # the bad row is line 4: comment, header, a good row, the bad row
    t = write(tmp_path, 't.csv', f'# x\n{HEADER}\n0,1,dgemm_,0,100,,,10\n{row}\n# total_ns=1000\n')
    assert bad(t, line_model(tmp_path)) == f'dyl-speedup: {t}:4: {what}'


def test_bad_model_row(tmp_path):
    t = trace(tmp_path, [(1, 'dgemm_', 0, 100, 10)], 1000)
    m = write(tmp_path, 'm.csv', 'func,work,t_ns\ndgemm_,0,0\ndgemm_,ten,10\n')
    assert bad(t, m) == f"dyl-speedup: {m}:3: work is not a number ('ten')"
    m = write(tmp_path, 'm.csv', 'func,work,t_ns\ndgemm_,0,0\ndgemm_,10,-1\n')
    assert bad(t, m) == f'dyl-speedup: {m}:3: t_ns is negative (-1)'
    m = write(tmp_path, 'm.csv', 'func,work,t_ns\ndgemm_,0\n')
    assert bad(t, m) == f'dyl-speedup: {m}:2: malformed row: 2 fields, the header has 3'


def test_a_column_named_twice_is_an_error(tmp_path):
    # which t_ns a reader took would be a guess: one line naming file, line and column
    m = line_model(tmp_path)
    t = write(tmp_path, 't.csv', f'# dyliberator trace 1\n{HEADER_DEPTH},t_ns\n0,7,dgemm_,0,100,,,10,0,,5\n'
                                 '# total_ns=1000\n')
    assert bad(t, m) == f"dyl-speedup: {t}:2: column 11 repeats column 5's name, 't_ns'"
    dup = write(tmp_path, 'm.csv', '# a model\nfunc,work,t_ns,bytes,bytes\ndgemm_,1,1,1,1\n')
    ok = trace(tmp_path, WORKED, 1000, name='ok.csv')
    assert bad(ok, dup) == f"dyl-speedup: {dup}:2: column 5 repeats column 4's name, 'bytes'"


def test_control_bytes_in_names_are_escaped_for_people(tmp_path):
    # A function named with a terminal's escape sequence (clear the screen, ring the
    # bell), one with DEL and a byte that is not UTF-8, and a C1 CSI (U+009B): the table,
    # the notes and the warnings show them as \xHH; the JSON has the names themselves,
    # escaped its own way (valid JSON: the non-UTF-8 byte is U+FFFD); the CSV keeps them.
    evil, odd, csi = 'ev\x1b[2Jil\x07', 'b\x7f\udcff', 'c\u009b2J'
    text = (f'{HEADER_DEPTH}\n0,1,"{evil}",0,100,,,5,0,\n1,1,{odd},200,100,,,5,0,\n'
            f'2,1,{csi},300,100,,,5,0,\n# total_ns=1000\n')
    t = tmp_path / 'esc.csv'
    t.write_bytes(text.encode('utf-8', 'surrogateescape'))
    m = tmp_path / 'm.csv'
    m.write_bytes(f'func,work,t_ns\n"{evil}",0,1\n"{evil}",10,1\nzz\x1b,1,1\n'.encode())
    r = subprocess.run([SPEEDUP, str(t), str(m)], capture_output=True)
    assert r.returncode == 0
    out = r.stdout + r.stderr
    for raw in (b'\x1b', b'\x07', b'\x7f', b'\xff', b'\xc2\x9b'):
        assert raw not in out, raw
    assert b'ev\\x1b[2Jil\\x07' in r.stdout and b'b\\x7f\\xff' in r.stdout
    assert b'c\\xc2\\x9b2J' in r.stdout
    assert b"model 'zz\\x1b' matches no traced function" in r.stderr
    res, _ = predict(str(t), str(m))
    assert [k['func'] for k in res['kernels']] == [evil]
    assert sorted(x['func'] for x in res['not_accelerated']) == sorted(['b\x7f\ufffd', csi])
    csv_out = subprocess.run([SPEEDUP, '--csv', str(t), str(m)], capture_output=True).stdout
    assert evil.encode() in csv_out


def test_trace_without_total_ns(tmp_path):
    t = trace(tmp_path, [(1, 'dgemm_', 0, 100, 10)], None)
    msg = bad(t, line_model(tmp_path))
    assert msg.startswith(f'dyl-speedup: {t}: no \'# total_ns=N\' line')


def test_bad_total_ns(tmp_path):
    t = write(tmp_path, 't.csv', f'{HEADER}\n# total_ns=abc\n')
    assert bad(t, line_model(tmp_path)) == f"dyl-speedup: {t}:2: total_ns is not a number ('abc')"


def test_unknown_file(tmp_path):
    x = write(tmp_path, 'x.csv', '# c\na,b,c\n')
    msg = bad(x, line_model(tmp_path))
    assert msg.startswith(f'dyl-speedup: {x}:2: neither a trace')
    e = write(tmp_path, 'e.csv', '')
    assert bad(e, line_model(tmp_path)).startswith(f'dyl-speedup: {e}: empty')


def test_usage(tmp_path):
    r = run('--help')
    assert '= 1 / ((1 - P) + P / S_P)' in r.stdout and 'Example' in r.stdout
    r = run('--bogus', check=False)
    assert r.returncode == 2 and 'unknown option' in r.stderr
    r = run(line_model(tmp_path), check=False)
    assert r.returncode == 2 and 'no trace' in r.stderr


def test_data_files_in_tests_speedup():
    # The hand-made files under tests/tools/data: a LAPACK-like trace of two threads with a
    # nested call and the worked example's model; the answer is in the trace's comments.
    res, _ = predict(os.path.join(DATA, 'lu-trace.csv'), os.path.join(DATA, 'lu-model.csv'))
    # T = 20000.  tid 11: dgetrf_ [1000, 6000) w 100 -> f(100) = 100 (dgetrf_ f = w),
    # containing dgemm_ [1500, 3500) (nested); dgemm_ [7000, 8000) w 40 -> f = 40/2 = 20.
    # tid 12: dgemm_ [1500, 3500) w 20 -> f 10; daxpy_ 500 ns, no model.
    # sum t = 5000 + 1000 + 2000 = 8000, sum f = 130: P = 0.4, S_P = 8000/130,
    # S_G = 1/(0.6 + 130/20000) = 1/0.6065.
    assert close(res['P'], 0.4) and close(res['S_P'], 8000 / 130) and close(res['S_G'], 1 / 0.6065)
    assert res['nested_calls'] == 1
    assert res['not_accelerated'][0]['func'] == 'daxpy_'


# --- a cross-check against a few lines of Python on random traces ---

def reference(rows, total_ns, models, only_faster, faults_replaced=False):
    """The rules of dyl-speedup restated: ROWS (tid, func, start, t, work, depth[, faults]);
    MODELS [(pattern, [(w, t)...])] in match order.  Returns (sum t, sum f).  A replaced
    call with faults > 0 stands for f + max(0, t - the median t of the fault-free calls
    of its function and work), unless FAULTS_REPLACED."""
    import fnmatch
    import statistics

    def f(samples, w):
        s = sorted(samples)
        if len(s) == 1:
            return s[0][1]
        if w <= s[0][0]:
            (w0, t0), (w1, t1) = s[0], s[1]
        elif w >= s[-1][0]:
            (w0, t0), (w1, t1) = s[-2], s[-1]
        else:
            i = max(j for j in range(len(s)) if s[j][0] <= w)
            (w0, t0), (w1, t1) = s[i], s[i + 1]
        return max(0.0, t0 + (t1 - t0) * (w - w0) / (w1 - w0))

    def model_of(func):
        return next((s for p, s in models if fnmatch.fnmatchcase(func, p)), None)

    def faults(r):
        return r[6] if len(r) > 6 else None

    clean = {}
    for r in rows:
        if model_of(r[1]) and r[4] is not None and faults(r) == 0:
            clean.setdefault((r[1], r[4]), []).append(r[3])
    st = sf = 0
    for tid in {r[0] for r in rows}:
        calls = sorted((r for r in rows if r[0] == tid and model_of(r[1])),
                       key=lambda r: (r[2], -r[3], r[5]))
        open_end = -1
        for r in calls:
            _, func, start, t, work = r[:5]
            if start < open_end or work is None:
                continue
            ft = f(model_of(func), work)
            if faults(r) and not faults_replaced and (func, work) in clean:
                ft += max(0, t - statistics.median(clean[(func, work)]))
            if only_faster and not ft < t:
                continue
            st, sf, open_end = st + t, sf + ft, start + t
    return st, sf


@pytest.mark.parametrize('seed', range(12))
def test_random_traces_match_the_reference(tmp_path, seed):
    import random
    rnd = random.Random(seed)
    funcs = ['dgemm_', 'dgetrf_', 'daxpy_', 'zgemm_', 'dtrsm_']
    models = [('dgetrf_', [(0, 10), (500, 400)]),
              ('d*mm_', [(10, 5), (100, 60), (1000, 200)]),
              ('dtrsm_', [(100, 30)])]
    rows, clock = [], {1: 0, 2: 0, 3: 0}
    for _ in range(rnd.randint(0, 60)):
        tid = rnd.choice([1, 2, 3])
        start, t = clock[tid] + rnd.randint(0, 50), rnd.randint(0, 400)
        work = rnd.choice([None, rnd.randint(0, 2000)])
        rows.append((tid, rnd.choice(funcs), start, t, work, 0))
        for _ in range(rnd.choice([0, 0, 1, 2])):     # calls nested inside it
            s = start + rnd.randint(0, max(0, t - 1))
            rows.append((tid, rnd.choice(funcs), s, rnd.randint(0, start + t - s), rnd.randint(0, 900), 1))
        clock[tid] = start + t
    rnd.shuffle(rows)                                   # any row order
    total = sum(clock.values()) + 100
    lines = [HEADER_DEPTH]
    for seq, (tid, func, start, t, work, depth) in enumerate(rows):
        name = f'"{func}"' if rnd.random() < 0.2 else func
        args = rnd.choice(['', 'n=4', '"a=1, b=""q"""', '"x,y"'])
        lines.append(f'{seq},{tid},{name},{start},{t},,,{"" if work is None else work},{depth},{args}')
    lines.append(f'# total_ns={total}')
    tr = write(tmp_path, 't.csv', '\n'.join(lines) + '\n')
    m = model(tmp_path, [(p, w, t) for p, s in models for w, t in s])
    for only_faster in (False, True):
        st, sf = reference(rows, total, models, only_faster)
        r = run('--json', tr, m, *(['--only-faster'] if only_faster else []), check=False)
        if not any(r[1] in ('dgemm_', 'dgetrf_', 'zgemm_', 'dtrsm_') for r in rows):
            if rows:
                assert r.returncode == 1       # only daxpy_: no model matches
            continue
        assert r.returncode == 0, r.stderr
        res = json.loads(r.stdout)
        assert res['t_ns'] == st and close(res['predicted_ns'], sf)
        assert close(res['S_G'], 1 / ((1 - st / total) + sf / total))


# --- page faults: the program's cost, kept beside f(w) ---

HEADER_FAULTS = HEADER + ',depth,args,faults'


def fault_trace(tmp_path, rows, total_ns, name='faults.csv', fault_ns=None):
    """ROWS: (func, t_ns, work, faults[, in_bytes]) on thread 7, one after another;
    faults None = an empty field (not measured), else written as given.  FAULT_NS: the
    runtime's '# fault_ns=' line (what one fault costs)."""
    lines = ['# dyliberator trace 1'] + ([f'# fault_ns={fault_ns}'] if fault_ns is not None else [])
    lines.append(HEADER_FAULTS)
    start = 0
    for seq, r in enumerate(rows):
        func, t, work, faults = r[:4]
        b = r[4] if len(r) > 4 else ''
        lines.append(f'{seq},7,{func},{start},{t},{b},,{work},0,,{"" if faults is None else faults}')
        start += t + 10
    lines.append(f'# total_ns={total_ns}')
    return write(tmp_path, name, '\n'.join(lines) + '\n')


def flat_model(tmp_path, t_ns, func='aes', name='flat.csv'):
    # f(w) = t_ns at every work size from 0 to 1000
    return model(tmp_path, [(func, 0, t_ns), (func, 1000, t_ns)], name=name)


def test_faulted_calls_keep_the_time_their_faults_took(tmp_path):
    # aes at work 16: two fault-free calls of 100 ns, two of 150 ns that took faults
    # (faults=1); the model says f = 20.  The fault-free median is 100, so each faulted
    # call stands for 20 + (150 - 100) = 70 and each fault-free one for 20:
    #   predicted = 20 + 70 + 20 + 70 = 180; sum t = 500; kept = 2 * 50 = 100
    #   T = 10000: P = 0.05, S_P = 500/180, T' = 10000 - 500 + 180 = 9680
    # --faults-replaced: 20 for every call: predicted 80, T' = 9580.
    t = fault_trace(tmp_path, [('aes', 100, 16, 0), ('aes', 150, 16, 1),
                               ('aes', 100, 16, 0), ('aes', 150, 16, 1)], 10000)
    m = flat_model(tmp_path, 20)
    res, err = predict(t, m)
    assert err == '' and res['faults_replaced'] is False
    assert res['t_ns'] == 500 and close(res['predicted_ns'], 180)
    assert close(res['S_P'], 500 / 180) and close(res['predicted_total_ns'], 9680)
    assert close(res['S_G'], 10000 / 9680)
    k = kernel(res, 'aes')
    assert (k['calls'], k['fault_calls'], k['fault_unmatched']) == (4, 2, 0)
    assert close(k['fault_kept_ns'], 100) and close(k['predicted_ns'], 180)
    assert (res['fault_calls'], res['fault_unmatched']) == (2, 0) and close(res['fault_kept_ns'], 100)
    assert res['traces_with_faults'] == 1 and res['processes'][0]['traces_with_faults'] == 1
    assert any('aes: 2 replaced calls took page faults: 100 ns' in n for n in res['notes'])
    whole, _ = predict(t, m, '--faults-replaced')
    assert whole['faults_replaced'] is True
    assert close(whole['predicted_ns'], 80) and close(whole['predicted_total_ns'], 9580)
    assert whole['fault_calls'] == 2 and whole['fault_kept_ns'] == 0
    assert any('--faults-replaced' in n for n in whole['notes'])
    # the table: one line under the kernels, the calls and the time kept
    table = run(t, m).stdout
    assert re.search(r'\npage faults +2 +100\.0 ns  kept in predicted\n', table), table
    assert 'predicted T\' = T - measured + predicted = 9.680 us' in table
    # CSV: three columns at the end, and the totals
    csv = run('--csv', t, m).stdout.splitlines()
    row = dict(zip(csv[0].split(','), csv[1].split(',')))
    assert (row['fault_calls'], row['fault_kept_ns'], row['fault_unmatched']) == ('2', '100', '0')
    meta = dict(l[2:].split('=') for l in csv if l.startswith('# '))
    assert meta['fault_calls'] == '2' and meta['fault_kept_ns'] == '100'
    assert meta['faults_replaced'] == '0'


def test_the_reference_is_the_median_and_an_excess_is_never_negative(tmp_path):
    # Fault-free at work 16: 90, 130, 100 -> median 100 (the mean, 106.67, would give
    # other numbers).  Faulted: 150 (faults=3) -> 20 + 50 = 70; 95 (faults=1), below the
    # median -> 20 + max(0, -5) = 20.  Fault-free: 20 each.
    #   predicted = 3 * 20 + 70 + 20 = 150; sum t = 90 + 130 + 100 + 150 + 95 = 565; kept 50
    t = fault_trace(tmp_path, [('aes', 90, 16, 0), ('aes', 150, 16, 3), ('aes', 130, 16, 0),
                               ('aes', 95, 16, 1), ('aes', 100, 16, 0)], 10000)
    res, _ = predict(t, flat_model(tmp_path, 20))
    assert res['t_ns'] == 565 and close(res['predicted_ns'], 150)
    assert res['fault_calls'] == 2 and close(res['fault_kept_ns'], 50)
    # an even count of fault-free calls: the mean of the middle two, (90 + 130) / 2 = 110;
    # the faulted 150 -> 20 + 40 = 60; predicted = 20 + 20 + 60 = 100
    t2 = fault_trace(tmp_path, [('aes', 90, 16, 0), ('aes', 130, 16, 0), ('aes', 150, 16, 2)],
                     10000, name='even.csv')
    res, _ = predict(t2, flat_model(tmp_path, 20))
    assert close(res['predicted_ns'], 100) and close(res['fault_kept_ns'], 40)


def test_a_faulted_calls_excess_is_at_most_what_its_faults_cost(tmp_path):
    # '# fault_ns=30': one fault costs 30 ns.  Fault-free at work 16: 100.  Faulted:
    # 150 with 1 fault -> excess 50, capped at 1 x 30 = 30 -> 20 + 30 = 50; 400 with 2
    # faults (a slow first call that took a few) -> 300, capped at 60 -> 80; 110 with 3
    # faults -> 10, under its cap of 90 -> 30.  Fault-free: 20.
    #   predicted = 20 + 50 + 80 + 30 = 180; kept = 30 + 60 + 10 = 100
    rows = [('aes', 100, 16, 0), ('aes', 150, 16, 1), ('aes', 400, 16, 2), ('aes', 110, 16, 3)]
    m = flat_model(tmp_path, 20)
    res, _ = predict(fault_trace(tmp_path, rows, 10000, fault_ns=30), m)
    assert close(res['predicted_ns'], 180) and close(res['fault_kept_ns'], 100)
    # without the line, the whole excess: 50 + 300 + 10 = 360 kept, predicted 80 + 360
    res, _ = predict(fault_trace(tmp_path, rows, 10000, name='nocap.csv'), m)
    assert close(res['predicted_ns'], 440) and close(res['fault_kept_ns'], 360)
    # saturated counts (70000 faults) still cap at 65534 x the cost, here above the excess
    res, _ = predict(fault_trace(tmp_path, [('aes', 100, 16, 0), ('aes', 10 ** 7, 16, 70000)],
                                 10 ** 8, name='many.csv', fault_ns=1000), m)
    assert close(res['fault_kept_ns'], 10 ** 7 - 100)


def test_a_faulted_call_without_a_fault_free_reference_keeps_no_excess(tmp_path):
    # aes at work 16: fault-free 100, faulted 150 -> 70.  aes at work 32: only a faulted
    # call (150): no fault-free call of aes at 32 -> f = 20, counted as unmatched; des's
    # fault-free call at 32 is another function's, no reference for aes.  des: 20.
    #   predicted = 20 + 70 + 20 + 20 = 130; kept 50; unmatched 1
    t = fault_trace(tmp_path, [('aes', 100, 16, 0), ('aes', 150, 16, 1), ('aes', 150, 32, 1),
                               ('des', 100, 32, 0)], 10000)
    m = model(tmp_path, [('aes', 0, 20), ('aes', 1000, 20), ('des', 0, 20), ('des', 1000, 20)])
    res, _ = predict(t, m)
    assert close(res['predicted_ns'], 130)
    k = kernel(res, 'aes')
    assert (k['fault_calls'], k['fault_unmatched']) == (2, 1) and close(k['fault_kept_ns'], 50)
    assert kernel(res, 'des')['fault_calls'] == 0
    assert res['fault_unmatched'] == 1
    assert any('aes: 1 faulted call without a fault-free call of the same work' in n
               for n in res['notes'])
    # the reference is the same process's: trace b's faulted aes at 16 has none in b
    # (a's fault-free call at 16 does not count): f = 20 there, unmatched
    b = fault_trace(tmp_path, [('aes', 150, 16, 1)], 10000, name='b.csv')
    res, _ = predict(t, b, m)
    assert close(res['predicted_ns'], 130 + 20) and res['fault_unmatched'] == 2
    assert [p['fault_unmatched'] for p in res['processes']] == [1, 1]


def test_empty_faults_fields_are_as_no_column(tmp_path):
    # Not measured: the call is neither faulted nor a reference.  The first example with
    # every faults field empty predicts what it predicts without the column: 20 a call,
    # 80; an empty-faulted call beside a faulted one is no reference: the faulted 150
    # has none (unmatched), f = 20.
    rows = [('aes', 100, 16, None), ('aes', 150, 16, None), ('aes', 100, 16, None),
            ('aes', 150, 16, None)]
    res, _ = predict(fault_trace(tmp_path, rows, 10000), flat_model(tmp_path, 20))
    plain, _ = predict(trace(tmp_path, [(7, 'aes', i * 200, t, 16) for i, (_, t, _, _) in enumerate(rows)],
                             10000, name='plain.csv'), flat_model(tmp_path, 20))
    assert close(res['predicted_ns'], 80) and close(plain['predicted_ns'], 80)
    assert res['traces_with_faults'] == 1 and plain['traces_with_faults'] == 0
    for key in ('t_ns', 'P', 'S_P', 'S_G', 'predicted_total_ns', 'fault_calls', 'fault_kept_ns'):
        assert res[key] == plain[key], key
    assert 'page faults' not in run(fault_trace(tmp_path, rows, 10000), flat_model(tmp_path, 20)).stdout
    t = fault_trace(tmp_path, [('aes', 100, 16, None), ('aes', 150, 16, 1)], 10000, name='e.csv')
    res, _ = predict(t, flat_model(tmp_path, 20))
    assert close(res['predicted_ns'], 40) and res['fault_unmatched'] == 1


def test_a_table_without_faults_is_unchanged(tmp_path):
    # A faults column where no replaced call faulted: no page-fault line, the same table
    # as without the column (the trace names differ only).
    rows = [('aes', 100, 16, 0), ('aes', 150, 16, 0)]
    a = run(fault_trace(tmp_path, rows, 10000, name='x.csv'), flat_model(tmp_path, 20)).stdout
    b = run(trace(tmp_path, [(7, 'aes', 0, 100, 16), (7, 'aes', 110, 150, 16)], 10000, name='x.csv'),
            flat_model(tmp_path, 20)).stdout
    assert a == b and 'page faults' not in a


@pytest.mark.parametrize('value,why', [('-1', 'faults is negative (-1)'),
                                       ('x', "faults is not a number ('x')"),
                                       ('1.5', "faults is not a number ('1.5')")])
def test_a_malformed_faults_value_is_an_error_naming_its_line(tmp_path, value, why):
    # line 1 '# dyliberator trace 1', 2 the header, 3 the first row, 4 the bad one
    t = fault_trace(tmp_path, [('aes', 100, 16, 0), ('aes', 150, 16, value)], 10000)
    assert bad(t, flat_model(tmp_path, 20)) == f'dyl-speedup: {t}:4: {why}'


def test_only_faster_compares_with_the_excess(tmp_path):
    # f = 120.  Fault-free calls of 100: f is not faster, they stay (slower).  The faulted
    # call of 150: f + excess = 120 + (150 - 100) = 170, not below 150: it stays too
    # (the accelerator would take the same faults).  --faults-replaced: 120 < 150, replaced.
    t = fault_trace(tmp_path, [('aes', 100, 16, 0), ('aes', 100, 16, 0), ('aes', 150, 16, 1)], 10000)
    m = flat_model(tmp_path, 120)
    res, _ = predict(t, m, '--only-faster')
    k = kernel(res, 'aes')
    assert (k['calls'], k['slower_calls'], k['fault_calls']) == (0, 3, 0)
    whole, _ = predict(t, m, '--only-faster', '--faults-replaced')
    k = kernel(whole, 'aes')
    assert (k['calls'], k['t_ns'], k['slower_calls'], k['fault_calls']) == (1, 150, 2, 1)
    assert close(k['predicted_ns'], 120)
    # f = 60: the faulted call's 60 + 50 = 110 < 150 is replaced, and so are the others
    res, _ = predict(t, flat_model(tmp_path, 60, name='f60.csv'), '--only-faster')
    assert res['calls'] == 3 and close(res['predicted_ns'], 60 + 60 + 110)


def test_faults_with_a_model_keyed_on_bytes(tmp_path):
    # A model keyed on (work, bytes), 20 ns everywhere: the reference is a call of the same
    # shape.  At (16, 32): fault-free 100, faulted 150 -> 20 + 50.  At (16, 64): only a
    # faulted call: the same work but another shape, no reference -> 20, unmatched.
    #   predicted = 20 + 70 + 20 = 110
    m = write(tmp_path, 'm2.csv', 'func,work,t_ns,bytes\naes,1,20,1\naes,1000,20,1\n'
              'aes,1,20,1000\naes,1000,20,1000\n')
    t = fault_trace(tmp_path, [('aes', 100, 16, 0, 32), ('aes', 150, 16, 1, 32),
                               ('aes', 150, 16, 1, 64)], 10000)
    res, _ = predict(t, m)
    assert close(res['predicted_ns'], 110, rel=1e-6)
    assert res['fault_calls'] == 2 and res['fault_unmatched'] == 1
    assert close(res['fault_kept_ns'], 50)


@pytest.mark.parametrize('seed', range(8))
def test_random_faulted_traces_match_the_reference(tmp_path, seed):
    # As the random cross-check above, with a faults column: few work sizes, so that
    # faulted calls often have fault-free ones beside them, and nested calls.
    import random
    rnd = random.Random(1000 + seed)
    funcs = ['dgemm_', 'dgetrf_', 'daxpy_']
    models = [('dgetrf_', [(0, 10), (500, 400)]), ('d*mm_', [(10, 5), (100, 60), (1000, 200)])]
    rows, clock = [], {1: 0, 2: 0}
    for _ in range(rnd.randint(20, 80)):
        tid = rnd.choice([1, 2])
        start, t = clock[tid] + rnd.randint(0, 50), rnd.randint(0, 400)
        faults = rnd.choice([None, 0, 0, 0, 1, 3])
        rows.append((tid, rnd.choice(funcs), start, t, rnd.choice([None, 10, 100, 400]), 0, faults))
        for _ in range(rnd.choice([0, 0, 1])):
            s = start + rnd.randint(0, max(0, t - 1))
            rows.append((tid, rnd.choice(funcs), s, rnd.randint(0, start + t - s),
                         rnd.choice([10, 100]), 1, rnd.choice([None, 0, 2])))
        clock[tid] = start + t
    rnd.shuffle(rows)
    total = sum(clock.values()) + 100
    lines = [HEADER_FAULTS]
    for seq, (tid, func, start, t, work, depth, faults) in enumerate(rows):
        lines.append(f'{seq},{tid},{func},{start},{t},,,{"" if work is None else work},{depth},'
                     f'"a,b",{"" if faults is None else faults}')
    lines.append(f'# total_ns={total}')
    tr = write(tmp_path, 't.csv', '\n'.join(lines) + '\n')
    m = model(tmp_path, [(p, w, t) for p, s in models for w, t in s])
    for only_faster in (False, True):
        for replaced in (False, True):
            st, sf = reference(rows, total, models, only_faster, replaced)
            opts = (['--only-faster'] if only_faster else []) + (['--faults-replaced'] if replaced else [])
            res, _ = predict(tr, m, *opts)
            assert res['t_ns'] == st and close(res['predicted_ns'], sf), opts


def test_nothing_predicted_is_the_answer(tmp_path):
    # Every call of the modelled function lacks a work size: nothing can be replaced.  The
    # report says so where S_G would stand, with the fix, and the exit status is 3 (not 0:
    # S_G = 1 would answer a question nobody asked).
    t = trace(tmp_path, [(1, 'dgemm_', 0, 100, None), (1, 'dgemm_', 200, 500, None)], 1000)
    m = line_model(tmp_path)
    r = run(t, m, check=False)
    assert r.returncode == 3, r.stderr
    assert 'No prediction: none of the 2 calls' in r.stdout and 'S_G =' not in r.stdout
    assert '--defs' in r.stdout and 'std.regions' in r.stdout
    r = run('--json', t, m, check=False)
    assert r.returncode == 3
    assert json.loads(r.stdout)['nothing_predicted'] is True
    # One call with a work size is an answer: exit 0, S_G printed.
    t = trace(tmp_path, [(1, 'dgemm_', 0, 100, 10), (1, 'dgemm_', 200, 500, None)], 1000,
              name='one.csv')
    r = run(t, m)
    assert 'S_G =' in r.stdout and 'No prediction' not in r.stdout
    assert json.loads(run('--json', t, m).stdout)['nothing_predicted'] is False
