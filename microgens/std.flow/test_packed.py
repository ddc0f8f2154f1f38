"""std.flow's compact events (doc/specs/flow.md): packed accesses (2 words where the
region id, lo and hi are below 2^32): an access 4.5 GiB into a mapping keeps the 4-word
form, one at its start the packed one, and TRACE.flow has both ranges exact; a call
repeating the accesses of the call before last (two buffers in turn) is one word, and
TRACE.flow still has each call's accesses."""
import os

from dyltest import build_c, c_library, run_both, wrap
import flowread

HERE = os.path.dirname(os.path.abspath(__file__))
C_FILES = os.path.join(HERE, 'apps')
OFF = 9 << 29	# 4.5 GiB


def test_offsets_past_4_gib(tmp_path):
    lib, h = c_library(tmp_path, 'fl', os.path.join(C_FILES, 'fl.h'),
                       os.path.join(C_FILES, 'libfl.c'))
    app = build_c(tmp_path, os.path.join(C_FILES, 'bigoff.c'), 'bigoff', f'-I{tmp_path}', lib,
                  f'-Wl,-rpath,{tmp_path}')
    w = wrap(tmp_path, '--lib', lib, '--header', h, '-g', 'std.flow')
    _, tp = run_both([app], w, tmp_path, trace='big.csv')
    head, recs = flowread.read(tp + '.flow')
    big = {r['obj_id'] for r in recs if r['type'] == 'OBJECT' and r['size'] == 5 << 30}
    assert len(big) == 1
    acc = [(r['seq'], r['rw'], r['lo'], r['hi']) for r in recs
           if r['type'] == 'ACCESS' and r['obj_id'] in big]
    assert sorted(acc) == [(0, 'W', OFF, OFF + 800), (1, 'R', OFF, OFF + 800),
                           (2, 'W', 0, 800), (3, 'R', 0, 800)]


def test_two_buffers_in_turn(tmp_path):
    lib, h = c_library(tmp_path, 'fl', os.path.join(C_FILES, 'fl.h'),
                       os.path.join(C_FILES, 'libfl.c'))
    app = build_c(tmp_path, os.path.join(C_FILES, 'turns.c'), 'turns', f'-I{tmp_path}', lib,
                  f'-Wl,-rpath,{tmp_path}')
    w = wrap(tmp_path, '--lib', lib, '--header', h, '-g', 'std.flow')
    _, tp = run_both([app], w, tmp_path, trace='turns.csv')
    head, recs = flowread.read(tp + '.flow')
    a, b = sorted(r['obj_id'] for r in recs if r['type'] == 'OBJECT' and r['size'] == 800)
    acc = sorted((r['seq'], r['obj_id'], r['rw'], r['lo'], r['hi']) for r in recs
                 if r['type'] == 'ACCESS' and r['obj_id'] in (a, b))
    want = [(0, a, 'W'), (1, b, 'W'), (2, a, 'R'), (3, b, 'R'), (4, a, 'R'), (5, b, 'R'),
            (6, a, 'R'), (7, b, 'R'), (7, a, 'W'), (8, a, 'R'), (8, b, 'W'), (9, b, 'R'),
            (9, a, 'W'), (10, a, 'R'), (10, b, 'W'), (12, b, 'R')]
    assert acc == sorted((s, o, rw, 0, 800) for s, o, rw in want)
