"""A call's stack frames are the last call's when its return addresses are the same at
the same places (runtime/regions/stackframe.c, frames()): so a program calling from one place
is not unwound again, and a program whose frames change is charged by the new ones:
calls from two callers in turn, at the depths of a recursion, from a frame of varying
size (a VLA), with and without debug information."""
import os
import pytest

from dyltest import Trace, app_with_and_without_debug_info, run_both, wrap

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'apps')
HEADER = os.path.join(C_FILES, 'fr.h')
SOURCE = os.path.join(C_FILES, 'libfr.c')
APP = os.path.join(C_FILES, 'frames_app.c')


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('frames')
    lib, h, apps = app_with_and_without_debug_info(d, 'fr', HEADER, SOURCE, APP)
    w = wrap(d, '--lib', lib, '--header', h, '-g', 'std.regions')
    return d, apps, w


def charged(setup, app):
    """(in_bytes, out_bytes) of each call of APP (its 'g' or 'stripped' build), run with
    and without SETUP's wrapper."""
    d, apps, w = setup
    run_both([apps[app]], w, d, trace=f'{app}.csv')
    return [(int(x['in_bytes']), int(x['out_bytes'])) for x in Trace(d / f'{app}.csv').by_seq()]


def inputs(built, app):
    return [i for i, _ in charged(built, app)]


def test_frames_change_with_the_caller(built):
    ins = inputs(built, 'g')
    # small() and big() in turn: 40 and 400 bytes, each time
    assert ins[:6] == [40, 400] * 3
    # deep(d): the outermost frame's 3 doubles, whatever the depth the call is made at
    assert ins[6:10] == [24] * 4
    # vla(4), vla(40) in turn: no variable of a fixed size, so the frame's data, at
    # least the array; the two sizes told apart every time
    v = ins[10:]
    assert v[0] == v[2] and v[1] == v[3], v
    assert 32 <= v[0] < 32 + 64 and 320 <= v[1] < 320 + 64, v


def test_frames_change_without_debug_information(built):
    ins = inputs(built, 'stripped')
    # by frames alone: each array to its frame's data end, the two callers told apart
    s, b = ins[0], ins[1]
    assert ins[:6] == [s, b] * 3 and 40 <= s < 40 + 64 and 400 <= b < 400 + 64, ins
    v = ins[10:]
    assert v[0] == v[2] and v[1] == v[3] and 32 <= v[0] < v[1], v


FORT_HEADER = os.path.join(C_FILES, 'fort.h')
FORT_SOURCE = os.path.join(C_FILES, 'libfort.c')
FORT_APP = os.path.join(C_FILES, 'fort_app.c')


@pytest.fixture(scope='module')
def fortran(tmp_path_factory):
    d = tmp_path_factory.mktemp('fortran')
    lib, h, apps = app_with_and_without_debug_info(d, 'fort', FORT_HEADER, FORT_SOURCE, FORT_APP)
    return d, apps, wrap(d, '--lib', lib, '--header', h, '-g', 'std.regions')


def test_scalars_by_reference_without_debug_information(fortran):
    """solve_(&s.n, s.b, &s.info) from a stripped frame (fort_app.c): each pointer ends
    at the next argument above it in the frame (b at &s.info, info at &s.n), and the
    highest one, n, a number of a Fortran-style routine (all by reference), is its own
    4 bytes, not the rest of the frame.  Input: n, 4 bytes; output: b and info, 36."""
    assert charged(fortran, 'stripped') == [(4, 32 + 4)] * 3


def test_scalars_by_reference_with_debug_information(fortran):
    """With -g the variable is known (stackvars.c): s, 40 bytes; the output from b to
    its end (n among it), the input n."""
    assert charged(fortran, 'g') == [(4, 40)] * 3
