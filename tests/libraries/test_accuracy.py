"""make accuracy's harness (bench/accuracy/run.py) at tiny scale (--quick: a few calls per
library, seconds): the exact sizes its --defs files give for calls worked out by hand, a
table of finite numbers for every library and method, results.json, the charts; std.diff
reported as 'not available' when dyliberator lacks it, and measured when it is there (a
stand-in with std.regions' code, from DYL_MICROGEN_PATH, takes its place here).  Nothing
asserts an accuracy: the real runs are make accuracy, their numbers in BENCHMARKS.md."""
import csv
import importlib.util
import json
import math
import os
import re

import pytest

from dyltest import DYLIBERATOR, ROOT, run

RUN = os.path.join(ROOT, 'bench', 'accuracy', 'run.py')
NUM = r'[-+]?[0-9]+'


def harness():
    spec = importlib.util.spec_from_file_location('accuracy_run', RUN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def rows(path, funcs):
    """The rows of the calls of FUNCS at depth 0 (the wrappers trace the app's other calls
    into the library too)."""
    with open(path, newline='') as f:
        return [r for r in csv.DictReader(line for line in f if not line.startswith('#'))
                if r['func'] in funcs and r['depth'] == '0']


def has_diff():
    return re.search(r'^std\.diff\b', run([DYLIBERATOR, '--list-microgens']).stdout, re.M) is not None


def test_errors_arithmetic():
    h = harness()
    s = h.stats([3, -4, 0, 0])
    assert s['points'] == 4 and s['rms'] == pytest.approx(2.5) and s['mean'] == pytest.approx(-0.25)
    assert s['max_abs'] == 4 and s['exact'] == 0.5 and s['median_abs'] == 1.5
    assert h.stats([])['rms'] is None
    expected = {('f', 0): (10, 20, ''), ('g', 1): (5, 0, '')}
    points, missing = h.compare(expected, {('f', 0): (12, 20, ''), ('g', 1): (None, None, '')})
    assert missing == 1
    assert [(p[2], p[4] - p[3]) for p in points] == [('input', 2), ('output', 0)]
    with pytest.raises(SystemExit):     # other calls in the estimating run
        h.compare(expected, {('f', 0): (1, 1, ''), ('g', 2): (1, 1, '')})
    assert h.case_of_call('x\ncase a 0 2\ncase b 2 1\nchecksum=1\n', 3) == {0: 'a', 1: 'a', 2: 'b'}
    with pytest.raises(SystemExit):     # the app's own count of its calls differs from the trace
        h.case_of_call('case a 0 2\n', 3)
    assert h.short_args("m=0x7ffc1(*=4) c=0x5555 k=0x7ffc2(*=9) inl=16", ('m', 'inl')) == 'm=4 inl=16'


def test_read_trace_numbers_the_measured_calls(tmp_path):
    """The wrappers also trace the app's other calls into the library (and calls inside
    it): the measured functions' calls at depth 0 are numbered by their order, which is
    the app's own count of them (case lines), whatever seq the other calls took."""
    t = tmp_path / 't.csv'
    t.write_text('# dyliberator trace 1\nseq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args\n'
                 '0,1,init,0,1,8,8,,0,\n'
                 '3,1,upd,0,1,30,40,,0,x=1\n'
                 '1,1,upd,0,1,10,20,,0,x=0\n'
                 '2,1,upd,0,1,99,99,,1,\n'
                 '4,1,fin,0,1,,,,0,\n')
    assert harness().read_trace(str(t), {'upd', 'fin'}) == {
        ('upd', 0): (10, 20, 'x=0'), ('upd', 1): (30, 40, 'x=1'), ('fin', 2): (None, None, '')}


def test_accuracy_quick(tmp_path):
    out = tmp_path / 'acc'
    r = run(['/usr/bin/python3', RUN, '--quick', '--out', str(out)])
    data = json.loads((out / 'results.json').read_text())
    assert set(data['libraries']) == {'blas', 'openssl', 'jpeg'}

    # the expected sizes are exact: calls worked out by hand
    blas = rows(out / 'traces' / 'blas-expected.csv', {'dgemm_'})
    # heap:NN:4x4x4:0: A and B read (2 x 16 doubles), 42 B of scalars behind pointers and
    # two size_t lengths; C (16 doubles) written only
    assert (blas[0]['in_bytes'], blas[0]['out_bytes']) == (str(32 * 8 + 42 + 16), str(16 * 8))
    # heap:NT:16x8x12:1: A 16x12, B 8x12, C 16x8 read (beta 1) and written
    assert (blas[1]['in_bytes'], blas[1]['out_bytes']) == (str((192 + 96 + 128) * 8 + 58), str(128 * 8))
    evp = [(x['func'], int(x['in_bytes']), int(x['out_bytes'])) for x in rows(
        out / 'traces' / 'openssl-expected.csv', {'EVP_EncryptUpdate', 'EVP_EncryptFinal_ex', 'EVP_DecryptUpdate',
                                                  'EVP_DecryptFinal_ex'})]
    # msg:16: 16 B in and out plus inl / *outl and the int returned; the padded block
    # comes out of EncryptFinal; decrypting 32 B holds the last block back until the Final
    assert evp[:4] == [('EVP_EncryptUpdate', 20, 24), ('EVP_EncryptFinal_ex', 0, 24),
                       ('EVP_DecryptUpdate', 36, 24), ('EVP_DecryptFinal_ex', 0, 8)]
    jpeg = rows(out / 'traces' / 'jpeg-expected.csv', {'jpeg_write_scanlines', 'jpeg_read_scanlines'})
    # the app's other calls were traced too (the wrapper of what it imports)
    assert {'jpeg_start_compress', 'jpeg_start_decompress'} <= {
        r['func'] for r in rows(out / 'traces' / 'jpeg-diff.csv' if has_diff() else out / 'traces' / 'jpeg-regions.csv',
                                {'jpeg_start_compress', 'jpeg_start_decompress'})}
    # 16x8x3 in one call of 8 rows: 8 row pointers and 8 rows of 48 samples, num_lines in,
    # the JDIMENSION returned out
    assert (jpeg[0]['func'], jpeg[0]['in_bytes'], jpeg[0]['out_bytes']) == (
        'jpeg_write_scanlines', str(8 * (8 + 48) + 4), '4')

    diff = has_diff()
    for name, lib in data['libraries'].items():
        assert lib['calls'] > 0, name
        reg = lib['methods']['regions']
        assert reg['status'] == 'ok'
        for d in ('input', 'output', 'both'):
            s = reg['stats'][d]
            assert s['points'] == (2 * lib['calls'] if d == 'both' else lib['calls']) - reg['no_estimate']
            assert all(math.isfinite(s[k]) for k in ('rms', 'mean', 'median_abs', 'max_abs', 'exact')), (name, d, s)
            assert s['rms'] <= s['max_abs'] and abs(s['mean']) <= s['rms'] + 1e-9
            # the kinds of buffer split the points: whole regions and region-end cases
            parts = [reg['by_buffer'][g][d] for g in ('whole', 'region_end')]
            assert sum(x['points'] for x in parts) == s['points'], (name, d, parts)
            assert abs(math.sqrt(sum(x['points'] * (x['rms'] or 0) ** 2 for x in parts) / s['points'])
                       - s['rms']) < 1e-6 * (1 + s['rms'])
        assert (out / reg['svg']).read_text().startswith('<svg')
        assert lib['methods']['diff']['status'] == ('ok' if diff else 'not available')

    # the printed table: a row of numbers per library, method and direction
    for name in ('blas', 'openssl', 'jpeg'):
        for d in ('input', 'output', 'both'):
            assert re.search(rf'^\| {name} \| std\.regions \(fast method\) \| {d} \| [0-9]+ \| {NUM} \| {NUM} \| '
                             rf'{NUM} \| {NUM} \| [0-9]+ % \|$', r.stdout, re.M), (name, d)
        if not diff:
            assert re.search(rf'^\| {name} \| std\.diff \(full method\) \| - \| - \| not available \|', r.stdout, re.M)
    assert (out / 'table.md').read_text().strip() in r.stdout
    assert sorted(os.listdir(out)) == sorted(
        ['apps', 'wrappers', 'traces', 'work', 'table.md', 'results.json']
        + ['%s-%s.svg' % (n, m) for n in ('blas', 'openssl', 'jpeg') for m in (('regions', 'diff') if diff else ('regions',))])


def test_accuracy_measures_std_diff_when_there(tmp_path):
    """A stand-in std.diff (std.regions' template under that name, with block and typed
    parameters) from DYL_MICROGEN_PATH: the harness finds it, passes --block and --typed,
    and measures it like std.regions (same code, same numbers)."""
    mg = tmp_path / 'mg' / 'std.diff'
    mg.mkdir(parents=True)
    (mg / 'microgen.toml').write_text(
        'summary = "a stand-in: std.regions under another name"\nrequires = ["std.trace"]\n'
        'around = ["std.time", "std.papi"]\n[params.block]\ndefault = "8"\nhelp = "bytes"\n'
        '[params.lengths]\ndefault = "auto"\nhelp = "as std.regions"\n'
        '[params.typed]\ndefault = "on"\nchoices = ["on", "off"]\nhelp = "stale words"\n')
    template = open(os.path.join(ROOT, 'microgens', 'std.regions', 'template.c.j2')).read()
    (mg / 'template.c.j2').write_text(template.replace(
        '{% macro prefix(f, p) %}', '{% macro prefix(f, p) %}\n/* stand-in block={{ p.block }} typed={{ p.typed }} */', 1))
    out = tmp_path / 'acc'
    env = dict(os.environ, DYL_MICROGEN_PATH=str(tmp_path / 'mg'))
    run(['/usr/bin/python3', RUN, '--quick', '--only', 'blas', '--block', '16', '--typed', 'off', '--out', str(out)],
        env=env)
    data = json.loads((out / 'results.json').read_text())
    m = data['libraries']['blas']['methods']
    assert m['diff']['status'] == 'ok' and m['diff']['microgen'] == 'std.diff'
    assert m['diff']['stats'] == m['regions']['stats']
    assert 'stand-in block=16 typed=off' in (out / 'wrappers' / 'blas-diff.d' / 'wrap.c').read_text()
    assert (out / 'blas-diff.svg').exists()
