"""The spool's records (runtime/format/dyl_spool.h): a call's byte counts and counters
are packed in 32 bits when they fit, and in 64 when one does not; depth, id and duration
move into the payload when the record's own fields cannot hold them.  Each row must read
back exactly what the call set, whichever way it was stored."""
import os
import pytest

from dyltest import Trace, c_app, c_library, run_both, wrap

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'records')
HEADER = os.path.join(C_FILES, 'rec.h')
# rec calls itself through its address as the dynamic linker binds it (the GOT: the
# wrapper's rec), so each level is a wrapped call one deeper; a direct call could become a
# loop
SOURCE = os.path.join(C_FILES, 'librec.c')
APP = os.path.join(C_FILES, 'app.c')
# For the depth-0 calls, k picks sizes on both sides of what 32 bits hold: UINT32_MAX - 1
# fits, UINT32_MAX is the packed "none" and must not be read as one, negative values and
# 2^32 and beyond do not fit; k = 5 sets only input_size (the others stored as none).
DEFS = r'''
librec*::rec::postfix {
    if (n == 0 && k < 8) {
        static const long long in[8] = { 0, 1, 4294967294LL, 4294967295LL, 4294967296LL, 7, -1, 1LL << 40 };
        input_size = in[k];
        if (k != 5) {
            output_size = k * 1000;
            work_size = k == 4 ? -5 : 3 * k;
        }
    }
}
'''


def expected(k):
    ins = [0, 1, 4294967294, 4294967295, 4294967296, 7, -1, 1 << 40]
    if k == 5:      # no output; work: the converter's default, bytes in + out
        return '7', '', '7'
    return str(ins[k]), str(k * 1000), str(-5 if k == 4 else 3 * k)


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('records')
    lib, h = c_library(d, 'rec', HEADER, SOURCE)
    (d / 'rec.defs').write_text(DEFS)
    return d, lib, h, c_app(d, 'app', APP, lib)


@pytest.mark.parametrize('clock', ['tsc', 'thread'])
def test_sizes_and_depths_read_back(built, clock):
    d, lib, h, app = built
    args = ['--lib', lib, '--header', h, '--defs', str(d / 'rec.defs'), '-g', 'std.faults']
    if clock == 'thread':
        args += ['-g', 'std.time:clock=thread']
    w = wrap(d, *args, name=f'rec-{clock}.so')
    deep = 300      # beyond the 255 levels a record's own depth field holds
    _, tp = run_both([app, str(deep)], w, d, trace=f'rec-{clock}.csv')
    rows = Trace(tp).by_seq()
    assert len(rows) == 8 + deep + 1
    for k, r in enumerate(rows[:8]):
        assert (r['in_bytes'], r['out_bytes'], r['work']) == expected(k), (k, r)
        assert r['depth'] == '0' and r['faults'] != ''
    chain = rows[8:]
    assert [int(r['depth']) for r in chain] == list(range(deep + 1))
    # nested calls lie inside their callers, whichever field held their duration: in
    # time on the wall clock; in thread CPU time a callee's duration is the lesser (its
    # start is a wall-clock time, and the thread may have lost its core in between)
    for outer, inner in zip(chain, chain[1:]):
        assert int(outer['t_start_ns']) <= int(inner['t_start_ns'])
        if clock == 'tsc':
            assert int(inner['t_start_ns']) + int(inner['t_ns']) <= int(outer['t_start_ns']) + int(outer['t_ns'])
        else:
            assert int(inner['t_ns']) <= int(outer['t_ns'])
    assert all(r['in_bytes'] == '' and r['work'] == '' for r in chain)
