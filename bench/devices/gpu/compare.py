#!/usr/bin/python3
"""Predicted against measured: a device description's kernel times next to a measured model.

    bench/devices/gpu/compare.py MEASURED.csv [--device NAME] [--speedup BIN]

MEASURED.csv is a model file with a bytes column (func,work,t_ns,...,bytes[,shape]), as
bench/devices/gpu/run.sh writes it in models/measured/.  Each row's (func, work, bytes) is
predicted by `bin/dyl-speedup --device NAME --json` (default nvidia-h200), the kernel
alone, from a trace made of the rows (one call each; no data flow, so no transfers).  That
is the time `bin/dyl-model --device NAME -f FUNC` writes for the same call: its rows
follow each kernel's typical call (square matrices), where the two agree; the trace gives
every other shape (thin products, LU, Cholesky) its own bytes.

Prints a markdown table, one row per kernel and size, then one per kernel: the median and
the range of the error, error = (predicted - measured) / measured, in %.  Exit 2 on a bad
file (one line naming it).  Standard library only.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TRACE_HEADER = 'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work'


class BadFile(Exception):
    pass


def read_measured(path):
    """The rows (func, work, t_ns, bytes, shape) of a measured model, in file order."""
    rows, header = [], None
    with open(path, newline='') as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip() or line.startswith('#'):
                continue
            fields = next(csv.reader([line]))
            if header is None:
                header = fields
                if header[:3] != ['func', 'work', 't_ns'] or 'bytes' not in header:
                    raise BadFile(f'{path}:{lineno}: header must start func,work,t_ns and name bytes')
                continue
            rec = dict(zip(header, fields))
            try:
                work, t_ns, nbytes = (float(rec[k]) for k in ('work', 't_ns', 'bytes'))
            except (KeyError, ValueError):
                raise BadFile(f'{path}:{lineno}: work, t_ns and bytes must be numbers') from None
            rows.append((rec['func'], work, t_ns, nbytes, rec.get('shape', '')))
    if header is None:
        raise BadFile(f'{path}: no header line')
    return rows


def predict(rows, device, speedup):
    """{(func, work, bytes): predicted ns} from dyl-speedup --device --json."""
    lines, start = [TRACE_HEADER], 0
    for i, (func, work, t_ns, nbytes, _) in enumerate(rows):
        lines.append(f'{i},1,{func},{start},{t_ns:.0f},{nbytes:.0f},0,{work:.0f}')
        start += int(t_ns) + 1000
    lines.append(f'# total_ns={2 * start + 1}')
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, 'measured.csv')
        with open(trace, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        r = subprocess.run([speedup, '--json', trace, '--device', device],
                           capture_output=True, text=True)
    if r.returncode:
        sys.exit(f'compare.py: {speedup} --device {device} failed: {r.stderr.strip()}')
    out = {}
    for k in json.loads(r.stdout)['kernels']:
        for w, b, f in k.get('shapes', []):
            out[k['func'], float(w), float(b)] = f
    return out


def fmt_us(ns):
    return f'{ns / 1000:.1f}' if ns >= 100000 else f'{ns / 1000:.2f}'


def table(rows, pred, device):
    """The markdown lines: per kernel and size, then per kernel."""
    out = [f'Predicted by `{device}` against measured (kernel alone); error = (predicted - measured) / measured.',
           '', '| kernel | shape | work (flop) | bytes | measured us | predicted us | error % |',
           '| --- | --- | ---: | ---: | ---: | ---: | ---: |']
    errors = {}
    for func, work, t_ns, nbytes, shape in rows:
        p = pred.get((func, work, nbytes))
        err = None if p is None or t_ns <= 0 else 100.0 * (p - t_ns) / t_ns
        if err is not None:
            errors.setdefault(func, []).append(err)
        out.append(f'| `{func}` | {shape or "-"} | {work:.0f} | {nbytes:.0f} | {fmt_us(t_ns)} | '
                   f'{"-" if p is None else fmt_us(p)} | {"-" if err is None else f"{err:+.1f}"} |')
    out += ['', '| kernel | points | median error % | from | to |', '| --- | ---: | ---: | ---: | ---: |']
    for func, errs in errors.items():
        out.append(f'| `{func}` | {len(errs)} | {statistics.median(errs):+.1f} | '
                   f'{min(errs):+.1f} | {max(errs):+.1f} |')
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog='example: bench/devices/gpu/compare.py '
                                        'models/measured/nvidia-h200-2026-12-01.csv --device nvidia-h200')
    ap.add_argument('measured')
    ap.add_argument('--device', default='nvidia-h200')
    ap.add_argument('--speedup', default=os.path.join(ROOT, 'bin', 'dyl-speedup'))
    args = ap.parse_args()
    try:
        rows = read_measured(args.measured)
    except (OSError, BadFile) as e:
        print(f'compare.py: {e}', file=sys.stderr)
        return 2
    print('\n'.join(table(rows, predict(rows, args.device, args.speedup), args.device)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
