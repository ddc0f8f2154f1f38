"""tests/sketch_tolerance.py - identical.py's one allowance: a median from a sketch.

dyl-trace summary and dyl-model give a function's (or a (func, work) pair's) median
exactly up to 4096 calls and from a log-bucketed sketch past that, within 1 % + 0.5 ns
of the exact one (speedup/lib/util/qsketch.h).  Two outputs of the same command are
equal here when they differ only in the median column (summary's table, --csv and
--json; dyl-model's t_ns with --stat median, the default) and each median pair is
within that error (the table's, as shown to 3 digits: one unit of the last digit more).
Anything else that differs is a difference."""
import json
import re

ERROR = 0.01
UNITS = {'ns': 1, 'us': 1e3, 'ms': 1e6, 's': 1e9}


def close(a, b, shown=0.0):
    """A and B (ns) within the sketch's error of each other; SHOWN: the display's unit."""
    return abs(a - b) <= ERROR * max(a, b) + 0.5 + shown


def human(text):
    """'1.59 us' as (ns, one unit of its last digit in ns), or None."""
    m = re.fullmatch(r'\s*(\d+(?:\.(\d+))?) (ns|us|ms|s)\s*', text)
    if not m:
        return None
    unit = UNITS[m.group(3)]
    return float(m.group(1)) * unit, unit * 10 ** -len(m.group(2) or '')


def table_lines(a, b):
    """summary's table: the median column of each function's line, by the header."""
    la, lb = a.splitlines(), b.splitlines()
    if len(la) != len(lb):
        return False
    end = None
    for x, y in zip(la, lb):
        if x.startswith('function ') and ' median ' in x:
            end = x.index(' median') + len(' median')
            start = x.index(' min ') + len(' min')
        if x == y:
            continue
        if end is None or x[:start] + x[end:] != y[:start] + y[end:]:
            return False
        p, q = human(x[start:end]), human(y[start:end])
        if not p or not q or not close(p[0], q[0], max(p[1], q[1])):
            return False
    return True


def csv_lines(a, b, column):
    """A CSV whose header names COLUMN: only that field may differ, by the error."""
    la, lb = a.splitlines(), b.splitlines()
    if len(la) != len(lb):
        return False
    col = None
    for x, y in zip(la, lb):
        fx, fy = x.split(','), y.split(',')
        if column in fx:
            col = fx.index(column)
        if x == y:
            continue
        if col is None or len(fx) != len(fy) or len(fx) <= col:
            return False
        if fx[:col] + fx[col + 1:] != fy[:col] + fy[col + 1:]:
            return False
        try:
            if not close(float(fx[col]), float(fy[col])):
                return False
        except ValueError:
            return False
    return True


def json_medians(a, b):
    try:
        x, y = json.loads(a), json.loads(b)
    except ValueError:
        return False
    return same_but_medians(x, y)


def same_but_medians(x, y):
    if isinstance(x, dict) and isinstance(y, dict):
        if x.keys() != y.keys():
            return False
        for k in x:
            if k == 'median_ns' and isinstance(x[k], (int, float)) and \
                    isinstance(y[k], (int, float)):
                if not close(x[k], y[k]):
                    return False
            elif not same_but_medians(x[k], y[k]):
                return False
        return True
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(same_but_medians(p, q) for p, q in zip(x, y))
    return x == y


def tolerable(cmd, a, b):
    """Do the outputs A and B (status, stdout, stderr, file) of CMD differ only in
    medians, within the sketch's error?"""
    if a[0] != b[0] or a[2] != b[2] or a[3] != b[3]:
        return False
    out_a, out_b = a[1].decode(errors='replace'), b[1].decode(errors='replace')
    tool, args = cmd[0], cmd[1:]
    if tool == 'dyl-trace' and args[:1] == ['summary'] and '--by-callsite' not in args:
        if '--json' in args:
            return json_medians(out_a, out_b)
        if '--csv' in args:
            return csv_lines(out_a, out_b, 'median_ns')
        return table_lines(out_a, out_b)
    if tool == 'dyl-model' and '--stat' not in args:
        return csv_lines(out_a, out_b, 't_ns')
    return False
