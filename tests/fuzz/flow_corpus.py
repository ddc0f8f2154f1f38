#!/usr/bin/python3
"""Writes fuzz_flow's checked-in corpus (tests/fuzz/corpus/flow/): TRACE.flow files made
by hand (tests/tools/flowfile.py), each after the byte that picks fuzz_flow.c's trace
(0: seqs 0-5; 1: nested calls; 2: seqs with a gap and one near 2^32).
Usage: flow_corpus.py [DIR]"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tools'))
from flowfile import HEAP, STATIC, access, flow_file, free, host_write, obj, resize, site  # noqa: E402

F_DIFF, F_HOST_READS = 1, 8


def host_read(seq, obj_id, lo, hi, how=0):
    return struct.pack('<II', 7, 40) + struct.pack('<QQQQQ', seq, obj_id, lo, hi, how)


CASES = {
    # every record type over the six calls of trace 0
    'all-types': (0, flow_file([
        site(0, 'make (t.c:5) <- main (t.c:20)', pcs=(0x401000, 0x401100)),
        obj(0, HEAP, 4096, 0, birth_seq=0, addr=0x10000), obj(1, STATIC, 8, name='n'),
        access(0, 0, 0, 4096, True), access(0, 1, 0, 8, False), access(1, 0, 0, 2048, False),
        host_write(2, 0, 100, 200), host_read(2, 0, 0, 64), access(2, 0, 0, 4096, True),
        resize(0, 8192, 3, 1), access(3, 0, 0, 8192, False), host_read(4, 0, 0, 8192, 2),
        free(0, 5)], nseq=6, flags=F_DIFF | F_HOST_READS)),
    'nested': (1, flow_file([
        site(0, 'main (n.c:1)'), obj(0, HEAP, 100, 0),
        access(0, 0, 0, 100, True), access(3, 0, 0, 100, False)], nseq=4, flags=F_DIFF)),
    'seq-gap': (2, flow_file([
        site(0, 'main (g.c:1)'), obj(0, HEAP, 64, 0), access(1, 0, 0, 64, True),
        access(7, 0, 0, 64, False), access(4294967290, 0, 0, 32, True),
        host_read(4294967291, 0, 0, 64)], nseq=4294967291, flags=F_HOST_READS)),
    # the attack of issue 33, item 11: a head that says 200,000,000 calls
    'nseq-huge': (0, flow_file([
        site(0, 'main (h.c:1)'), obj(0, HEAP, 64, 0), access(0, 0, 0, 64, True),
        access(1, 0, 0, 64, False)], nseq=200000000)),
    'empty': (0, flow_file([], nseq=6)),
}


def main(out):
    os.makedirs(out, exist_ok=True)
    for name, (trace, data) in CASES.items():
        with open(os.path.join(out, name + '.flow'), 'wb') as f:
            f.write(bytes([trace]) + data)


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else
         os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus', 'flow'))
