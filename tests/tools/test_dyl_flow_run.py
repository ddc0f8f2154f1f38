"""dyl-flow end to end: programs run under a wrapper built with -g std.flow, their
TRACE.flow read by dyl-flow, the answers worked out by hand.  std.flow's own scenario
program (microgens/std.flow/apps/app.c over libfl: produce writes a buffer, transform
reads one and writes another, consume reads one) gives the chain, realloc moving, free
before read and the program changing a buffer; tests/tools/flow_power.c the power
iteration over the reference BLAS."""
import json
import os
import shutil

import pytest

from flowrun import dyl_flow, edges, marked_site, rows

from dyltest import REF_BLAS, ROOT, build_c, c_library, make, run_both, wrap

FL_APPS = os.path.join(ROOT, 'microgens', 'std.flow', 'apps')
HERE = os.path.dirname(os.path.abspath(__file__))


def site(tag):
    """'app.c:LINE' of the allocation marked /* SITE TAG */ in std.flow's app.c."""
    return marked_site(os.path.join(FL_APPS, 'app.c'), tag)


@pytest.fixture(scope='module')
def fl(tmp_path_factory):
    make('bin/dyl-flow')
    d = tmp_path_factory.mktemp('fl')
    lib, h = c_library(d, 'fl', os.path.join(FL_APPS, 'fl.h'), os.path.join(FL_APPS, 'libfl.c'))
    app = build_c(d, os.path.join(FL_APPS, 'app.c'), 'app', f'-I{d}', lib,
                  f'-Wl,-rpath,{d}', '-lpthread')
    return d, app, wrap(d, '--lib', lib, '--header', h, '-g', 'std.flow'), lib, h


def scenario(fl, what, wrapper=None):
    d, app, w, _, _ = fl
    _, trace = run_both([app, what], wrapper or w, d, trace=f'{what}.csv')
    return trace


# produce(a) writes 100 doubles, transform(a, b) reads them and writes b, consume(b)
# reads b: 800 B on each edge, each byte once and fresh; nothing from the program.
def test_chain(fl):
    assert edges(scenario(fl, 'chain')) == {('produce', 'transform'): (800, 800, 800),
                                            ('transform', 'consume'): (800, 800, 800)}


# produce writes 16 doubles (128 B); realloc moves the block to 800000 B; consume reads
# the 16 doubles there: they still come from produce, one object of 800000 B, one move.
def test_realloc_moving(fl):
    t = scenario(fl, 'grow')
    assert edges(t) == {('produce', 'consume'): (128, 128, 128)}
    objs = [r for r in rows(dyl_flow(t, '--objects')) if site('grow') in r['object']]
    assert len(objs) == 1
    assert (objs[0]['size'], objs[0]['moves'], objs[0]['prod_pct']) == ('800000', '1', '100.0')


# produce writes 800 B, the block is freed, no call read it: Prod % 0, Alloc % 100.
def test_free_before_read(fl):
    t = scenario(fl, 'free')
    assert edges(t) == {}
    o = [r for r in rows(dyl_flow(t, '--objects')) if site('free-first') in r['object']][0]
    assert (o['call_written'], o['alloc_pct'], o['prod_pct']) == ('800', '100.0', '0.0')


# produce writes 100 doubles; the program sets a[10..19]; consume reads all.  With
# std.diff the program's 80 B come from host, the other 720 from produce.
def test_program_changes_part_of_a_buffer(fl):
    d, _, _, lib, h = fl
    wd = wrap(d, '--lib', lib, '--header', h, '-g', 'std.flow', '-g', 'std.diff',
              name='wrap-diff.so')
    e = edges(scenario(fl, 'host', wd))
    assert e == {('produce', 'consume'): (720, 720, 720), ('host', 'consume'): (80, 80, 80)}


@pytest.fixture(scope='module')
def power(tmp_path_factory):
    make('bin/dyl-flow')
    d = tmp_path_factory.mktemp('power')
    app = build_c(d, os.path.join(HERE, 'flow_power.c'), 'power',
                  f'-I{os.path.join(ROOT, "examples")}', REF_BLAS,
                  f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')
    w = wrap(d, '--lib', REF_BLAS, '--header', os.path.join(ROOT, 'examples', 'blas.h'),
             '-g', 'std.flow')
    return d, app, w


# The matrix (64 x 64 doubles, 32768 B), filled by the program, is read by every
# dgemv_: over 10 and 20 steps, host -> dgemv_ bytes double while its unique bytes stay
# (the matrix, x and the scalar arguments); the matrix object's reads are steps x 32768.
def test_power_iteration(power):
    d, app, w = power
    got = {}
    for steps in (10, 20):
        _, t = run_both([app, '64', str(steps)], w, d, trace=f'p{steps}.csv')
        got[steps] = edges(t)[('host', 'dgemv_')]
        m = [r for r in rows(dyl_flow(t, '--objects')) if 'flow_power.c:12' in r['object']][0]
        assert (m['size'], m['call_read']) == ('32768', str(steps * 32768))
    assert got[10][1] == got[20][1] and 32768 < got[10][1] < 2 * 32768
    assert got[20][0] == 2 * got[10][0] == 20 * got[10][1]
    # the same run as JSON, DOT and SVG
    j = json.loads(dyl_flow(t, '--json'))['traces'][0]
    assert {e['producer'] for e in j['edges']} == {'host', 'dgemv_'}
    assert 'dgemv_' in dyl_flow(t, '--dot', '--via-objects')
    if shutil.which('dot'):
        dyl_flow(t, '--svg', os.path.join(d, 'power.svg'))
        assert '<svg' in open(os.path.join(d, 'power.svg')).read()
