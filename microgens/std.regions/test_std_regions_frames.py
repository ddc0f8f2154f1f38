"""A call's stack frames are the last call's when its return addresses are the same at
the same places (runtime/regions/stackframe.c, frames()): so a program calling from one place
is not unwound again, and a program whose frames change is charged by the new ones:
calls from two callers in turn, at the depths of a recursion, from a frame of varying
size (a VLA), with and without debug information."""
import pytest

from dyltest import Trace, app_with_and_without_debug_info, run_both, wrap

HEADER = 'double take(const double *x);\n'
SOURCE = 'double take(const double *x) { return x[0]; }\n'
APP = r'''
#include <stdio.h>
#include "fr.h"

static volatile double sink;

/* two callers with arrays of different sizes, called in turn: the same take() call
 * place in each, two chains of frames */
__attribute__((noinline)) static double small(int k)
{
	double a[5];
	for (int i = 0; i < 5; i++)
		a[i] = k + i;
	__asm__ volatile("" : : "r"(a) : "memory");
	return take(a);
}

__attribute__((noinline)) static double big(int k)
{
	double b[50];
	for (int i = 0; i < 50; i++)
		b[i] = k + i;
	__asm__ volatile("" : : "r"(b) : "memory");
	return take(b);
}

/* the same code at several depths: a 3-double array in each frame, the call made from
 * the deepest one with a pointer to the outermost one's */
__attribute__((noinline)) static double deep(int depth, const double *outer)
{
	double c[3] = { depth, depth + 1, depth + 2 };
	__asm__ volatile("" : : "r"(c) : "memory");
	if (depth == 0)
		return take(outer ? outer : c);
	return deep(depth - 1, outer ? outer : c) + c[0];
}

/* a VLA: the frame's size changes from call to call */
__attribute__((noinline)) static double vla(int n)
{
	double v[n];
	for (int i = 0; i < n; i++)
		v[i] = i;
	__asm__ volatile("" : : "r"(v) : "memory");
	return take(v);
}

int main(void)
{
	double s = 0;
	for (int k = 0; k < 3; k++)
		s += small(k) + big(k);
	for (int d = 1; d <= 4; d++)
		s += deep(d, NULL);
	for (int k = 0; k < 2; k++)
		s += vla(4) + vla(40);
	printf("%.1f\n", s);
	return 0;
}
'''


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('frames')
    lib, h, apps = app_with_and_without_debug_info(d, 'fr', HEADER, SOURCE, APP)
    w = wrap(d, '--lib', lib, '--header', h, '-g', 'std.regions')
    return d, apps, w


def inputs(built, app):
    d, apps, w = built
    run_both([apps[app]], w, d, trace=f'{app}.csv')
    return [int(x['in_bytes']) for x in Trace(d / f'{app}.csv').by_seq()]


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
