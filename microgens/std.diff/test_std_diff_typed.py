"""std.diff's typed look (typed=on, the default): in a stack array the program declares
double (its debug information says so), an element that changed to a subnormal, a NaN
with a payload or the stack protector's canary is what an earlier frame left there, not
input.  A program (built with -g) calls reference BLAS dgemm_ on three 24x24 stack
arrays filled in one corner; before each product another function leaves its own words
where those arrays will be, as printf's frames do between two calls of an application:
integers and addresses, or the canaries and return addresses of a recursion, or plain
doubles.  The first two are not counted with typed=on and are with typed=off; doubles
are counted either way."""
import os

import pytest

from dyltest import EXAMPLES, REF_BLAS, Trace, build_c, run_both, wrap

APP = r'''
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blas.h"

#define MAX 24
#define WORDS (3 * MAX * MAX + 64)	/* over the three arrays of product's frame */
static volatile long sink;

/* integers, addresses and negative integers, as a printf's frames leave */
__attribute__((noinline)) static void ints(int seed)
{
	volatile long w[WORDS];
	for (int i = 0; i < WORDS; i++)
		w[i] = i % 3 == 0 ? (long)i * seed : i % 3 == 1 ? (long)&w[i] : -(long)i - seed;
	sink = w[seed];
}

/* a recursion's frames: each a canary (built with -fstack-protector-all), a return
 * address, saved registers, and two words of its own */
__attribute__((noinline)) static long frames(int depth)
{
	volatile long w[2] = { depth, -depth };
	long r = depth > 0 ? frames(depth - 1) : 0;
	return r + w[0] + w[1];
}

/* numbers: indistinguishable from the program's own doubles */
__attribute__((noinline)) static void doubles(int seed)
{
	volatile double w[WORDS];
	for (int i = 0; i < WORDS; i++)
		w[i] = seed + i * 0.25;
	sink = (long)w[seed];
}

static double fresh(void)
{
	static unsigned long s = 88172645463325252ul;
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return 0.5 + (double)(s >> 11) * 0x1p-53;
}

/* C = A B + C, each M x M in a corner of its 24 x 24 array */
__attribute__((noinline)) static void product(int m)
{
	double a[MAX * MAX], b[MAX * MAX], c[MAX * MAX];
	char t = 'N';
	int n = m, k = m, ld = m;
	double alpha = 1.0, beta = 1.0;
	for (int i = 0; i < m * m; i++) {
		a[i] = fresh();
		b[i] = fresh();
		c[i] = fresh();
	}
	dgemm_(&t, &t, &m, &n, &k, &alpha, a, &ld, b, &ld, &beta, c, &ld, 1, 1);
	sink = (long)c[m * m - 1];
}

int main(int argc, char **argv)
{
	for (int i = 2; i < argc; i++) {
		int m = atoi(argv[i]);
		if (!strcmp(argv[1], "ints"))
			ints(m);
		else if (!strcmp(argv[1], "frames"))
			sink = frames(300 + 7 * m);	/* its words at other places each time */
		else
			doubles(m);
		product(m);
		printf("%d\n", m);
	}
	return 0;
}
'''
SIZES = (2, 5, 9, 16)


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('typed')
    app = build_c(d, APP, 'typed', f'-I{EXAMPLES}', '-fstack-protector-all', REF_BLAS,
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
    # the corners; at most the ten scalars behind pointers (33 bytes in 8-byte blocks
    # clipped to each variable: 1 + 4 * 4 + 2 * 8); and, under the recursion, a few
    # words that hold numbers (saved registers that were zero: zero is a number; the
    # digits printf left)
    slack = 33 + (16 * 8 if what == 'frames' else 0)
    for m, got, stale in zip(SIZES, on, off):
        assert matrices(m) <= got <= matrices(m) + slack, (m, on)
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
