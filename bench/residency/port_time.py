#!/usr/bin/python3
"""The ports' run time against the prediction (issue 24, "Against real ports").

For each program of bench/residency/progs: ROUNDS interleaved runs of the plain program
and of its port, the port's copies waiting out LINK's time (fakedev, FAKEDEV_LINK): by
default burning it as CPU time and timed by CPU time (--clock cpu), since on a loaded
machine a sleep wakes milliseconds late; --clock wall sleeps and times the wall clock.  The port computes with the
same BLAS on the same CPU, so its extra time over the plain program is its transfers:
that difference (medians) is set against the prediction's transfer time, dyl-speedup
--plan's "all" plan over the plain program's trace (exact where the wrapper records host
reads, else optimistic) with the same link model, and against the port's own sum of the
modelled times (FAKEDEV_REPORT).

Usage (from the repository root, after make all):
    /usr/bin/python3 bench/residency/port_time.py [--rounds 7] [--link MODEL]
Default link: a slow one (0.25 GB/s, 100 us a transfer) written to the build folder, so
the transfers stand well above the machine's noise.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BLAS = '/usr/lib/x86_64-linux-gnu/blas/libblas.so.3'
PROGS = [('power', ['512', '6']), ('pipe', ['128']), ('rewrite', ['512', '6', '8']),
         ('unread', ['512'])]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def slow_link(path):
    with open(path, 'w') as f:
        f.write('# a slow link for timing: 100 us + bytes / 0.25 GB/s\nfunc,work,t_ns\n')
        for d in ('@h2d', '@d2h'):
            for b in (0, 1 << 30):
                f.write(f'{d},{b},{100000 + b / 0.25:.0f}\n')


def timed(cmd, env, cpu):
    """CMD's run time in ns: its CPU time (user + sys) with CPU, else the wall clock."""
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    r1, t1 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    if not cpu:
        return (t1 - t0) * 1e9
    return (r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) * 1e9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--rounds', type=int, default=7)
    ap.add_argument('--link')
    ap.add_argument('--clock', choices=('cpu', 'wall'), default='cpu',
                    help='cpu (default): the port burns each modelled wait as CPU time '
                    '(FAKEDEV_WAIT=cpu) and runs are timed by CPU time, which a loaded '
                    'machine does not stretch; wall: it sleeps, timed by the wall clock')
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix='port-time-')
    sh(['make', '-s', '-C', os.path.join(ROOT, 'bench', 'residency', 'progs'), f'O={d}'])
    link = a.link or os.path.join(d, 'slow-link.csv')
    if not a.link:
        slow_link(link)
    w = os.path.join(d, 'wrap.so')
    g = subprocess.run([os.path.join(ROOT, 'bin', 'dyliberator'), '-q', '--lib', BLAS,
                        '--header', os.path.join(ROOT, 'examples', 'blas.h'), '-f', 'dgemv_',
                        '-f', 'dgemm_', '-g', 'std.flow:host_reads=on', '-g', 'std.diff',
                        '-o', w], capture_output=True, text=True)
    if g.returncode != 0:
        sh([os.path.join(ROOT, 'bin', 'dyliberator'), '-q', '--lib', BLAS, '--header',
            os.path.join(ROOT, 'examples', 'blas.h'), '-f', 'dgemv_', '-f', 'dgemm_',
            '-g', 'std.flow', '-g', 'std.diff', '-o', w])
    kernel = os.path.join(d, 'kernel.csv')
    with open(kernel, 'w') as f:
        f.write('func,work,t_ns\ndgemv_,1,0\ndgemm_,1,0\n')
    base = {k: v for k, v in os.environ.items() if k != 'LD_PRELOAD'}
    print(f'link {link}; {a.rounds} rounds, {a.clock} time, medians (min-max)')
    print(f'{"program":8} {"plain":>9} {"port":>9} {"port-plain":>22} {"min-min":>8} '
          f'{"predicted":>10} {"port model":>10} {"port waits":>10} {"port-nowait":>11} {"mode":>10}')
    for name, args in PROGS:
        plain, port = os.path.join(d, f'{name}_plain'), os.path.join(d, f'{name}_port')
        trace = os.path.join(d, f'{name}.csv')
        sh([plain, *args], env={**base, 'LD_PRELOAD': w, 'DYL_TRACE': trace})
        j = json.loads(sh([os.path.join(ROOT, 'bin', 'dyl-speedup'), '--plan', '--json', trace,
                           kernel, link]).stdout)
        p = next(x for x in j['plans'] if x['name'] == 'all')
        rep = os.path.join(d, f'{name}.rep')
        penv = {**base, 'FAKEDEV_LINK': link, 'FAKEDEV_REPORT': rep}
        if a.clock == 'cpu':
            penv['FAKEDEV_WAIT'] = 'cpu'
        tp, tq, diffs, waits, nowait = [], [], [], [], []
        nenv = {**penv, 'FAKEDEV_NOWAIT': '1', 'FAKEDEV_REPORT': rep + '.0'}
        for _ in range(a.rounds):
            cpu = a.clock == 'cpu'
            x, y = timed([plain, *args], base, cpu), timed([port, *args], penv, cpu)
            nowait.append(y - timed([port, *args], nenv, cpu))
            tp.append(x)
            tq.append(y)
            diffs.append(y - x)
            with open(rep) as f:
                r = {k: float(v) for k, v in (line.strip().split('=') for line in f)}
            waits.append(r['h2d_wall_ns'] + r['d2h_wall_ns'])
        ms = lambda v: f'{v / 1e6:.2f}'  # noqa: E731
        print(f'{name:8} {ms(statistics.median(tp)):>9} {ms(statistics.median(tq)):>9} '
              f'{ms(statistics.median(diffs)):>8} ({ms(min(diffs))}-{ms(max(diffs))}) '
              f'{ms(min(tq) - min(tp)):>8} '
              f'{ms(p["h2d_ns"] + p["d2h_ns"]):>10} {ms(r["h2d_ns"] + r["d2h_ns"]):>10} '
              f'{ms(statistics.median(waits)):>10} {ms(statistics.median(nowait)):>11} '
              f'{j["plan_mode"]:>10}')
    print('(ms; port-plain: median of the rounds\' differences (their range); min-min: the '
          'least port less the least plain; predicted: --plan all h2d_ns + d2h_ns; port '
          'model: fakedev\'s sum of the modelled times; port waits: what its copies took, '
          'median; port-nowait: the port less the port counting only (FAKEDEV_NOWAIT), median: '
          'its time on the link, without its copies\' own cost)')


if __name__ == '__main__':
    sys.exit(main())
