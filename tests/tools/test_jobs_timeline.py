"""dyl-speedup over the traces of one run (doc/jobs-timeline.md): the processes on one timeline,
on hand-made traces whose answers are worked out by hand in the comments.  The kernel k
has the model f = t / 4 (work in ns: 0 -> 0, 40000 -> 10000).

Each trace carries the '#' lines of doc/jobs.md: '# start_ns=' (the epoch start, S
here plus the process's offset), '# ppid=', '# procs=recorded' and the process events
('# fork', '# waitpid', '# pipe_write', '# pipe_read'); '# threads=recorded' gives each
process its timeline (doc/threads.md).  Times in the events are the trace's own clock.
"""
import json
import os
import re
import subprocess

import pytest

from dyltest import make

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')
HEADER = 'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work'
S = 1_700_000_000_000_000_000


@pytest.fixture(scope='module', autouse=True)
def built():
    make('bin/dyl-speedup')


@pytest.fixture
def model(tmp_path):
    path = tmp_path / 'm.csv'
    path.write_text('func,work,t_ns\nk,0,0\nk,40000,10000\n')
    return str(path)


def trace(tmp_path, pid, offset, total, calls=(), events=(), ppid=None, start=True, name=None,
          header=()):
    """CALLS: (start, t) of k in the main thread; EVENTS: the process lines, without '# '."""
    lines = ['# dyliberator trace 1', f'# pid={pid}', *header]
    if ppid is not None:
        lines.append(f'# ppid={ppid}')
    if start:
        lines.append(f'# start_ns={S + offset}')
    lines.append(HEADER)
    lines += [f'{i},{pid},k,{s},{t},,,{t}' for i, (s, t) in enumerate(calls)]
    lines += ['# threads=recorded', '# procs=recorded', *(f'# {e}' for e in events),
              f'# total_ns={total}']
    path = tmp_path / (name or f'trace.{pid}.csv')
    path.write_text('\n'.join(lines) + '\n')
    return str(path)


def predict(*args):
    r = subprocess.run([SPEEDUP, '--json', *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def procs(result):
    return {p['pid']: p for p in result['processes']}


# The parent (100) forks 200 at 1000, works, waits for it 10000..42600, ends at 48000.
# The child starts at 1500 on the run's axis, calls k at 500 (axis 2000) for 40000, ends at
# 41000 (axis 42500).  Measured: T = 48000 (not the sum, 89000).  Predicted: the child
# starts at the fork + its start-up (1000 + 500), its call takes 10000 (2000..12000), it ends
# at 12500; the parent reaches its waitpid at 10000, it returns at the child's end + what
# the return took after it (42600 - 42500 = 100): 12600; the parent ends 30000 earlier
# than measured: T' = 18000, S_G = 48000 / 18000.
def fork_wait(tmp_path, how='fork'):
    return (trace(tmp_path, 100, 0, 48000, events=[f'{how} tid=100 call_ns=1000 child=200',
                                                  'waitpid tid=100 call_ns=10000 ret_ns=42600 pid=200']),
            trace(tmp_path, 200, 1500, 41000, calls=[(500, 40000)], ppid=100))


@pytest.mark.parametrize('how', ['fork', 'spawn'])
def test_fork_then_wait(tmp_path, model, how):
    r = predict(*fork_wait(tmp_path, how), model)
    assert r['total_ns'] == 48000 and r['predicted_total_ns'] == 18000
    assert r['S_G'] == pytest.approx(48000 / 18000)
    p = procs(r)
    assert p[100]['total_ns'] == 48000 and p[200]['total_ns'] == 41000     # per process, alone
    assert p[200]['predicted_total_ns'] == 11000 and p[200]['started_by'] == 100
    assert (p[200]['start_ns'], p[200]['end_ns']) == (1500, 42500)
    assert (p[200]['predicted_start_ns'], p[200]['predicted_end_ns']) == (1500, 12500)
    assert (p[100]['predicted_end_ns'], p[100]['waits']) == (18000, 1)
    assert p[100]['waited_ns'] == 32600 and p[100]['predicted_waited_ns'] == 2600
    job = r['job']
    assert job['waits'] == {'waitpid': 1, 'pipe': 0, 'mpi': 0, 'other': 0}
    assert [(s['pid'], s['from_ns'], s['to_ns']) for s in job['critical_path']] == \
        [(100, 0, 1000), (200, 1500, 12500), (100, 12500, 18000)]


def test_the_order_of_the_traces_does_not_matter(tmp_path, model):
    parent, child = fork_wait(tmp_path)
    r = predict(child, model, parent)
    assert r['total_ns'] == 48000 and r['predicted_total_ns'] == 18000


def test_the_table_shows_the_processes(tmp_path, model):
    out = subprocess.run([SPEEDUP, *fork_wait(tmp_path), model], capture_output=True,
                         text=True).stdout
    assert re.search(r'^run +48\.00 us  \(first start to last end: the processes below\)$', out, re.M)
    assert "S_G = T / T' = 2.667   (the whole run's speedup" in out
    rows = [line.split() for line in out.splitlines() if line.startswith(('  100 ', '  200 '))]
    assert rows[-2][:7] == ['100', '-', '0.000', 'ns', '48.00', 'us', '18.00']
    assert rows[-1][:4] == ['200', '100', '1.500', 'us']
    assert 'run: T = 48.00 us (first start to last end), T\' = 18.00 us' in out
    assert 'waits on other processes: 1 waitpid, 0 pipe, 0 MPI, 0 other' in out


# a | b, started by a shell not traced.  a (11, axis 0) calls k 100..8100, writes 100 bytes
# 8200..8300, calls k 8400..16400, writes 100 bytes 16500..16600, ends at 17000.  b (12, axis
# 200) reads 100 bytes 100..8200 (axis 300..8400), works, reads 100 bytes 9000..16500 (axis
# 9200..16700), reads the end of the file 16600..16700 (axis 16800..16900), ends at 17000
# (axis 17200).  Predicted: a's calls take 2000 each: write 1 ends at 2300, write 2 at 4600,
# a ends at 5000.  b's first read waits for write 1: 2300 + 100 (its return after the write,
# measured) = 2400; its second reaches the pipe at 9200 - 6000 = 3200 and waits for write 2:
# 4700; the end of the file comes after the last write: 16800 - 12000 = 4800 (not bound),
# 4900; b ends at 17200 - 12000 = 5200 = T'.
def pipeline(tmp_path):
    w = 'pipe_write tid=11 call_ns={} ret_ns={} pipe=77 bytes=100'
    r = 'pipe_read tid=12 call_ns={} ret_ns={} pipe=77 bytes={}'
    return (trace(tmp_path, 11, 0, 17000, calls=[(100, 8000), (8400, 8000)], ppid=10,
                  events=[w.format(8200, 8300), w.format(16500, 16600)]),
            trace(tmp_path, 12, 200, 17000, ppid=10,
                  events=[r.format(100, 8200, 100), r.format(9000, 16500, 100),
                          r.format(16600, 16700, 0)]))


def test_pipeline(tmp_path, model):
    r = predict(*pipeline(tmp_path), model)
    assert r['total_ns'] == 17200 and r['predicted_total_ns'] == 5200
    p = procs(r)
    assert p[11]['predicted_end_ns'] == 5000 and p[11]['started_by'] is None
    assert p[12]['predicted_start_ns'] == 200 and p[12]['waits'] == 3
    assert r['job']['waits']['pipe'] == 3
    # 2400 - 300, 4700 - 3200, 4900 - 4800
    assert p[12]['predicted_waited_ns'] == 2100 + 1500 + 100


def test_pipeline_bytes_not_writes(tmp_path, model):
    """b reads the 200 bytes in one read of 150 then one of 50: the first needs byte 0 (write
    1), the second byte 150 (write 2): 2400, then 4700 as above."""
    a, _ = pipeline(tmp_path)
    r = 'pipe_read tid=12 call_ns={} ret_ns={} pipe=77 bytes={}'
    b = trace(tmp_path, 12, 200, 17000, ppid=10,
              events=[r.format(100, 8200, 150), r.format(9000, 16500, 50)])
    assert predict(a, b, model)['predicted_total_ns'] == 5200


# 1 forks 2 at 1000; 2 (axis 1200) forks 3 at 1000 (axis 2200); 3 (axis 2400) calls k at 100
# for 40000 and ends at 40500 (axis 42900).  2 waits for 3 1500..41800 (axis 2700..43000)
# and ends at 42000 (axis 43200); 1 waits for 2 2000..43300 and ends at 44000.  Predicted:
# 3 starts at 2400, its call 2500..12500, it ends at 12900; 2's wait returns at 12900 + 100,
# 2 ends at 13200; 1's at 13200 + 100, 1 ends at 14000.
def test_chain_of_three(tmp_path, model):
    r = predict(trace(tmp_path, 1, 0, 44000, events=['fork tid=1 call_ns=1000 child=2',
                                                     'waitpid tid=1 call_ns=2000 ret_ns=43300 pid=2']),
                trace(tmp_path, 2, 1200, 42000, ppid=1,
                      events=['fork tid=2 call_ns=1000 child=3',
                              'waitpid tid=2 call_ns=1500 ret_ns=41800 pid=3']),
                trace(tmp_path, 3, 2400, 40500, calls=[(100, 40000)], ppid=2), model)
    assert r['total_ns'] == 44000 and r['predicted_total_ns'] == 14000
    p = procs(r)
    assert [p[i]['predicted_end_ns'] for i in (3, 2, 1)] == [12900, 13200, 14000]
    assert [p[i]['started_by'] for i in (1, 2, 3)] == [None, 1, 2]
    assert [(s['pid'], s['from_ns'], s['to_ns']) for s in r['job']['critical_path']] == \
        [(1, 0, 1000), (2, 1200, 2200), (3, 2400, 12900), (2, 12900, 13200), (1, 13200, 14000)]


# 100 forks 300 at 500 and waits for it 1000..42500, ends at 43000.  300 (axis 700) calls
# exec at 1400 (axis 2100); its new image (axis 2200) calls k at 100 for 40000 and ends at
# 40200 (axis 42400).  Predicted: the new image starts at the exec + 100, its call 2300..
# 12300, it ends at 12400; the waitpid returns at 12500, 100 ends at 13000.
def test_exec_continues_the_process(tmp_path, model):
    r = predict(trace(tmp_path, 100, 0, 43000, events=['fork tid=100 call_ns=500 child=300',
                                                       'waitpid tid=100 call_ns=1000 ret_ns=42500 pid=300']),
                trace(tmp_path, 300, 700, 1400, ppid=100, events=['exec tid=300 call_ns=1400']),
                trace(tmp_path, 300, 2200, 40200, calls=[(100, 40000)], ppid=100, name='exec.csv',
                      header=['# exec_of=1']), model)
    assert r['total_ns'] == 43000 and r['predicted_total_ns'] == 13000
    images = [p for p in r['processes'] if p['pid'] == 300]
    assert [(p['exec_of'], p['started_by'], p['predicted_start_ns']) for p in images] == \
        [(False, 100, 700), (True, 300, 2200)]


def test_one_process_alone_is_unchanged(tmp_path, model):
    """The process lines change nothing for one trace (its T, T', the output's bytes)."""
    parent, child = fork_wait(tmp_path)
    bare = tmp_path / 'bare.csv'
    bare.write_text(''.join(line for line in open(child).read().splitlines(True)
                            if not line.startswith(('# ppid', '# start_ns', '# procs'))))
    for fmt in ('--json', '--csv', '--report'):
        a = subprocess.run([SPEEDUP, fmt, child, model], capture_output=True, text=True)
        b = subprocess.run([SPEEDUP, fmt, str(bare), model], capture_output=True, text=True)
        assert a.returncode == 0 and a.stdout.replace(child, 'X') == b.stdout.replace(str(bare), 'X')
    r = predict(child, model)
    assert r['total_ns'] == 41000 and r['predicted_total_ns'] == 11000 and 'job' not in r


def test_without_start_times_the_run_is_the_sum(tmp_path, model):
    """Traces without '# start_ns=' (older ones) keep the sum, and a note says why."""
    r = predict(trace(tmp_path, 100, 0, 48000, start=False),
                trace(tmp_path, 200, 1500, 41000, calls=[(500, 40000)], start=False), model)
    assert r['total_ns'] == 89000 and 'job' not in r
    assert any("no '# start_ns=' line" in n for n in r['notes'])


def test_a_process_nobody_started_keeps_its_start(tmp_path, model):
    """Two unrelated processes: each starts when it did; T = 5000 + 41000, and the second
    (no parent, no waits) ends at 5000 + 11000."""
    r = predict(trace(tmp_path, 100, 0, 3000), trace(tmp_path, 200, 5000, 41000,
                                                      calls=[(500, 40000)]), model)
    assert r['total_ns'] == 46000 and r['predicted_total_ns'] == 16000


def test_a_bad_process_line_names_the_file(tmp_path, model):
    bad = trace(tmp_path, 100, 0, 48000, events=['waitpid tid=100 call_ns=x ret_ns=1 pid=200'])
    r = subprocess.run([SPEEDUP, bad, trace(tmp_path, 200, 1500, 41000), model],
                       capture_output=True, text=True)
    assert r.returncode == 2 and bad in r.stderr and 'call_ns is not' in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


# Two processes started together (no parent in the run) each call k at 0 for 40000 and end
# at 40000.  Unlimited devices: both calls take 10000, T' = 10000.  One device (the
# default), shared by the run: the first process's call goes first, the second's waits
# for it (10000) and ends at 20000: T' = 20000.
@pytest.mark.parametrize('devices,want,wait', [('unlimited', 10000, 0), ('1', 20000, 10000)])
def test_processes_share_the_devices(tmp_path, model, devices, want, wait):
    r = predict(trace(tmp_path, 100, 0, 40000, calls=[(0, 40000)]),
                trace(tmp_path, 200, 0, 40000, calls=[(0, 40000)]), model, '--devices', devices)
    assert r['total_ns'] == 40000 and r['predicted_total_ns'] == want
    assert r['queue_wait_ns'] == wait
