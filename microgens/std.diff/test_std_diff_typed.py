"""std.diff's typed look (typed=on, the default): in a stack array the program declares
double (its debug information says so), an element that changed to a subnormal, a NaN
with a payload or the stack protector's canary is what an earlier frame left there, not
input.  A program (built with -g) calls reference BLAS dgemm_ on three 24x24 stack
arrays filled in one corner; before each product another function leaves its own words
where those arrays will be, as printf's frames do between two calls of an application:
integers and addresses, or the canaries and return addresses of a recursion laid over
such integers, or plain doubles (tests/apps/typed_frames.c).  The first two are not
counted with typed=on and are with typed=off; doubles are counted either way."""
import os

import pytest

from dyltest import EXAMPLES, REF_BLAS, TEST_APPS, Trace, build_c, run_both, wrap

SIZES = (2, 5, 9, 16)


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('typed')
    app = build_c(d, os.path.join(TEST_APPS, 'typed_frames.c'), 'typed', f'-I{EXAMPLES}',
                  '-fstack-protector-all', REF_BLAS,
                  f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')   # not the libblas.so.3 alternative
    head = ['--lib', REF_BLAS, '--header', os.path.join(EXAMPLES, 'blas.h'), '-f', 'dgemm_']
    return d, app, {t: wrap(d, *head, '-g', f'std.diff:typed={t}', name=f'{t}.so') for t in ('on', 'off')}


def inputs(built, what, typed):
    d, app, w = built
    _, tp = run_both([app, what, *map(str, SIZES)], w[typed], d, trace=f'{what}-{typed}.csv')
    rows = Trace(tp).by_seq()
    assert [r['func'] for r in rows] == ['dgemm_'] * len(SIZES)
    return [int(r['in_bytes']) for r in rows]


def matrices(m):
    """A, B and C's corners, all new; and the two hidden lengths passed by value"""
    return 3 * m * m * 8 + 16


@pytest.mark.parametrize('what', ['ints', 'frames'])
def test_what_dead_frames_leave_is_not_input(built, what):
    on, off = inputs(built, what, 'on'), inputs(built, what, 'off')
    # the corners; and at most the ten scalars behind pointers (33 bytes in 8-byte
    # blocks clipped to each variable: 1 + 4 * 4 + 2 * 8).  Every other word of the
    # arrays is one the program laid there (the recursion's unwritten alignment words
    # keep ints()'s integers): nothing libc left, which differs with the CPU and the
    # libc build (the dynamic linker's saved vector registers hold numbers)
    for m, got, stale in zip(SIZES, on, off):
        assert matrices(m) <= got <= matrices(m) + 33, (m, on)
        # without the typed look: most of the arrays' other 576 - m * m elements,
        # rewritten by the earlier frames
        assert stale >= got + 4 * (576 - m * m), (m, on, off)


def test_doubles_left_behind_still_count(built):
    """the typed look drops no number: a double left in an unfilled part counts, as
    it always did (a content method cannot tell it from the program's)"""
    on, off = inputs(built, 'doubles', 'on'), inputs(built, 'doubles', 'off')
    assert on == off
    for m, got in zip(SIZES, on):
        assert got >= matrices(m) + 8 * (576 - m * m), (m, on)
