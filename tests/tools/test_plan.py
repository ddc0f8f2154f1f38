"""dyl-speedup --plan (issue 24, item 4): the offload plan beside the all-in and the
call-by-call (--only-faster) plans, on hand-made traces and TRACE.flow files whose
transfers and times are worked out below.  The link model moves 1 byte a ns, no latency
(a 1 MiB transfer: 1048576 ns); T = 100 ms; the kernel models are constants."""
import json
import os
import struct
import subprocess
import sys

import pytest

from dyltest import ROOT, make

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flowfile import HEAP, _rec, access, flow_file, host_write, obj  # noqa: E402

DYL_SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')
MIB = 1 << 20
T = 100_000_000
LINK = ('func,work,t_ns\n@h2d,0,0\n@h2d,1048576,1048576\n'
        '@d2h,0,0\n@d2h,1048576,1048576\n')


@pytest.fixture(scope='module', autouse=True)
def built():
    make('bin/dyl-speedup')


def host_read(seq, obj_id, lo, hi, how=0):
    """A HOST_READ record (type 7: RESIDENCY.md section 1)."""
    return _rec(7, struct.pack('<QQQQQ', seq, obj_id, lo, hi, how))


def case(tmp_path, calls, records, kernels, flags=0):
    """CALLS: (func, t_ns) in seq order, one thread, one after another."""
    lines = ['# pid=100', 'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args']
    start = 1000
    for seq, (func, t) in enumerate(calls):
        lines.append(f'{seq},1,{func},{start},{t},,,1,0,')
        start += t + 1000
    lines.append(f'# total_ns={T}')
    (tmp_path / 'trace.csv').write_text('\n'.join(lines) + '\n')
    (tmp_path / 'trace.csv.flow').write_bytes(flow_file(records, nseq=len(calls), flags=flags))
    (tmp_path / 'kernels.csv').write_text(
        'func,work,t_ns\n' + ''.join(f'{f},1,{t}\n' for f, t in kernels.items()))
    (tmp_path / 'link.csv').write_text(LINK)
    return [str(tmp_path / n) for n in ('trace.csv', 'kernels.csv', 'link.csv')]


def plans(files, *opts):
    r = subprocess.run([DYL_SPEEDUP, '--plan', '--json', *opts, *files], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    return {p['name']: p for p in j['plans']}, j


def check(p, funcs, total, h2d, d2h=0):
    assert sorted(p['functions']) == sorted(funcs)
    assert p['predicted_total_ns'] == pytest.approx(total, abs=0.5)
    assert p['S_G'] == pytest.approx(T / total, rel=1e-9)
    assert (p['h2d_bytes'], p['d2h_bytes']) == (h2d, d2h)


# A (1 ms; 1.5 ms on the accelerator: slower alone) reads X (4 KiB) and writes Y (1 MiB);
# B (10 ms; 1 ms) reads Y and writes Z; C (1 ms; 2 ms), apart, reads W and writes V.
#   all {A,B,C}: T - (-0.5 + 9 - 1) ms + X and W in (8192 ns)        = 92.508192 ms
#   call-by-call {B}: T - 9 ms + Y in (1048576 ns), A wrote it on the host = 92.048576 ms
#   best {A,B}: T - 8.5 ms + X in (4096 ns): Y stays on the accelerator = 91.504096 ms
def test_plan_beats_all_and_call_by_call(tmp_path):
    files = case(tmp_path, [('A', 1_000_000), ('B', 10_000_000), ('C', 1_000_000)],
                 [obj(0, HEAP, 4096), obj(1, HEAP, MIB), obj(2, HEAP, 4096), obj(3, HEAP, 4096),
                  obj(4, HEAP, 4096),
                  access(0, 0, 0, 4096, False), access(0, 1, 0, MIB, True),
                  access(1, 1, 0, MIB, False), access(1, 2, 0, 4096, True),
                  access(2, 3, 0, 4096, False), access(2, 4, 0, 4096, True)],
                 {'A': 1_500_000, 'B': 1_000_000, 'C': 2_000_000})
    p, j = plans(files)
    check(p['all'], ['A', 'B', 'C'], T - 7_500_000 + 8192, 8192)
    check(p['call-by-call'], ['B'], T - 9_000_000 + MIB, MIB)
    check(p['best'], ['A', 'B'], T - 8_500_000 + 4096, 4096)
    assert j['plan_search'] == 'exhaustive' and j['plan_mode'] == 'optimistic'
    # the all-in and call-by-call plans are the main prediction's, with and without
    # --only-faster (where dyl-speedup adds the transfers itself: helper residency's)
    if 'h2d_bytes' in j:
        assert j['predicted_total_ns'] == pytest.approx(p['all']['predicted_total_ns'])
        _, k = plans(files, '--only-faster')
        assert k['predicted_total_ns'] == pytest.approx(p['call-by-call']['predicted_total_ns'])
        assert k['h2d_bytes'] == p['call-by-call']['h2d_bytes']


# Three rounds of: the program rewrites M (4 MiB), D (2 ms; 1 ms) reads M and writes R,
# E (2 ms; 1 ms) reads P (4 KiB) and writes Q.  Each call alone is faster, so all and
# call-by-call accelerate both and move M in three times (12582912 ns); keeping D on
# the host is best.
#   all = call-by-call {D,E}: T - 6 ms + 3 x 4 MiB + P in       = 106.587008 ms
#   best {E}: T - 3 ms + P in (4096 ns)                          = 97.004096 ms
def test_plan_keeps_one_on_the_host(tmp_path):
    recs = [obj(0, HEAP, 4 * MIB), obj(1, HEAP, 4096), obj(2, HEAP, 4096), obj(3, HEAP, 4096)]
    calls = []
    for k in range(3):
        d, e = 2 * k, 2 * k + 1
        recs += [host_write(d, 0, 0, 4 * MIB), access(d, 0, 0, 4 * MIB, False),
                 access(d, 1, 0, 4096, True), access(e, 2, 0, 4096, False),
                 access(e, 3, 0, 4096, True)]
        calls += [('D', 2_000_000), ('E', 2_000_000)]
    files = case(tmp_path, calls, recs, {'D': 1_000_000, 'E': 1_000_000})
    p, _ = plans(files)
    moved = 3 * 4 * MIB + 4096
    check(p['all'], ['D', 'E'], T - 6_000_000 + moved, moved)
    check(p['call-by-call'], ['D', 'E'], T - 6_000_000 + moved, moved)
    check(p['best'], ['E'], T - 3_000_000 + 4096, 4096)
    # the table says the same for people
    r = subprocess.run([DYL_SPEEDUP, '--plan', *files], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    best = [line for line in r.stdout.splitlines() if line.startswith('best ')]
    assert len(best) == 1 and best[0].split()[-1] == 'E' and '97.00 ms' in best[0]


def test_plan_needs_link_rows_and_flow(tmp_path):
    files = case(tmp_path, [('A', 1000)], [obj(0, HEAP, 8), access(0, 0, 0, 8, False)],
                 {'A': 10})
    r = subprocess.run([DYL_SPEEDUP, '--plan', *files[:2]], capture_output=True, text=True)
    assert r.returncode == 2 and '@h2d' in r.stderr and len(r.stderr.splitlines()) == 1
    os.unlink(files[0] + '.flow')
    r = subprocess.run([DYL_SPEEDUP, '--plan', *files], capture_output=True, text=True)
    assert r.returncode == 2 and 'std.flow' in r.stderr and files[0] in r.stderr
    assert len(r.stderr.splitlines()) == 1


# Over 12 functions the search is greedy.  A and B as in the first case, C slower alone,
# and F1..F11 (1 ms; 0.5 ms) each reading its own 4 KiB and writing another.  From
# call-by-call {B, F1..F11} (better than all), flipping A in saves moving Y:
#   best {A, B, F1..F11}: T - 8.5 ms - 11 x 0.5 ms + 12 x 4 KiB in  = 86.049152 ms
#   all: best + C (1 ms more, 4 KiB in)                             = 87.053248 ms
#   call-by-call: T - 9 ms - 5.5 ms + Y + 11 x 4 KiB                = 86.593632 ms
def test_plan_greedy_over_12_functions(tmp_path):
    calls = [('A', 1_000_000), ('B', 10_000_000), ('C', 1_000_000)]
    recs = [obj(0, HEAP, 4096), obj(1, HEAP, MIB), obj(2, HEAP, 4096), obj(3, HEAP, 4096),
            obj(4, HEAP, 4096),
            access(0, 0, 0, 4096, False), access(0, 1, 0, MIB, True),
            access(1, 1, 0, MIB, False), access(1, 2, 0, 4096, True),
            access(2, 3, 0, 4096, False), access(2, 4, 0, 4096, True)]
    kernels = {'A': 1_500_000, 'B': 1_000_000, 'C': 2_000_000}
    for i in range(1, 12):
        seq, o = len(calls), 3 + 2 * i
        calls.append((f'F{i}', 1_000_000))
        kernels[f'F{i}'] = 500_000
        recs += [obj(o, HEAP, 4096), obj(o + 1, HEAP, 4096), access(seq, o, 0, 4096, False),
                 access(seq, o + 1, 0, 4096, True)]
    p, j = plans(case(tmp_path, calls, recs, kernels))
    assert j['plan_search'] == 'greedy'
    fs = [f'F{i}' for i in range(1, 12)]
    check(p['best'], ['A', 'B', *fs], T - 14_000_000 + 12 * 4096, 12 * 4096)
    check(p['all'], ['A', 'B', 'C', *fs], T - 13_000_000 + 13 * 4096, 13 * 4096)
    check(p['call-by-call'], ['B', *fs], T - 14_500_000 + MIB + 11 * 4096, MIB + 11 * 4096)


# Host reads decide it.  G (2 ms; 1 ms) reads S (4 KiB) and writes R (1 MiB), three
# times; the program reads all of R after each call (flag 8, HOST_READ records).
#   exact, all = call-by-call {G}: T - 3 ms + S in + 3 x R back = 100.149824 ms
#   exact, best {}: nothing accelerated                           = 100 ms
#   optimistic (--residency optimistic): R never comes back: best {G} = 97.004096 ms
def test_plan_exact_mode_keeps_what_the_program_reads_on_the_host(tmp_path):
    recs = [obj(0, HEAP, 4096), obj(1, HEAP, MIB)]
    for k in range(3):
        recs += ([host_read(k, 1, 0, MIB)] if k else []) + [
            access(k, 0, 0, 4096, False), access(k, 1, 0, MIB, True)]
    recs.append(host_read(3, 1, 0, MIB))
    files = case(tmp_path, [('G', 2_000_000)] * 3, recs, {'G': 1_000_000}, flags=1 | 8)
    p, j = plans(files)
    assert j['plan_mode'] == 'exact'
    check(p['all'], ['G'], T - 3_000_000 + 4096 + 3 * MIB, 4096, 3 * MIB)
    check(p['call-by-call'], ['G'], T - 3_000_000 + 4096 + 3 * MIB, 4096, 3 * MIB)
    check(p['best'], [], T, 0)
    p, j = plans(files, '--residency', 'optimistic')
    assert j['plan_mode'] == 'optimistic'
    check(p['best'], ['G'], T - 3_000_000 + 4096, 4096)


# A set of whole functions cannot beat deciding each call: A's first call gains 8 ms on
# the accelerator (t 10 ms, f 2 ms), its second loses 1.999 ms (t 1 us, f 2 ms).
#   best {A}: T - 10.001 ms + 4 ms = 93.999 ms;  call-by-call (the first): T - 8 ms = 92 ms
# The report names call-by-call as the plan of least T', 1.999 ms below the best set.
def test_call_by_call_beats_the_best_set(tmp_path):
    files = case(tmp_path, [('A', 10_000_000), ('A', 1000)], [], {'A': 2_000_000})
    p, j = plans(files)
    check(p['best'], ['A'], T - 10_001_000 + 4_000_000, 0)
    assert p['call-by-call']['predicted_total_ns'] == T - 8_000_000
    assert j['least_plan'] == 'call-by-call'
    r = subprocess.run([DYL_SPEEDUP, '--plan', *files], capture_output=True, text=True)
    assert "least T': call-by-call, 1.999 ms below the best set of whole functions" in r.stdout
