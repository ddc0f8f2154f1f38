"""std.flow with one call reaching many heap blocks (an array of pointers to rows):
every block the region table holds for the call has its write, with std.diff too (std.flow
kept the first 64 of a call's regions for std.diff's changes: rows past those lost their
writes), and a call past the table's regions is counted in a '#' line of the trace."""
import os

import pytest

from dyltest import Trace, build_c, c_library, run_both, wrap
import flowread

HERE = os.path.dirname(os.path.abspath(__file__))
C_FILES = os.path.join(HERE, 'apps')
CAP = 192	# DYL_GROUPS * 3 / 4 (runtime/regions/regions.h, charge.c)


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('many')
    lib, h = c_library(d, 'many', os.path.join(C_FILES, 'many.h'),
                       os.path.join(C_FILES, 'libmany.c'))
    app = build_c(d, os.path.join(C_FILES, 'manyapp.c'), 'manyapp', f'-I{d}', lib,
                  f'-Wl,-rpath,{d}')
    plain = wrap(d, '--lib', lib, '--header', h, '-g', 'std.flow')
    diff = wrap(d, '--lib', lib, '--header', h, '-g', 'std.flow', '-g', 'std.diff',
                name='wrap_diff.so')
    return d, app, plain, diff


def rows_written(built, w, n):
    """the trace, and the 64-byte heap blocks fill_rows wrote (ACCESS W [0, 64))"""
    d, app, _, _ = built
    _, tp = run_both([app, str(n)], w, d, trace=f'many{n}-{os.path.basename(w)}.csv')
    t = Trace(tp)
    head, recs = flowread.read(tp + '.flow')
    size = {r['obj_id']: r['size'] for r in recs if r['type'] == 'OBJECT'}
    written = {r['obj_id'] for r in recs if r['type'] == 'ACCESS' and r['rw'] == 'W'
               and size.get(r['obj_id']) == 64 and (r['lo'], r['hi']) == (0, 64)}
    return t, written


@pytest.mark.parametrize('which', ['plain', 'diff'])
def test_every_row_written(built, which):
    """100 rows (more than 64): each one's write is in TRACE.flow, and nothing is capped"""
    w = built[2] if which == 'plain' else built[3]
    t, written = rows_written(built, w, 100)
    assert len(written) == 100
    assert 'flow_capped_calls' not in t.meta


@pytest.mark.parametrize('which', ['plain', 'diff'])
def test_regions_past_the_table_counted(built, which):
    """250 rows: the table holds the array and the first CAP - 1 rows; the call is
    counted in the trace's '# flow_capped_calls=' line"""
    w = built[2] if which == 'plain' else built[3]
    t, written = rows_written(built, w, 250)
    assert len(written) == CAP - 1
    assert t.meta['flow_capped_calls'].split()[0] == '1'
