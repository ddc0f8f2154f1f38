"""dyl-model: a model (func,work,t_ns,samples) from traces of the alternative
implementation.  Hand-made traces with the answers worked out in the comments, bad input,
and a round trip: a run redirected to OpenBLAS -> dyl-model -> dyl-speedup."""
import json
import os
import re
import subprocess

import pytest

from dyltest import EXAMPLES, REF_BLAS, Trace, build_c, make, run as run_cmd, wrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, 'bin', 'dyl-model')
SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')
HEADER = 'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth'


@pytest.fixture(scope='module', autouse=True)
def built():
    make('bin/dyl-model', 'bin/dyl-speedup')


def trace(tmp_path, name, rows, total_ns=10_000):
    """ROWS: (func, t_ns, work, depth); work None = empty."""
    lines = ['# dyliberator trace 1', HEADER]
    for seq, (func, t, work, depth) in enumerate(rows):
        w = '' if work is None else work
        lines.append(f'{seq},7,{func},{seq * 1000},{t},,,{w},{depth}')
    lines.append(f'# total_ns={total_ns}')
    path = tmp_path / name
    path.write_text('\n'.join(lines) + '\n')
    return str(path)


def dyl_model(*args, check=True):
    r = subprocess.run([MODEL, *args], capture_output=True, text=True)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def rows(out):
    """The model's rows (after its '#' line and header) as tuples of text."""
    lines = [l for l in out.splitlines() if not l.startswith('#')]
    assert lines[0] == 'func,work,t_ns,samples'
    return [tuple(l.split(',')) for l in lines[1:]]


@pytest.fixture
def two(tmp_path):
    a = trace(tmp_path, 'a.csv', [
        ('dgemm_', 10, 100, 0), ('dgemm_', 30, 100, 0), ('dgemm_', 20, 100, 0),
        ('dgemm_', 50, 200, 0), ('dgemm_', 70, 200, 0),
        ('daxpy_', 5, 8, 0), ('daxpy_', 6, None, 0), ('daxpy_', 6, None, 0),
        ('ddot_', 9, 16, 1),                       # nested: left out by default
    ])
    b = trace(tmp_path, 'b.csv', [
        ('dgemm_', 40, 100, 0), ('dgemm_', 61, 200, 0), ('ddot_', 3, 16, 0),
    ])
    return a, b


def test_medians_of_several_traces(two):
    a, b = two
    r = dyl_model(a, b)
    # dgemm_ at 100: 10 30 20 | 40 -> 10 20 30 40, an even count: (20 + 30) / 2 = 25
    # dgemm_ at 200: 50 70 | 61 -> 50 61 70: 61.  daxpy_ 8: 5.  ddot_ 16: 3 (9 is nested)
    assert rows(r.stdout) == [('daxpy_', '8', '5', '1'), ('ddot_', '16', '3', '1'),
                              ('dgemm_', '100', '25', '4'), ('dgemm_', '200', '61', '3')]
    assert r.stdout.startswith(f'# dyl-model: median t_ns per (func, work) of depth-0 calls, from {a} {b}\n')
    assert r.stderr == ('dyl-model: left out 1 nested calls (depth >= 1; --all-depths keeps them)\n'
                        'dyl-model: left out 2 calls without a work size (empty work column: give '
                        "the wrapper one, --defs with 'work_size = ...;' in a postfix block, or -g "
                        'std.regions, whose bytes in + out are the work)\n')


def test_half_nanoseconds_all_depths_and_statistics(two, tmp_path):
    a, b = two
    # ddot_ at 16 with the nested call: 9 and 3 -> (3 + 9) / 2 = 6
    assert ('ddot_', '16', '6', '2') in rows(dyl_model(a, b, '--all-depths').stdout)
    odd = trace(tmp_path, 'half.csv', [('f', 10, 1, 0), ('f', 21, 1, 0)])
    assert rows(dyl_model(odd).stdout) == [('f', '1', '15.5', '2')]      # (10 + 21) / 2
    # mean: (10+30+20+40)/4 = 25, (50+70+61)/3 = 60.33 -> 60.3; min: 10 and 50
    mean = dict(((f, w), t) for f, w, t, _ in rows(dyl_model(a, b, '--stat', 'mean').stdout))
    assert mean[('dgemm_', '100')] == '25' and mean[('dgemm_', '200')] == '60.3'
    low = dict(((f, w), t) for f, w, t, _ in rows(dyl_model('--stat', 'min', a, b).stdout))
    assert low[('dgemm_', '100')] == '10' and low[('dgemm_', '200')] == '50'
    # clipped: short calls, the mean of the calls at most 10 x the median.  10 10 20 10 5000: the
    # median is 10, 5000 (a preempted call) is left out, the slow 20 is kept: 50/4 = 12.5
    # (mean 1010, median 10)
    spiky = trace(tmp_path, 'spiky.csv', [('f', t, 1, 0) for t in (10, 10, 20, 10, 5000)])
    assert rows(dyl_model('--stat', 'clipped', spiky).stdout) == [('f', '1', '12.5', '5')]
    assert rows(dyl_model('--stat', 'mean', spiky).stdout) == [('f', '1', '1010', '5')]
    assert dyl_model('--stat', 'clipped', spiky).stdout.startswith('# dyl-model: clipped t_ns per')
    # long calls: a time slice is left out where it is under 10 x the median.  Median 3.6 ms:
    # over 3 x (10.8 ms) goes, a slow 7.2 ms stays: (5 * 3.6 + 7.2) / 6 = 4.2 ms.  Median
    # 200 us: over 1 ms above it (1.2 ms) goes, 5 x (1 ms) stays: (4 * 200 + 1000) / 5 = 360 us
    ms = 1000000
    slice_ = trace(tmp_path, 'slice.csv', [('g', t, 1, 0) for t in (36 * ms // 10,) * 5 + (72 * ms // 10, 34 * ms)] +
                   [('h', t, 2, 0) for t in (200000,) * 4 + (1000000, 1500000)])
    assert rows(dyl_model('--stat', 'clipped', slice_).stdout) == [('g', '1', '4200000', '7'), ('h', '2', '360000', '6')]


def test_function_filter_and_min_samples(two):
    a, b = two
    assert [r[0] for r in rows(dyl_model(a, b, '-f', 'dgemm_').stdout)] == ['dgemm_', 'dgemm_']
    assert [r[0] for r in rows(dyl_model(a, b, '-f', '!dgemm_').stdout)] == ['daxpy_', 'ddot_']
    assert [r[0] for r in rows(dyl_model(a, b, '-f', 'd*', '-f', '!ddot_').stdout)] == \
        ['daxpy_', 'dgemm_', 'dgemm_']
    r = dyl_model(a, b, '--min-samples', '3')
    assert rows(r.stdout) == [('dgemm_', '100', '25', '4'), ('dgemm_', '200', '61', '3')]
    assert 'left out 2 (func, work) pairs with fewer than 3 samples (--min-samples)' in r.stderr


def test_nothing_to_model_is_an_error(two):
    a, _ = two
    r = dyl_model(a, '-f', 'zgemm_', check=False)
    assert r.returncode == 1 and r.stdout == ''
    assert r.stderr.splitlines()[-1] == ('dyl-model: nothing to model: of 9 calls read, none is '
                                         'kept (not selected by -f, or left out above)')


@pytest.mark.parametrize('row, line, message', [
    ('3,7,f,0,10,,', 4, r'malformed row: 7 fields, the header has 9'),
    ('3,7,f,0,-10,,,5,0', 4, r't_ns'),
    ('3,7,f,0,10,,,five,0', 4, r'work'),
    ('3,7,f,0,,,,5,0', 4, r't_ns is empty'),
])
def test_bad_rows_name_file_and_line(tmp_path, row, line, message):
    path = tmp_path / 'bad.csv'
    path.write_text(f'# dyliberator trace 1\n{HEADER}\n0,7,f,0,10,,,5,0\n{row}\n# total_ns=9\n')
    r = dyl_model(str(path), check=False)
    assert r.returncode == 2 and r.stdout == ''
    assert len(r.stderr.splitlines()) == 1, r.stderr
    assert re.match(f'^dyl-model: {re.escape(str(path))}:{line}: .*{message}', r.stderr), r.stderr


def test_calls_without_work_point_at_defs_and_regions(tmp_path):
    path = tmp_path / 'nowork.csv'
    path.write_text(f'{HEADER}\n0,7,f,0,10,,,,0\n1,7,f,20,10,,,,0\n# total_ns=99\n')
    r = dyl_model(str(path), check=False)
    assert r.returncode == 1 and r.stdout == ''
    assert ("left out 2 calls without a work size (empty work column: give the wrapper one, "
            "--defs with 'work_size = ...;' in a postfix block, or -g std.regions") in r.stderr


def test_a_column_named_twice_is_an_error(tmp_path):
    path = tmp_path / 'dup.csv'
    path.write_text(f'{HEADER},work\n0,7,f,0,10,,,5,0,5\n# total_ns=99\n')
    r = dyl_model(str(path), check=False)
    assert r.returncode == 2 and r.stdout == ''
    assert r.stderr == f"dyl-model: {path}:1: column 10 repeats column 8's name, 'work'\n"


def test_bad_files_and_options(tmp_path, two):
    a, _ = two
    r = dyl_model(str(tmp_path / 'none.csv'), check=False)
    assert r.returncode == 2
    assert r.stderr == f'dyl-model: {tmp_path / "none.csv"}: cannot open: No such file or directory\n'
    m = tmp_path / 'model.csv'
    m.write_text('func,work,t_ns\ndgemm_,1,2\n')
    r = dyl_model(str(m), check=False)
    assert r.returncode == 2 and re.match(rf'^dyl-model: {re.escape(str(m))}:1: not a trace', r.stderr)
    for args, text in [(('--stat', 'mode'), '--stat mode: choose median, mean, clipped or min'),
                       (('--min-samples', '0'), '--min-samples 0: give a whole number >= 1'),
                       (('--frobnicate',), "unknown option '--frobnicate'"),
                       ((), 'no trace given')]:
        r = dyl_model(*(args + ((a,) if args else ())), check=False)
        assert r.returncode == 2 and text in r.stderr, (args, r.stderr)
    # last on the line: an unknown option is still unknown; a known one lacks its value
    for opt, text in [('--foo', "unknown option '--foo'"), ('--stat', "a value must follow '--stat'")]:
        r = dyl_model(a, opt, check=False)
        assert r.returncode == 2 and text in r.stderr, (opt, r.stderr)
    assert 'dyl-speedup base.csv openblas.csv' in dyl_model('--help').stdout


def test_dyl_speedup_reads_the_model(two, tmp_path):
    """The samples column and the '#' line are read as they are.  Baseline: dgemm_ at 100
    (t = 100) and at 200 (t = 200), T = 1000; the model gives 25 and 61, so P = 0.3,
    predicted 86 ns, S_P = 300 / 86."""
    a, b = two
    model = tmp_path / 'm.csv'
    model.write_text(dyl_model(a, b, '-f', 'dgemm_').stdout)
    base = trace(tmp_path, 'base.csv', [('dgemm_', 100, 100, 0), ('dgemm_', 200, 200, 0)], 1000)
    r = subprocess.run([SPEEDUP, base, str(model), '--json'], capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == '', r.stderr
    k = json.loads(r.stdout)['kernels'][0]
    assert (k['func'], k['calls'], k['t_ns']) == ('dgemm_', 2, 300)
    assert k['predicted_ns'] == pytest.approx(86) and k['S_P'] == pytest.approx(300 / 86)


# --- a real redirected run ----------------------------------------------------------

OPENBLAS = '/usr/lib/x86_64-linux-gnu/openblas-serial/libopenblas.so.0'


def test_round_trip_from_a_redirected_run(tmp_path):
    """matmul_mix (40 small products at 16, 24, 32, 40, and 3 at 120) redirected to
    OpenBLAS -> dyl-model -> dyl-speedup of the baseline trace: the model has every size
    with its number of calls, and dyl-speedup predicts each baseline call with it."""
    d = str(tmp_path)
    common = ('--lib', REF_BLAS, '--header', os.path.join(EXAMPLES, 'blas.h'),
              '--defs', os.path.join(EXAMPLES, 'blas.defs'), '-f', 'dgemm_')
    base_so = wrap(d, *common, name='base.so')
    alt_so = wrap(d, *common, '-g', f'std.redirect:lib={OPENBLAS}', name='alt.so')
    app = build_c(d, os.path.join(EXAMPLES, 'apps', 'matmul_mix.c'), 'matmul_mix', REF_BLAS,
                  f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')
    for name, so in (('alt', alt_so), ('base', base_so)):
        env = dict(os.environ, LD_PRELOAD=so, DYL_TRACE=os.path.join(d, f'{name}.csv'))
        run_cmd([app, '40', '120'], env=env, cwd=d)
    alt = Trace(os.path.join(d, 'alt.csv'))
    assert 'redirect' in alt.meta and alt.count('dgemm_') == 43
    r = dyl_model(os.path.join(d, 'alt.csv'))
    assert r.stderr == ''
    model = rows(r.stdout)
    flops = {n: 2 * n ** 3 for n in (16, 24, 32, 40, 120)}
    assert [(f, int(w), int(s)) for f, w, _, s in model] == \
        [('dgemm_', flops[n], 10 if n < 100 else 3) for n in (16, 24, 32, 40, 120)]
    # each model time is the median of the redirected calls at that size
    for _, w, t, _ in model:
        ts = sorted(int(row['t_ns']) for row in alt.rows if row['work'] == w)
        assert float(t) == (ts[len(ts) // 2] if len(ts) % 2 else (ts[len(ts) // 2 - 1] + ts[len(ts) // 2]) / 2)
    with open(os.path.join(d, 'model.csv'), 'w') as fh:
        fh.write(r.stdout)
    out = subprocess.run([SPEEDUP, os.path.join(d, 'base.csv'), os.path.join(d, 'model.csv'),
                          '--json'], capture_output=True, text=True)
    assert out.returncode == 0 and out.stderr == '', out.stderr
    k = json.loads(out.stdout)['kernels'][0]
    base = Trace(os.path.join(d, 'base.csv'))
    at = {int(w): float(t) for _, w, t, _ in model}
    assert k['calls'] == 43 and k['out_of_range_calls'] == 0
    assert k['predicted_ns'] == pytest.approx(sum(at[int(row['work'])] for row in base.rows))


def test_setup_from_the_traces_load_times(tmp_path):
    """std.redirect's '# redirect_load_ns=' (loading the alternative library) becomes the
    model's '# setup_ns=', the least over the traces (the others waited on the disk);
    dyl-speedup reads it back."""
    paths = []
    for i, load in enumerate([3000, 1000, 2000, 9000]):
        p = trace(tmp_path, f't{i}.csv', [('f', 10, 5, 0)])
        text = open(p).read().replace('# dyliberator trace 1\n',
                                      f'# dyliberator trace 1\n# redirect_load_ns={load}\n')
        open(p, 'w').write(text)
        paths.append(p)
    out = dyl_model(*paths).stdout
    assert re.search(r'^# setup_ns=1000 .*least of 4 traces, most 9000', out, re.M), out
    m = tmp_path / 'm.csv'
    m.write_text(out)
    r = subprocess.run([os.path.join(ROOT, 'bin', 'dyl-speedup'), '--json', paths[0], str(m)],
                       capture_output=True, text=True)
    assert json.loads(r.stdout)['setup_ns'] == 1000
    # without the note, no setup line
    assert 'setup_ns' not in dyl_model(trace(tmp_path, 'plain.csv', [('f', 10, 5, 0)])).stdout


# --- page faults: a sweep's first touches are not the accelerator's cost ---

def fault_trace(tmp_path, name, rows):
    """ROWS: (func, t_ns, work, faults[, in_bytes]); faults None = an empty field."""
    lines = ['# dyliberator trace 1', HEADER + ',args,faults']
    for seq, r in enumerate(rows):
        func, t, work, faults = r[:4]
        b = r[4] if len(r) > 4 else ''
        lines.append(f'{seq},7,{func},{seq * 1000},{t},{b},,{work},0,,'
                     f'{"" if faults is None else faults}')
    lines.append('# total_ns=100000')
    path = tmp_path / name
    path.write_text('\n'.join(lines) + '\n')
    return str(path)


@pytest.fixture
def faulted(tmp_path):
    return fault_trace(tmp_path, 'f.csv', [
        ('aes', 100, 16, 0), ('aes', 300, 16, 1), ('aes', 110, 16, 0), ('aes', 310, 16, 2),
        ('aes', 120, 16, 0),
        ('aes', 400, 32, 1), ('aes', 420, 32, 1),     # every call at 32 faulted
        ('aes', 200, 64, 0), ('aes', 260, 64, None),  # an empty field: kept, as without the column
    ])


def test_faulted_calls_are_left_out_where_fault_free_ones_exist(faulted):
    # 16: fault-free 100 110 120 -> 110 (3 samples; the faulted 300 310 are left out)
    # 32: only faulted calls: kept, 400 420 -> 410 (2)
    # 64: 200 and the unmeasured 260 -> (200 + 260) / 2 = 230 (2)
    r = dyl_model(faulted)
    assert rows(r.stdout) == [('aes', '16', '110', '3'), ('aes', '32', '410', '2'),
                              ('aes', '64', '230', '2')]
    assert r.stderr == ('dyl-model: left out 2 calls that took page faults (their work sizes have '
                        'fault-free calls; --keep-faults keeps them); 2 calls at 1 work sizes without '
                        'a fault-free call are kept\n')
    assert ('\n# page faults: calls that took them are left out where their work size has '
            'fault-free calls (2 left out); 2 kept at 1 work sizes without a fault-free call\n') in r.stdout
    # --keep-faults: 16 is 100 110 120 300 310 -> 120 (5)
    r = dyl_model(faulted, '--keep-faults')
    assert rows(r.stdout) == [('aes', '16', '120', '5'), ('aes', '32', '410', '2'),
                              ('aes', '64', '230', '2')]
    assert r.stderr == 'dyl-model: kept 4 calls that took page faults (--keep-faults)\n'
    assert '# page faults: calls that took them are samples like the others (--keep-faults; 4 of them)' in r.stdout
    # --min-samples counts what is left: only 16 has 3
    assert rows(dyl_model(faulted, '--min-samples', '3').stdout) == [('aes', '16', '110', '3')]


def test_faults_by_shape_with_bytes(tmp_path):
    # --bytes: (16, 100) has a fault-free call (50), so its faulted 90 is left out;
    # (16, 200) has only a faulted call (80): kept.
    t = fault_trace(tmp_path, 'b.csv', [('aes', 50, 16, 0, 100), ('aes', 90, 16, 1, 100),
                                        ('aes', 80, 16, 1, 200)])
    r = dyl_model('--bytes', t)
    lines = [l for l in r.stdout.splitlines() if not l.startswith('#')]
    assert lines == ['func,work,t_ns,samples,bytes', 'aes,16,50,1,100', 'aes,16,80,1,200']
    assert 'left out 1 calls that took page faults (their shapes have fault-free calls' in r.stderr
    assert '1 calls at 1 shapes without a fault-free call are kept' in r.stderr


def test_only_faulted_calls_at_a_size_are_kept(tmp_path):
    # every call at 16 faulted (or said nothing): nothing better, all are samples:
    # 300 310 and the unmeasured 200 -> 300 (3); none is left out
    t = fault_trace(tmp_path, 'k.csv', [('aes', 300, 16, 1), ('aes', 200, 16, None),
                                        ('aes', 310, 16, 2)])
    r = dyl_model(t)
    assert rows(r.stdout) == [('aes', '16', '300', '3')]
    assert r.stderr == 'dyl-model: 2 calls at 1 work sizes without a fault-free call are kept\n'


def test_no_faults_column_no_faults_line(two):
    a, _ = two
    r = dyl_model(a)
    assert 'page faults' not in r.stdout and 'page faults' not in r.stderr


@pytest.mark.parametrize('value,why', [('-2', 'faults is negative (-2)'), ('many', "faults is not a number ('many')")])
def test_bad_faults_value(tmp_path, value, why):
    t = fault_trace(tmp_path, 'bad.csv', [('aes', 100, 16, 0), ('aes', 100, 16, value)])
    r = dyl_model(t, check=False)
    assert r.returncode == 2 and r.stdout == ''
    assert r.stderr == f'dyl-model: {t}:4: {why}\n'


def test_the_model_without_faults_predicts_faulted_calls_with_their_excess(faulted, tmp_path):
    # The model made above (16 -> 110) against a program whose aes calls at 16 took 200
    # fault-free and 500 faulted: 110 and 110 + (500 - 200) = 410.  T = 100000:
    # predicted = 520, sum t = 700.
    m = tmp_path / 'm.csv'
    m.write_text(dyl_model(faulted).stdout)
    app = fault_trace(tmp_path, 'app.csv', [('aes', 200, 16, 0), ('aes', 500, 16, 4)])
    r = subprocess.run([SPEEDUP, '--json', app, str(m)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res['t_ns'] == 700 and res['predicted_ns'] == 520 and res['fault_kept_ns'] == 300
