"""TRACE.flow version 2 (issue 38): ACCESS records packed in ACCESSES records
(doc/specs/flow.md), a repeated access in one byte.  The tools read a file with them
exactly as the same file with plain ACCESS records (version 1, still read), and refuse a
damaged one in one line."""
import os
import subprocess
import sys

import pytest

from dyltest import ROOT, make

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flowfile import HEAP, access, accesses, flow_file, free, obj, trace_csv  # noqa: E402

DYL_FLOW = os.path.join(ROOT, 'bin', 'dyl-flow')
# A produces 3 blocks, B and C read them in turn, 40 rounds: (seq, obj, lo, hi, write)
ROUNDS = 40
CALLS = [(0, 'A', 0, 100)] + [(1 + i, 'BC'[i % 2], 200 + 300 * i, 100) for i in range(2 * ROUNDS)]
ACC = [(0, o, 0, 1024, 1) for o in range(3)] + \
    [(1 + i, i % 3, 0, 512 << (i % 2), 0) for i in range(2 * ROUNDS)] + [(2 * ROUNDS, 1, 8, 16, 0)]


@pytest.fixture(scope='module', autouse=True)
def built():
    make('bin/dyl-flow')


def write(tmp_path, name, records, version):
    path = tmp_path / name
    path.write_text(trace_csv(CALLS))
    births = [obj(o, HEAP, 1024) for o in range(3)]
    frees = [free(o, len(CALLS)) for o in range(3)]
    data = flow_file(births + records + frees, nseq=len(CALLS), version=version)
    (tmp_path / (name + '.flow')).write_bytes(data)
    return str(path), len(data)


def dyl_flow(*args, rc=0):
    r = subprocess.run([DYL_FLOW, *map(str, args)], capture_output=True, text=True, timeout=60)
    assert r.returncode == rc, r.stderr
    return r


@pytest.mark.parametrize('mode', ['', '--objects', '--calls', '--edges', '--json'])
def test_packed_accesses_read_as_plain_ones(tmp_path, mode):
    """the same accesses, plain (version 1) and packed in two ACCESSES records (the
    slots kept from one to the next): the same output.  84 accesses take 4,032 bytes
    plain (48 each), 152 packed: the 10 distinct ones spelled out (tag, object, lo,
    length: 49 bytes), the 74 repeats in one byte each, two records' heads (12 bytes
    each) and padding"""
    plain, plain_size = write(tmp_path, 'plain.csv', [access(*a) for a in ACC], 1)
    slots = {}
    packed, packed_size = write(tmp_path, 'packed.csv',
                                [accesses(ACC[:30], 0, slots), accesses(ACC[30:], ACC[29][0], slots)], 2)
    assert plain_size - packed_size == 48 * len(ACC) - 152
    args = [mode] if mode else []
    a = dyl_flow(*args, plain).stdout.replace('plain.csv', 'X')
    b = dyl_flow(*args, packed).stdout.replace('packed.csv', 'X')
    assert a == b and a


def test_a_damaged_packed_record_is_one_line(tmp_path):
    """an entry naming an empty slot: the file and the record named, exit 2"""
    bad = accesses([(0, 0, 0, 1024, 1)])
    bad = bad[:12] + bytes([0x05]) + bad[13:]     # a slot never filled
    path, _ = write(tmp_path, 'bad.csv', [bad], 2)
    r = dyl_flow(path, rc=2)
    assert r.stderr == f'dyl-flow: {path}.flow: record 4 (offset 200): ACCESSES: entry names ' \
        'slot 5, empty\n'
