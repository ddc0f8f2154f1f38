"""make validate's harness (bench/validate/run.py) runs end to end on a tiny configuration
(one round, every app and sweep scaled down): the table names every scenario with numbers,
results.json holds them, the charts are written.  Nothing here asserts a time or an
accuracy: the full harness's numbers are in BENCHMARKS.md."""
import json
import math
import os
import re
import sys

import pytest

from dyltest import ROOT, run

RUN = os.path.join(ROOT, 'bench', 'validate', 'run.py')
NUM = r'-?[0-9.]+(e[-+]?[0-9]+)?'


def test_median_interval_and_verdict():
    # order statistics: 9 rounds -> the 2nd smallest and 2nd largest (P(B(9, 1/2) <= 1)
    # = 10/512 <= 2.5 %); 5 rounds are too few for 95 %
    sys.path.insert(0, os.path.dirname(RUN))
    import run as harness
    assert harness.median_interval([5, 1, 9, 3, 7, 2, 8, 4, 6]) == (2, 8)
    assert harness.median_interval(list(range(15))) == (3, 11)
    assert harness.median_interval([1, 2, 3, 4, 5]) is None
    assert harness.verdict((-2.9, 2.9)) == 'within 3 %'
    assert harness.verdict((-4.0, 1.0)) == 'cannot tell'
    assert harness.verdict((3.1, 9.0)) == 'outside 3 %' == harness.verdict((-9.0, -3.1))
    assert harness.verdict(None) == 'too few rounds'


def test_validate_tiny(tmp_path):
    out = tmp_path / 'validate'
    r = run(['/usr/bin/python3', RUN, '--runs', '1', '--scale', '0.01', '--out', str(out)])
    data = json.loads((out / 'results.json').read_text())
    names = [s['name'] for s in data['scenarios']]
    assert len(names) >= 7
    assert any(n.startswith('dgemm') for n in names) and any(n.startswith('AES') for n in names)
    table = r.stdout.split('Error sources:')[0]
    for s in data['scenarios']:
        # the scenario's first row: predicted and measured (median (range)), then the
        # error, the error taken apart (T, T') and the error with tracing's cost left in
        row = next(line for line in table.splitlines() if line.startswith('| ' + s['name'] + ' |'))
        cells = [c.strip() for c in row.strip('|').split('|')]
        for c in cells[4:6]:
            assert re.fullmatch(f'{NUM} \\({NUM}-{NUM}\\)( cpu| wall)?', c), row
        for c in cells[6:7] + cells[10:13]:
            assert re.fullmatch(f'[-+]{NUM} %', c), row
        assert re.fullmatch(f'[-+]{NUM} % \\([-+]{NUM}..[-+]{NUM}\\)', cells[7]), row
        # one round: no interval for the median, and the verdict says why
        assert cells[8:10] == ['-', 'too few rounds'], row
        m = next(iter(s['models'].values()))
        assert m['paired_interval'] is None
        # the parts multiply back to the error (of the medians over the rounds)
        assert (1 + s['T_vs_run']) / (1 + m['T_pred_vs_run']) == pytest.approx(1 + m['err_corrected'] / 100, rel=1e-6)
        assert s['models'], s['name']
        for m in s['models'].values():
            assert all(math.isfinite(x) for x in m['raw'] + m['corrected'])
            assert os.path.exists(out / m['file'])
        assert math.isfinite(s['measured'][0]) and s['measured'][0] > 0
    # a CPU switch (AES-NI): the time outside the kernels split by where it falls, from
    # the runs with every EVP_* function traced (Init, Final, DigestUpdate: other calls)
    aes = [s for s in data['scenarios'] if s['name'].startswith('AES')]
    split = r.stdout.split('by where it falls')[1]
    for s in aes:
        for side in ('base', 'accel'):
            ls = s['library_split'][side]
            assert ls['kernels_s'] > 0 and ls['other_calls_s'] > 0 and math.isfinite(ls['program_s']), s['name']
        assert '| %s | ' % s['name'] in split
        assert math.isfinite(next(iter(s['models'].values()))['err_side_lib'])
    assert (out / 'speedups.svg').read_text().startswith('<svg')
    assert len(list(out.glob('model-*.svg'))) == len(names)
