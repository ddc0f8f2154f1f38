#!/usr/bin/python3
"""Writes a synthetic trace (and a model for it) to measure how fast dyl-speedup reads.

The trace looks like what the runtime writes for a LAPACK program: several threads, rows in
the order the calls *end* (an outer dgetrf_ after the dgemm_ calls it makes, at depth 1), a
quoted args column with commas in it, calls without a model (daxpy_, ddot_), and the
'# total_ns=N' footer.  Per block of 8 rows: dgetrf_ (modelled) with 2 nested dgemm_, 3
top-level dgemm_ (modelled), daxpy_, ddot_.

    /usr/bin/python3 bench/gen_trace.py -n 10000000 -o /tmp/big.csv --model /tmp/big-model.csv
    time bin/dyl-speedup /tmp/big.csv /tmp/big-model.csv models/example-pcie-gpu-dgemm.csv

--model2d writes a dgetrf_ model keyed on work and bytes (func,work,t_ns,bytes: the same
work sizes, each at bytes = work / 4, work and 4 work, the calls' in + out being their
work); without -o only the models are written.

--faults adds a faults column (std.faults) after args: one call in 8 took 1 to 4 page
faults, the others none (from a random stream of its own: the rest of the trace is the
same as without it).
"""
import argparse
import os
import random

HEADER = 'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('-n', '--rows', type=int, default=10_000_000, help='rows (about; whole blocks of 8)')
    ap.add_argument('-o', '--output', help='the trace to write')
    ap.add_argument('--threads', type=int, default=4)
    ap.add_argument('--model', help='also write a dgetrf_ model here')
    ap.add_argument('--model2d', help='also write a dgetrf_ model keyed on work and bytes here')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--faults', action='store_true', help='add a faults column')
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    frnd = random.Random(args.seed + 1)

    sizes = [32 * n * n for n in (8, 16, 32, 64, 128, 256)]
    blocks = max(1, args.rows // 8)
    tids = [4000 + i for i in range(args.threads)]
    clock = {tid: 1000 for tid in tids}
    seq = 0
    out = []
    with open(args.output or os.devnull, 'w') as f:
        f.write('# dyliberator trace 1\n# pid=4000\n# cmdline=./lu-bench\n# clock=monotonic\n')
        f.write(HEADER + (',faults\n' if args.faults else '\n'))
        for b in range(blocks if args.output else 0):
            tid = tids[b % len(tids)]
            t = clock[tid]
            w = sizes[b % len(sizes)]
            # dgetrf_ [t, t+5000) calling dgemm_ twice; rows of the inner calls come first
            rows = [
                ('dgemm_', t + 100, 1500, w, 1, ''),
                ('dgemm_', t + 2000, 1500, w, 1, ''),
                ('dgetrf_', t, 5000, w, 0, '"m=64, n=64, lda=64"'),
            ]
            t += 5100
            for _ in range(3):
                d = 800 + rnd.randrange(4000)
                rows.append(('dgemm_', t, d, w, 0, 'transa=N'))
                t += d + 50
            rows.append(('daxpy_', t, 300, '', 0, ''))
            t += 350
            rows.append(('ddot_', t, 200, '', 0, ''))
            t += 250
            clock[tid] = t
            for func, start, dur, work, depth, a in rows:
                fl = ''
                if args.faults:
                    fl = f',{frnd.randint(1, 4) if frnd.randrange(8) == 0 else 0}'
                out.append(f'{seq},{tid},{func},{start},{dur},{work},,{work},{depth},{a}{fl}\n')
                seq += 1
            if len(out) >= 80000:
                f.write(''.join(out))
                out.clear()
        f.write(''.join(out))
        # the threads' time added up: the run as if they ran one after another, so P < 1
        f.write(f'# total_ns={sum(clock.values()) + 1000}\n')
    if args.model:
        with open(args.model, 'w') as f:
            f.write('# synthetic dgetrf_ model for bench/gen_trace.py\nfunc,work,t_ns\n')
            for w in sizes:
                f.write(f'dgetrf_,{w},{2000 + w / 100:.1f}\n')
    if args.model2d:
        with open(args.model2d, 'w') as f:
            f.write('# synthetic dgetrf_ model keyed on work and bytes for bench/gen_trace.py\n'
                    'func,work,t_ns,bytes\n')
            for w in sizes:
                for b in (w // 4, w, 4 * w):
                    f.write(f'dgetrf_,{w},{2000 + w / 200 + b / 200:.1f},{b}\n')


if __name__ == '__main__':
    main()
