"""dyl-speedup with link rows (doc/residency.md): the residency simulation over TRACE.flow,
end to end.  Hand-made traces and flow files (flowfile.py) whose transfers are worked out
by hand in the comments, then programs of our own over a small library
(tests/tools/residency/: librl's mv, twice, total) run under a wrapper with std.flow and
std.diff.

The link throughout: h2d t = 1000 + bytes ns, d2h t = 2000 + 2 * bytes ns (two samples
each, a line), so a figure's time is 1000 * transfers + bytes (h2d) and 2000 * transfers
+ 2 * bytes (d2h)."""
import json
import os
import signal
import struct
import subprocess
import sys

import pytest

from dyltest import ROOT, build_c, c_library, make, run_both, wrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flowfile as ff  # noqa: E402

SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')
DYL_FLOW = os.path.join(ROOT, 'bin', 'dyl-flow')
HERE = os.path.dirname(os.path.abspath(__file__))
RL = os.path.join(HERE, 'residency')
LINK = 'func,work,t_ns\n@h2d,0,1000\n@h2d,1000000,1001000\n@d2h,0,2000\n@d2h,1000000,2002000\n'
F_DIFF, F_HOST_READS = 1, 8


def h2d_ns(transfers, nbytes):
    return 1000 * transfers + nbytes


def d2h_ns(transfers, nbytes):
    return 2000 * transfers + 2 * nbytes


def host_read(seq, obj_id, lo, hi, how=0):
    """A HOST_READ record (RESIDENCY.md: seq, obj_id, lo, hi, how)."""
    return ff._rec(7, struct.pack('<QQQQQ', seq, obj_id, lo, hi, how))


@pytest.fixture(scope='module', autouse=True)
def built():
    make('bin/dyl-speedup')
    make('bin/dyl-flow')


def write_trace(path, calls, total, threads=False):
    """CALLS: (func, start, t, work); one thread (tid 100), seq = index."""
    lines = ['# dyliberator trace 1', '# pid=100',
             'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args']
    lines += [f'{i},100,{f},{s},{t},,,{w},0,' for i, (f, s, t, w) in enumerate(calls)]
    if threads:
        lines.append('# threads=recorded')
    lines.append(f'# total_ns={total}')
    path.write_text('\n'.join(lines) + '\n')
    return str(path)


def files(tmp_path, calls, records, flags=F_DIFF, total=100000, models='', threads=False):
    """The trace, its TRACE.flow, the kernel models (MODELS: rows) and the link file."""
    t = write_trace(tmp_path / 't.csv', calls, total, threads)
    (tmp_path / 't.csv.flow').write_bytes(ff.flow_file(records, nseq=len(calls), flags=flags))
    (tmp_path / 'k.csv').write_text('func,work,t_ns\n' + models)
    (tmp_path / 'link.csv').write_text(LINK)
    return t, str(tmp_path / 'k.csv'), str(tmp_path / 'link.csv')


def speedup(*args, check=True):
    r = subprocess.run([SPEEDUP, *map(str, args)], capture_output=True, text=True, timeout=120)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def predict(*args):
    return json.loads(speedup('--json', *args).stdout)


def figure(d):
    return (d['h2d_bytes'], d['h2d_transfers'], d['d2h_bytes'], d['d2h_transfers'])


# gemv: every call 1000 ns, the model says 100 ns (compute alone)
GEMV = 'gemv,0,100\ngemv,1000000,100\n'
AXPY = 'axpy,0,50\naxpy,1000000,50\n'


# --- the iterative loop -------------------------------------------------------------

def loop_records(steps=3):
    """A (800 B) and x (80 B) read by each gemv, y (80 B) written; between the calls the
    program reads y and writes x (std.diff); after the last it reads y."""
    recs = [ff.obj(0, ff.HEAP, 800), ff.obj(1, ff.HEAP, 80), ff.obj(2, ff.HEAP, 80)]
    for s in range(steps):
        if s:
            recs += [host_read(s, 2, 0, 80), ff.host_write(s, 1, 0, 80)]
        recs += [ff.access(s, 0, 0, 800, False), ff.access(s, 1, 0, 80, False),
                 ff.access(s, 2, 0, 80, True)]
    return recs + [host_read(steps, 2, 0, 80)]


LOOP_CALLS = [('gemv', 1000 + 2000 * s, 1000, 100) for s in range(3)]


# exact: A moves once, x every call (4 transfers, 1040 B); y comes back after each call
# because the program reads it (3 transfers, 240 B).  Optimistic: no call on the host reads
# y, so it never comes back.  Pessimistic: each call moves A and x in (2 transfers of 880 B)
# and y out.  T = 10000, t = 3000, f = 300: T' = 7300 + the transfers.
def test_loop_three_figures(tmp_path):
    t, k, link = files(tmp_path, LOOP_CALLS, loop_records() , F_DIFF | F_HOST_READS,
                       total=10000, models=GEMV)
    r = predict(t, k, link)
    assert r['residency_mode'] == 'exact'
    assert figure(r) == (1040, 4, 240, 3)
    assert (r['h2d_ns'], r['d2h_ns']) == (h2d_ns(4, 1040), d2h_ns(3, 240))
    assert r['predicted_total_ns'] == 7300 + 5040 + 6480
    b = r['bounds']
    assert set(b) == {'exact', 'optimistic', 'pessimistic'}
    assert figure(b['exact']) == (1040, 4, 240, 3)
    assert figure(b['optimistic']) == (1040, 4, 0, 0)
    assert figure(b['pessimistic']) == (2640, 6, 240, 3)
    assert b['optimistic']['predicted_total_ns'] == 7300 + 5040
    assert b['pessimistic']['predicted_total_ns'] == 7300 + h2d_ns(6, 2640) + 6480
    assert b['pessimistic']['S_G'] == pytest.approx(10000 / (7300 + 8640 + 6480))
    assert r['S_G'] == pytest.approx(10000 / 18820)
    (kern,) = r['kernels']
    assert (kern['h2d_bytes'], kern['d2h_bytes'], kern['h2d_ns'], kern['d2h_ns']) == \
        (1040, 240, 5040, 6480)
    assert kern['predicted_ns'] == 300    # the compute alone
    # the human table: the section and the three figures
    out = speedup(t, k, link).stdout
    assert 'Transfers' in out and "+ transfers = 18.82 us" in out
    assert [ln.split()[:3] for ln in out.splitlines()
            if ln.split()[:1] in (['exact'], ['optimistic'], ['pessimistic'])] == \
        [['exact', '1040', '240'], ['optimistic', '1040', '0'], ['pessimistic', '2640', '240']]
    csv = speedup(t, k, link, '--csv').stdout
    assert '# residency_mode=exact\n# h2d_bytes=1040\n# d2h_bytes=240\n' in csv
    assert '# optimistic_predicted_total_ns=12340\n' in csv


# Without head flag 8 the HOST_READ records are not trusted: the top figure is the
# optimistic one, and there is no exact bound; --residency picks another.
def test_loop_without_host_reads_is_optimistic(tmp_path):
    t, k, link = files(tmp_path, LOOP_CALLS, loop_records(), F_DIFF, total=10000, models=GEMV)
    r = predict(t, k, link)
    assert r['residency_mode'] == 'optimistic' and 'exact' not in r['bounds']
    assert figure(r) == (1040, 4, 0, 0) and r['predicted_total_ns'] == 7300 + 5040
    r = predict(t, k, link, '--residency', 'pessimistic')
    assert r['residency_mode'] == 'pessimistic' and figure(r) == (2640, 6, 240, 3)
    assert r['predicted_total_ns'] == 7300 + 8640 + 6480
    e = speedup(t, k, link, '--residency', 'exact', check=False)
    assert e.returncode == 2 and e.stderr.count('\n') == 1 and 't.csv' in e.stderr
    assert 'host_reads=on' in e.stderr


# The same loop predicted by the threads' timeline (one thread: Amdahl's T' to the ns):
# each call's h2d, and the d2h the program's read causes before the next call, lengthen
# the thread; the last d2h (after the last call) is added at the end.
def test_loop_timeline(tmp_path):
    t, k, link = files(tmp_path, LOOP_CALLS, loop_records(), F_DIFF | F_HOST_READS,
                       total=10000, models=GEMV, threads=True)
    r = predict(t, k, link)
    assert r['timeline'] is True
    assert r['predicted_total_ns'] == pytest.approx(18820, abs=1e-6)
    assert r['amdahl_predicted_total_ns'] == 18820


# Two threads: 101 (200..8000) runs gemv at 1000 (t 1000; f 100 + its h2d of 100 B,
# 1100: 1200, so 101 ends at 8200); main (100) calls dot at 5000 (on the host) which reads
# gemv's 80 B output: d2h 2160 ns.  Main has no replaced call, so no timeline of its own
# calls: the d2h is added at the end, 10000 + 2160 (the join at 9000 finds 101 done).
# Amdahl: 10000 - 1000 + 100 + 1100 + 2160.
def test_two_threads_timeline(tmp_path):
    t = tmp_path / 'mt.csv'
    t.write_text('\n'.join([
        '# dyliberator trace 1', '# pid=100',
        'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args',
        '0,101,gemv,1000,1000,,,100,0,', '1,100,dot,5000,500,,,100,0,', '# threads=recorded',
        '# thread tid=101 parent=100 create_ns=100 start_ns=200 end_ns=8000',
        '# join tid=100 target=101 call_ns=9000 ret_ns=9000', '# total_ns=10000']) + '\n')
    recs = [ff.obj(0, ff.HEAP, 100), ff.obj(1, ff.HEAP, 80), ff.access(0, 0, 0, 100, False),
            ff.access(0, 1, 0, 80, True), ff.access(1, 1, 0, 80, False)]
    (tmp_path / 'mt.csv.flow').write_bytes(ff.flow_file(recs, nseq=2, flags=F_DIFF))
    (tmp_path / 'k.csv').write_text('func,work,t_ns\n' + GEMV)
    (tmp_path / 'link.csv').write_text(LINK)
    r = predict(t, tmp_path / 'k.csv', tmp_path / 'link.csv')
    assert r['timeline'] is True and figure(r) == (100, 1, 80, 1)
    assert r['predicted_total_ns'] == pytest.approx(12160, abs=1e-6)
    assert r['amdahl_predicted_total_ns'] == 12360
    assert {x['tid']: x['predicted_end_ns'] for x in r['threads']}[101] == pytest.approx(8200)


# --- a pipeline -------------------------------------------------------------------

# gemv reads in (100 B), writes mid; axpy reads mid, writes out; the program reads out.
# Both accelerated: mid never comes back, out does (exact).  axpy left on the host (no
# model): it reads mid from the accelerator, in every mode but pessimistic's own rule
# (gemv's writes come back), and out is the host's.
def pipeline_files(tmp_path, models):
    calls = [('gemv', 1000, 1000, 100), ('axpy', 3000, 1000, 100)]
    recs = [ff.obj(0, ff.HEAP, 100), ff.obj(1, ff.HEAP, 100), ff.obj(2, ff.HEAP, 100),
            ff.access(0, 0, 0, 100, False), ff.access(0, 1, 0, 100, True),
            ff.access(1, 1, 0, 100, False), ff.access(1, 2, 0, 100, True),
            host_read(2, 2, 0, 100)]
    return files(tmp_path, calls, recs, F_DIFF | F_HOST_READS, total=10000, models=models)


def test_pipeline_intermediate_never_returns(tmp_path):
    r = predict(*pipeline_files(tmp_path, GEMV + AXPY))
    b = r['bounds']
    assert figure(b['exact']) == (100, 1, 100, 1)
    assert figure(b['optimistic']) == (100, 1, 0, 0)
    assert figure(b['pessimistic']) == (200, 2, 200, 2)
    kern = {x['func']: x for x in r['kernels']}
    assert (kern['axpy']['h2d_bytes'], kern['axpy']['d2h_bytes']) == (0, 100)
    assert (kern['gemv']['h2d_bytes'], kern['gemv']['d2h_bytes']) == (100, 0)
    # T = 10000, t = 2000, f = 150
    assert r['predicted_total_ns'] == 8150 + h2d_ns(1, 100) + d2h_ns(1, 100)


def test_pipeline_consumer_on_the_host(tmp_path):
    r = predict(*pipeline_files(tmp_path, GEMV))
    b = r['bounds']
    assert figure(b['exact']) == figure(b['optimistic']) == (100, 1, 100, 1)
    assert figure(b['pessimistic']) == (100, 1, 100, 1)
    assert r['predicted_total_ns'] == 9100 + h2d_ns(1, 100) + d2h_ns(1, 100)


# --- a partial rewrite under std.diff ----------------------------------------------

# A (10000 B) read by two calls; between them the program rewrites [200, 300) and
# [300, 400) (one contiguous range) and [5000, 5050): the second call moves 250 B in two
# transfers (the 4600 B between them would cost more than a transfer's 1000 ns).
# Pessimistic: the whole of A both times.
def test_rewrite_moves_only_the_changed_bytes(tmp_path):
    calls = [('gemv', 1000, 1000, 100), ('gemv', 3000, 1000, 100)]
    recs = [ff.obj(0, ff.HEAP, 10000), ff.access(0, 0, 0, 10000, False),
            ff.host_write(1, 0, 200, 300), ff.host_write(1, 0, 5000, 5050),
            ff.host_write(1, 0, 300, 400), ff.access(1, 0, 0, 10000, False)]
    r = predict(*files(tmp_path, calls, recs, F_DIFF | F_HOST_READS, total=10000,
                       models=GEMV))
    assert figure(r) == (10250, 3, 0, 0) and r['h2d_ns'] == h2d_ns(3, 10250)
    assert figure(r['bounds']['pessimistic']) == (20000, 2, 0, 0)


# The same with the second range at [600, 650): the 200 B between the two ranges are
# on both sides and cost 200 ns, less than a transfer's 1000: one transfer of 450 B, as
# a port would copy them (not two of 250).
def test_rewrite_pieces_close_together_move_as_one(tmp_path):
    calls = [('gemv', 1000, 1000, 100), ('gemv', 3000, 1000, 100)]
    recs = [ff.obj(0, ff.HEAP, 1000), ff.access(0, 0, 0, 1000, False),
            ff.host_write(1, 0, 200, 300), ff.host_write(1, 0, 600, 650),
            ff.host_write(1, 0, 300, 400), ff.access(1, 0, 0, 1000, False)]
    r = predict(*files(tmp_path, calls, recs, F_DIFF | F_HOST_READS, total=10000,
                       models=GEMV))
    assert figure(r) == (1450, 2, 0, 0) and r['h2d_ns'] == h2d_ns(2, 1450)


# --- an output never read -----------------------------------------------------------

def test_output_never_read(tmp_path):
    calls = [('gemv', 1000, 1000, 100)]
    recs = [ff.obj(0, ff.HEAP, 64), ff.obj(1, ff.HEAP, 32),
            ff.access(0, 0, 0, 64, False), ff.access(0, 1, 0, 32, True)]
    r = predict(*files(tmp_path, calls, recs, F_DIFF | F_HOST_READS, total=10000,
                       models=GEMV))
    assert figure(r['bounds']['exact']) == figure(r['bounds']['optimistic']) == (64, 1, 0, 0)
    assert figure(r['bounds']['pessimistic']) == (64, 1, 32, 1)


# --- what does not change, and bad input -------------------------------------------

# No link rows: the prediction is today's, byte for byte, whether TRACE.flow is there or not.
def test_without_link_rows_nothing_changes(tmp_path):
    t, k, _ = files(tmp_path, LOOP_CALLS, loop_records(), F_DIFF | F_HOST_READS,
                    total=10000, models=GEMV)
    with_flow = [speedup(t, k, *o).stdout for o in ([], ['--json'], ['--csv'])]
    os.unlink(t + '.flow')
    assert with_flow == [speedup(t, k, *o).stdout for o in ([], ['--json'], ['--csv'])]
    assert 'h2d_bytes' not in with_flow[1] and 'Transfers' not in with_flow[0]


def test_link_rows_without_flow(tmp_path):
    t, k, link = files(tmp_path, LOOP_CALLS, loop_records(), total=10000, models=GEMV)
    os.unlink(t + '.flow')
    r = speedup(t, k, link, check=False)
    assert r.returncode == 2 and r.stderr.count('\n') == 1
    assert 't.csv' in r.stderr and 'std.flow' in r.stderr and r.stdout == ''


# A file of link rows alone is no model that "matches no traced function"; the link rows
# may also sit in the kernels' file.
def test_link_file_alone_and_mixed(tmp_path):
    t, k, link = files(tmp_path, LOOP_CALLS, loop_records(), F_DIFF | F_HOST_READS,
                       total=10000, models=GEMV)
    r = speedup('--json', t, k, link)
    assert r.stderr == '' and json.loads(r.stdout)['unused_models'] == []
    both = tmp_path / 'both.csv'
    both.write_text('func,work,t_ns\n' + GEMV + LINK.split('\n', 1)[1])
    assert predict(t, both)['predicted_total_ns'] == 18820


def test_bad_link_rows(tmp_path):
    t, k, _ = files(tmp_path, LOOP_CALLS, loop_records(), total=10000, models=GEMV)
    bad = tmp_path / 'bad.csv'
    bad.write_text('func,work,t_ns\n@h2d,0,1000\n@pcie,0,5\n')
    r = speedup(t, k, bad, check=False)
    assert r.returncode == 2 and r.stderr.count('\n') == 1 and 'bad.csv:3' in r.stderr
    bad.write_text('func,work,t_ns,bytes\n@d2h,0,1000,5\n')
    r = speedup(t, k, bad, check=False)
    assert r.returncode == 2 and r.stderr.count('\n') == 1 and 'bad.csv:2' in r.stderr


def test_bad_flow_record(tmp_path):
    recs = loop_records()[:3] + [ff.access(0, 7, 0, 8, False)]
    t, k, link = files(tmp_path, LOOP_CALLS, recs, total=10000, models=GEMV)
    r = speedup(t, k, link, check=False)
    assert r.returncode == 2 and r.stderr.count('\n') == 1
    assert 't.csv.flow: record 4 (offset' in r.stderr and 'object 7' in r.stderr


# --- programs of our own, under std.flow and std.diff ------------------------------

@pytest.fixture(scope='module')
def rl(tmp_path_factory):
    d = tmp_path_factory.mktemp('rl')
    lib, h = c_library(d, 'rl', os.path.join(RL, 'rl.h'), os.path.join(RL, 'librl.c'))
    app = build_c(d, os.path.join(RL, 'app.c'), 'app', f'-I{d}', lib, f'-Wl,-rpath,{d}')
    w = wrap(d, '--lib', lib, '--header', h, '-g', 'std.flow', '-g', 'std.diff')
    (d / 'k.csv').write_text('func,work,t_ns\nmv,0,100\nmv,1000000,100\n'
                             'twice,0,50\ntwice,1000000,50\n')
    (d / 'mv.csv').write_text('func,work,t_ns\nmv,0,100\nmv,1000000,100\n')
    (d / 'link.csv').write_text(LINK)
    return d, app, w


def program(rl, what, models='k.csv'):
    d, app, w = rl
    _, t = run_both([app, what], w, d, trace=f'{what}.csv')
    r = predict(t, d / models, d / 'link.csv')
    # T' = T - t + f + the transfers; one thread: the timeline says the same
    assert r['predicted_total_ns'] == pytest.approx(
        r['total_ns'] - r['t_ns'] + r['predicted_ns'] + r['h2d_ns'] + r['d2h_ns'], abs=1)
    assert r['residency_mode'] == 'optimistic' and 'exact' not in r['bounds']
    for b in r['bounds'].values():
        assert b['h2d_ns'] == h2d_ns(b['h2d_transfers'], b['h2d_bytes'])
        assert b['d2h_ns'] == d2h_ns(b['d2h_transfers'], b['d2h_bytes'])
    return r


A, V = 32 * 32 * 8, 32 * 8      # the matrix, a vector (app.c: N = 32)


# Five y = A x: A moves once, x (rewritten by the program: std.diff) every step; y never
# comes back without a reader on the host (optimistic).  Pessimistic: A and x every step,
# y out every step.
def test_program_loop(rl):
    r = program(rl, 'loop')
    assert figure(r) == (A + 5 * V, 6, 0, 0)
    assert figure(r['bounds']['pessimistic']) == (5 * (A + V), 10, 5 * V, 5)


# The same with total(y) after each step (no model: it stays on the host): y comes back
# before each total, charged to mv (its producer).
def test_program_loop_with_a_host_reader(rl):
    r = program(rl, 'loop-total')
    assert figure(r) == (A + 5 * V, 6, 5 * V, 5)
    (kern,) = [x for x in r['kernels'] if x['func'] == 'mv']
    assert (kern['d2h_bytes'], kern['d2h_ns']) == (5 * V, d2h_ns(5, 5 * V))


# mv(A, in) -> mid -> twice -> out: A and in move in; mid never comes back; pessimistic
# moves mid in again and both outputs out.  With twice on the host, mid comes back.
def test_program_pipeline(rl):
    r = program(rl, 'pipeline')
    assert figure(r) == (A + V, 2, 0, 0)
    assert figure(r['bounds']['pessimistic']) == (A + 2 * V, 3, 2 * V, 2)
    r = program(rl, 'pipeline', models='mv.csv')
    assert figure(r) == (A + V, 2, V, 1)


# y = A x twice, the program rewriting A's row 3 between: 256 B of A move again (one
# transfer).  Pessimistic: A and x twice, and y's bytes std.diff saw written (all of them,
# then only y[3], the element row 3 changes).
def test_program_rewrite(rl):
    r = program(rl, 'rewrite')
    assert figure(r) == (A + V + 256, 3, 0, 0)
    assert figure(r['bounds']['pessimistic']) == (2 * (A + V), 4, V + 8, 2)


def test_program_output_never_read(rl):
    r = program(rl, 'unread')
    assert figure(r) == (A + V, 2, 0, 0)
    assert figure(r['bounds']['pessimistic']) == (A + V, 2, V, 1)


# --- a killed run: the flow from its spool ------------------------------------------

# std.flow's scenario program, SIGKILLed after its chain: no TRACE.flow, and dyl-flow
# reads the spool's FLOW chunks (the chain's edges, 800 B each), with a warning.
def test_killed_run_read_from_the_spool(tmp_path):
    apps = os.path.join(ROOT, 'microgens', 'std.flow', 'apps')
    lib, h = c_library(tmp_path, 'fl', os.path.join(apps, 'fl.h'), os.path.join(apps, 'libfl.c'))
    app = build_c(tmp_path, os.path.join(apps, 'app.c'), 'app', f'-I{tmp_path}', lib,
                  f'-Wl,-rpath,{tmp_path}', '-lpthread')
    w = wrap(tmp_path, '--lib', lib, '--header', h, '-g', 'std.flow')
    env = dict(os.environ, LD_PRELOAD=w, DYL_TRACE=str(tmp_path / 'k.csv'))
    p = subprocess.Popen([app, 'killed'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert p.stdout.readline().strip().isdigit()
    assert p.stdout.readline() == b'ready\n'
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=60)
    assert not (tmp_path / 'k.csv.flow').exists()
    r = subprocess.run([DYL_FLOW, str(tmp_path / 'k.csv')], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1:] == ['produce,transform,800,800,800',
                                         'transform,consume,800,800,800']
    assert "read from the run's spool" in r.stderr


# --- dyl-flow reads HOST_READ as the program's read ---------------------------------

# gemv writes y (80 B); the program reads it (a HOST_READ, how 0) and half of it again
# (how 1, assumed): the edge gemv -> host carries 120 B.
def test_dyl_flow_host_read_edge(tmp_path):
    calls = [('gemv', 1000, 1000, 100)]
    recs = [ff.obj(0, ff.HEAP, 80), ff.access(0, 0, 0, 80, True), host_read(1, 0, 0, 80),
            host_read(1, 0, 0, 40, how=1)]
    t, _, _ = files(tmp_path, calls, recs, F_DIFF | F_HOST_READS)
    r = subprocess.run([DYL_FLOW, t], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1:] == ['gemv,host,120,80,80']
