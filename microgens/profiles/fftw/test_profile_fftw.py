"""The fftw profile (microgens/profiles/fftw): with no --defs, each plan binds its arrays
and its work (5 N log2 N complex, 2.5 N log2 N real, times howmany) and each execute
reads and writes them.  apps/fft_sizes.c plans a 1-D complex, a 1-D r2c, a batch of 4
complex transforms and a single-precision complex one, and executes each REPS times."""
import math
import os
import re

from dyltest import Trace, run_both
from microgens.profiles.profiletest import built as build, needs, rows_of

HERE = os.path.dirname(os.path.abspath(__file__))

pytestmark = needs('/usr/include/fftw3.h', 'libfftw3-dev')


built = build('fft_sizes', os.path.join(HERE, 'apps', 'fft_sizes.c'),
              ['-lfftw3', '-lfftw3f', '-lm'], ['libfftw3.so.3', 'libfftw3f.so.3'])


def executes(tp, func):
    return sorted(set(rows_of(tp, func)))


def test_1024_points(built):
    d, app, w = built
    _, tp = run_both([app, '1024', '3'], w, d, trace='n1024.csv')
    tr = Trace(tp)
    assert tr.count('fftw_execute') == 9 and tr.count('fftwf_execute') == 3
    assert executes(tp, 'fftw_execute') == [
        (1024 * 8, 513 * 16, 25600),        # r2c: 1024 doubles in, 513 complex out, 2.5 N log2 N
        (1024 * 16, 1024 * 16, 51200),      # complex: 5 * 1024 * 10
        (4 * 1024 * 16, 4 * 1024 * 16, 4 * 51200)]   # plan_many_dft, howmany = 4
    assert executes(tp, 'fftwf_execute') == [(1024 * 8, 1024 * 8, 51200)]
    # the plans themselves have no work (their time is kept)
    assert {r['work'] for r in tr.rows if r['func'].startswith('fftw_plan')} == {''}


def test_work_of_a_size_not_a_power_of_two(built):
    d, app, w = built
    _, tp = run_both([app, '1000', '1'], w, d, trace='n1000.csv')
    works = sorted(e[2] for e in executes(tp, 'fftw_execute'))
    assert works == [round(2.5 * 1000 * math.log2(1000)), round(5 * 1000 * math.log2(1000)),
                     round(4 * 5 * 1000 * math.log2(1000))]


def test_single_precision_defs_are_the_double_ones_renamed():
    dbl = open(os.path.join(HERE, 'fftw.defs')).read()
    sgl = open(os.path.join(HERE, 'fftwf.defs')).read()
    body = dbl[dbl.index('// --- complex'):]
    assert sgl[sgl.index('// --- complex'):] == re.sub(r'\bfftw_', 'fftwf_', body).replace(
        'sizeof(double)', 'sizeof(float)')
