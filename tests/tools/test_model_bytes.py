"""Models keyed on two sizes of a call, its work and the bytes it moves (a `bytes` column:
in_bytes + out_bytes): f(work, bytes) over the Delaunay triangulation of the samples.

The arithmetic is in u = log10(1 + v) for work, bytes and t alike (the code uses natural
logarithms: barycentric weights and ratios along an edge are the same in any base), so
the samples and the calls below sit at sizes 0, 9, 99, 999, 9999 (u = 0, 1, 2, 3, 4) and
every answer is 10^u - 1 for a u worked out by hand.  Each call gets a trace of its own,
so that dyl-speedup's per-process numbers give f of that one call."""
import json
import math
import os
import random
import subprocess

import pytest

from dyltest import build_c, make

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')
MODEL = os.path.join(ROOT, 'bin', 'dyl-model')
HEADER = 'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work'


@pytest.fixture(scope='module', autouse=True)
def built():
    make('bin/dyl-speedup', 'bin/dyl-model')


def v(u):
    """The size or time whose log10(1 + v) is u."""
    return 10 ** u - 1


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def model2d(tmp_path, samples, name='m.csv', header='func,work,t_ns,bytes'):
    """SAMPLES: (work, bytes, t) of function f, written in the order given."""
    cols = header.split(',')
    lines = [header]
    for w, b, t in samples:
        row = {'func': 'f', 'work': w, 't_ns': t, 'bytes': b, 'samples': 1}
        lines.append(','.join(str(row[c]) for c in cols))
    return write(tmp_path, name, '\n'.join(lines) + '\n')


def call_trace(tmp_path, name, work, in_bytes, out_bytes, t=1000):
    e = lambda x: '' if x is None else x  # noqa: E731
    return write(tmp_path, name, f'{HEADER}\n0,1,f,0,{t},{e(in_bytes)},{e(out_bytes)},{work}\n'
                                 '# total_ns=1000000\n')


def speedup(*args, check=True):
    r = subprocess.run([SPEEDUP, '--json', *args], capture_output=True, text=True)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def f_at(tmp_path, model, points):
    """f and out-of-range of one call at each (work, bytes) of POINTS (bytes as in_bytes)."""
    traces = [call_trace(tmp_path, f'c{i}.csv', w, b, 0) for i, (w, b) in enumerate(points)]
    res = json.loads(speedup(*traces, model).stdout)
    got = []
    for p in res['processes']:
        k = p['kernels'][0]
        assert k['calls'] == 1 and k['model_keys'] == 'work,bytes'
        got.append((k['predicted_ns'], k['out_of_range_calls'] == 1))
    return got


def near(a, b):
    return a == pytest.approx(b, rel=1e-9, abs=1e-9)


# One triangle in (u_work, u_bytes): A (0, 0) t 0, B (4, 0) t 9999, C (0, 4) t 99:
# u_t = u_w + u_b / 2 over it (the plane through u_t = 0, 4, 2).
TRIANGLE = [(0, 0, 0), (9999, 0, 9999), (0, 9999, 99)]


def test_inside_on_an_edge_on_a_corner(tmp_path):
    m = model2d(tmp_path, TRIANGLE)
    got = f_at(tmp_path, m, [
        (9999, 0),      # corner B: its own time
        (0, 9999),      # corner C
        (99, 0),        # on AB at u = (2, 0): u_t = 2
        (99, 99),       # on BC, its middle (2, 2): u_t = (4 + 2) / 2 = 3
        (9, 9),         # inside (1, 1): u_t = 1 + 1/2 = 1.5
        (9, 99),        # inside (1, 2): u_t = 1 + 1 = 2
    ])
    want = [9999, 99, 99, 999, v(1.5), 99]
    for (f, oor), w in zip(got, want):
        assert near(f, w) and not oor


def test_outside_the_hull_along_the_nearest_edge(tmp_path):
    m = model2d(tmp_path, TRIANGLE)
    got = f_at(tmp_path, m, [
        # (3, 3) is beyond BC (u_w + u_b = 4); its nearest point is BC's middle (2, 2):
        # the value there, u_t = 3
        (999, 999),
        # (5, 0) is beyond corner B on AB's line (its nearest point is B, and AB's line
        # passes through it, BC's does not): AB extended, u_t = u_w = 5 (a power law)
        (99999, 0),
        # (0, 5) beyond C on AC's line: u_t = u_b / 2 = 2.5
        (0, 99999),
    ])
    for (f, oor), w in zip(got, [999, 99999, v(2.5)]):
        assert near(f, w) and oor
    # and dyl-speedup says so: 3 calls outside, with the ranges of both sizes
    traces = [call_trace(tmp_path, f'o{i}.csv', w, b, 0) for i, (w, b) in
              enumerate([(999, 999), (99999, 0), (9, 9)])]
    res = json.loads(speedup(*traces, m).stdout)
    assert res['out_of_range_calls'] == 2
    note = next(n for n in res['notes'] if 'outside the model' in n)
    assert '2 replaced calls' in note and 'work 0..9999, bytes 0..9999' in note
    assert 'nearest edge' in note


def test_the_delaunay_diagonal(tmp_path):
    # A kite A (0, 2), B (2, 0), C (4, 2), D (2, 3), u_t 0 but 3 at D.  (2, 2) is on both
    # diagonals: on AC (u_t 0) and on BD two thirds up (u_t 2).  Delaunay takes BD: the
    # angles facing AC are 90 deg at B and 126.9 deg at D (cos = (-4 + 1) / 5), more than
    # 180 together; those facing BD are 71.6 deg at A and at C (cos = 2 / sqrt(40)).
    # So f = 10^2 - 1 = 99, not 0.
    m = model2d(tmp_path, [(0, 99, 0), (99, 0, 0), (9999, 99, 0), (99, 999, 999)])
    [(f, oor)] = f_at(tmp_path, m, [(99, 99)])
    assert near(f, 99) and not oor


def test_collinear_samples_are_a_chain(tmp_path):
    # All on u_w = u_b: no triangle; the model is the line through them, in order.
    m = model2d(tmp_path, [(999, 999, 999), (9, 9, 9), (99999, 99999, 9999)])
    got = f_at(tmp_path, m, [(99, 99), (9999, 9999), (9, 9), (0, 0), (99, 0)])
    # (2, 2) between (1, 1) u_t 1 and (3, 3) u_t 3: 2.  (4, 4) between (3, 3) and (5, 5),
    # u_t 3 and 4: 3.5.  (1, 1): a sample, 9.  (0, 0) is beyond (1, 1) on the line:
    # extrapolated, 1 - (1/2) 2 = 0.  (2, 0) projects onto the line at (1, 1), sqrt(2)
    # away: u_t 1, out of range.
    want = [(99, False), (v(3.5), False), (9, False), (0, True), (9, True)]
    for (f, oor), (w, o) in zip(got, want):
        assert near(f, w) and oor == o
    # one sample: a constant everywhere
    one = model2d(tmp_path, [(99, 99, 42)], name='one.csv')
    assert [(round(f, 9), o) for f, o in f_at(tmp_path, one, [(99, 99), (9, 0)])] == \
        [(42, False), (42, True)]


def test_duplicates_are_averaged_with_a_warning(tmp_path):
    # C given twice with 98 and 100: one sample of 99 (the mean), and a warning naming
    # the second line; the columns in another order, bytes found by its name.
    m = model2d(tmp_path, [(0, 0, 0), (9999, 0, 9999), (0, 9999, 98), (0, 9999, 100)],
                header='func,work,t_ns,samples,bytes')
    t = call_trace(tmp_path, 't.csv', 9, 9, 0)
    r = speedup(t, m)
    assert r.stderr == (f'dyl-speedup: {m}:5: warning: model \'f\' has 2 samples at work=0 '
                        f'bytes=9999 (first at line 4) with different t_ns: their mean 99 is used\n')
    assert near(json.loads(r.stdout)['predicted_ns'], v(1.5))


def test_bytes_is_in_plus_out(tmp_path):
    # in 50 + out 49 = 99; an empty side counts 0 (as the runtime adds them up for work);
    # both empty: not replaced, counted and said.
    m = model2d(tmp_path, TRIANGLE)
    a = call_trace(tmp_path, 'a.csv', 99, 50, 49)
    b = call_trace(tmp_path, 'b.csv', 99, None, 99)
    c = call_trace(tmp_path, 'c.csv', 99, None, None, t=700)
    res = json.loads(speedup(a, b, c, m).stdout)
    pp = [p['predicted_ns'] for p in res['processes']]
    assert near(pp[0], 999) and near(pp[1], 999) and pp[2] == 0
    k = res['kernels'][0]
    assert k['calls'] == 2 and k['no_bytes_calls'] == 1 and k['no_bytes_t_ns'] == 700
    assert res['no_bytes_calls'] == 1
    assert any('without in_bytes or out_bytes' in n and f"model 'f' ({m}:2)" in n
               for n in res['notes'])
    csv = subprocess.run([SPEEDUP, '--csv', c, m], capture_output=True, text=True).stdout.splitlines()
    row = dict(zip(csv[0].split(','), csv[1].split(',')))
    assert row['no_bytes_calls'] == '1' and row['no_bytes_t_ns'] == '700'


def test_a_file_with_both_kinds_of_model(tmp_path):
    # g has its bytes empty in every row: keyed on work alone, as without the column
    # (f(w) linear: 10 at 10, 30 at 30 -> 20 at 20).  f is keyed on both.
    m = write(tmp_path, 'm.csv', 'func,work,t_ns,bytes\ng,10,10,\nf,0,0,0\ng,30,30,\n'
                                 'f,9999,9999,0\nf,0,99,9999\n')
    t = write(tmp_path, 't.csv', f'{HEADER}\n0,1,g,0,100,5,5,20\n1,1,f,200,100,99,0,99\n'
                                 '# total_ns=1000\n')
    res = json.loads(speedup(t, m).stdout)
    k = {x['func']: x for x in res['kernels']}
    assert k['g']['model_keys'] == 'work' and near(k['g']['predicted_ns'], 20)
    assert k['f']['model_keys'] == 'work,bytes' and near(k['f']['predicted_ns'], 999)


def bad(*args):
    r = speedup(*args, check=False)
    assert r.returncode == 2 and r.stdout == ''
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


@pytest.mark.parametrize('row, what', [
    ('f,10,5,ten', "bytes is not a number ('ten')"),
    ('f,10,5,-3', 'bytes is negative (-3)'),
    ('f,10,5,', "model 'f': bytes is empty here but given on line 2 (a model is keyed on "
                'work alone or on work and bytes, in every sample)'),
])
def test_bad_bytes_name_file_and_line(tmp_path, row, what):
    m = write(tmp_path, 'm.csv', f'func,work,t_ns,bytes\nf,1,1,1\n# c\n{row}\n')
    t = call_trace(tmp_path, 't.csv', 9, 9, 0)
    assert bad(t, m) == f'dyl-speedup: {m}:4: {what}'
    # and the other way round
    m2 = write(tmp_path, 'm2.csv', 'func,work,t_ns,bytes\nf,1,1,\nf,2,2,7\n')
    assert bad(t, m2) == (f"dyl-speedup: {m2}:3: model 'f': bytes is given here but empty on "
                          'line 2 (a model is keyed on work alone or on work and bytes, in every sample)')


# --- a surface every triangulation reproduces exactly ---

def hull(points):
    """Convex hull, counter-clockwise (Andrew's monotone chain)."""
    pts = sorted(set(points))
    if len(pts) < 3:
        return pts
    cross = lambda o, a, b: (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])  # noqa: E731
    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def inside_by(h, p):
    """How far P is inside the convex polygon H (negative: outside)."""
    d = math.inf
    for i in range(len(h)):
        (ax, ay), (bx, by) = h[i], h[(i + 1) % len(h)]
        d = min(d, ((bx - ax) * (p[1] - ay) - (by - ay) * (p[0] - ax)) / math.hypot(bx - ax, by - ay))
    return d


@pytest.mark.parametrize('seed', range(6))
def test_power_law_surfaces_are_exact_inside(tmp_path, seed):
    """t + 1 = (work + 1)^a (bytes + 1)^c is a plane in the logarithms, so f is that
    surface at any point inside the samples' hull whatever the triangles, and every such
    point is in range.  The samples: a grid (cocircular fours), squares-like and thin-like
    curves (collinear runs), random points; queries: random shapes."""
    rnd = random.Random(seed)
    a, c = rnd.uniform(0.2, 1.2), rnd.uniform(0.0, 0.8)
    surf = lambda w, b: (w + 1) ** a * (b + 1) ** c - 1  # noqa: E731
    pts = set()
    kind = seed % 3
    if kind == 0:                                   # a grid
        pts |= {(10 ** i, 10 ** j) for i in range(1, 6) for j in range(1, 6)}
    elif kind == 1:                                 # dgemm-like families
        for n in (4, 8, 16, 32, 64, 128, 256, 512):
            pts.add((2 * n ** 3, 32 * n * n))       # squares: collinear in logarithms
        for nv in (8, 32):
            for mm in (64, 128, 256, 512, 1024):
                pts.add((2 * mm * mm * nv, 8 * (mm * mm + 3 * mm * nv)))
    for _ in range(rnd.randint(3, 40)):             # random points
        pts.add((rnd.randint(0, 10 ** 7), rnd.randint(0, 10 ** 7)))
    pts = sorted(pts)
    m = model2d(tmp_path, [(w, b, repr(surf(w, b))) for w, b in pts])
    logs = [(math.log1p(w), math.log1p(b)) for w, b in pts]
    h = hull(logs)
    queries = [pts[rnd.randrange(len(pts))] for _ in range(5)]       # at samples
    while len(queries) < 40:
        w, b = rnd.randint(0, 2 * 10 ** 7), rnd.randint(0, 2 * 10 ** 7)
        if inside_by(h, (math.log1p(w), math.log1p(b))) > 1e-2:
            queries.append((w, b))
    for (w, b), (f, oor) in zip(queries, f_at(tmp_path, m, queries)):
        assert f == pytest.approx(surf(w, b), rel=1e-7), (w, b)
        assert not oor, (w, b)
    # clearly outside: out of range
    far = [(w, b) for w, b in ((10 ** 9, 1), (1, 10 ** 9), (10 ** 10, 10 ** 10))
           if inside_by(h, (math.log1p(w), math.log1p(b))) < -1e-2]
    assert all(oor for _, oor in f_at(tmp_path, m, far))


def test_triangulations_checked_whole(tmp_path):
    """tests/tools/tri_check.c: on 80 awkward point sets (grids, dgemm-like curves,
    collinear runs, duplicates), the triangles turn left, neighbours are mutual, they tile
    the hull, every inner edge is Delaunay, and every sample gives back its own value."""
    # (tri.c includes grow.h by bare name, from the library's util/ folder)
    exe = build_c(tmp_path, os.path.join(ROOT, 'tests', 'tools', 'tri_check.c'), 'tri_check',
                  '-I' + os.path.join(ROOT, 'speedup', 'lib', 'util'), '-lm')
    r = subprocess.run([exe] + [str(s) for s in range(80)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout
    assert len([x for x in r.stdout.splitlines() if x.startswith('ok ')]) == 80


# --- dyl-model --bytes ---

def test_dyl_model_bytes(tmp_path):
    """One row per (func, work, bytes): the median, the count; bytes = in + out (an empty
    side counts 0); calls with neither left out and counted.  Without --bytes, as before."""
    rows = [(100, 800, 0, 10), (100, 700, 100, 30), (100, 800, None, 20),   # (100, 800): 10 20 30
            (100, 1600, 0, 50), (100, 1600, 0, 70),                          # (100, 1600): 60
            (200, None, None, 5)]                                           # no bytes
    e = lambda x: '' if x is None else x  # noqa: E731
    text = f'{HEADER},depth\n' + ''.join(
        f'{i},7,f,{i * 100},{t},{e(i_)},{e(o)},{w},0\n' for i, (w, i_, o, t) in enumerate(rows))
    tr = write(tmp_path, 'alt.csv', text + '# total_ns=9999\n')
    r = subprocess.run([MODEL, '--bytes', tr], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = [x for x in r.stdout.splitlines() if not x.startswith('#')]
    assert lines == ['func,work,t_ns,samples,bytes', 'f,100,20,3,800', 'f,100,60,2,1600']
    assert r.stdout.startswith('# dyl-model: median t_ns per (func, work, bytes) of depth-0 calls')
    assert r.stderr == 'dyl-model: left out 1 calls without bytes (in_bytes and out_bytes empty; --bytes)\n'
    plain = subprocess.run([MODEL, tr], capture_output=True, text=True).stdout.splitlines()
    assert plain[1:] == ['func,work,t_ns,samples', 'f,100,30,5', 'f,200,5,1']
    # dyl-speedup reads it back: a call at (100, 800) gets 20, one at (100, 1600) 60
    m = write(tmp_path, 'm.csv', r.stdout)
    got = [f for f, _ in f_at(tmp_path, m, [(100, 800), (100, 1600)])]
    assert near(got[0], 20) and near(got[1], 60)


def test_help_texts():
    h = subprocess.run([SPEEDUP, '--help'], capture_output=True, text=True).stdout
    assert 'bytes' in h and 'Delaunay' in h
    h = subprocess.run([MODEL, '--help'], capture_output=True, text=True).stdout
    assert '--bytes' in h and 'func,work,t_ns,samples,bytes' in h


# --- end to end, on real libraries ------------------------------------------------

SERIAL = '/usr/lib/x86_64-linux-gnu/openblas-serial/libblas.so.3'


def test_thin_products_end_to_end(tmp_path):
    """The program's dgemm_ runs on reference BLAS (traced); the accelerator is OpenBLAS
    serial, reached through a std.redirect wrapper, swept over square products and thin
    ones (m = k, n = 8 and 32).  dyl-model --bytes makes one model keyed on (flops, bytes)
    of both sweeps; dyl-model alone, one keyed on flops of the squares.  Against the
    program's 768x8x768 products the 2-D model answers with the thin sweep's time, the
    square model with the squares' times around their flops (memory-bound on OpenBLAS,
    the thin products run at a fraction of a square product's flop rate: measured in
    bench/validate, not here).  The model's structure and answers are checked exactly,
    never a timing: they hold on any machine, idle or loaded."""
    from dyltest import EXAMPLES, REF_BLAS, run as run_cmd, wrap
    d = str(tmp_path)
    common = ('--lib', REF_BLAS, '--header', os.path.join(EXAMPLES, 'blas.h'),
              '--defs', os.path.join(EXAMPLES, 'blas.defs'), '-f', 'dgemm_')
    base_so = wrap(d, *common, name='base.so')
    alt_so = wrap(d, *common, '-g', f'std.redirect:lib={SERIAL}', name='alt.so')
    app = build_c(d, os.path.join(ROOT, 'bench', 'validate', 'gemm_shapes.c'), 'gemm_shapes',
                  REF_BLAS, f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')

    def traced(so, name, *shapes):
        path = os.path.join(d, name)
        run_cmd([app, *shapes], env=dict(os.environ, LD_PRELOAD=so, DYL_TRACE=path), cwd=d)
        return path

    squares = [(16, 200), (32, 200), (64, 100), (128, 30), (256, 10), (384, 5)]
    thin = [(m, nv, c) for nv in (8, 32) for m, c in
            ((128, 50), (256, 30), (512, 10), (768, 6), (1536, 4), (2048, 3))]
    sq = traced(alt_so, 'sweep-squares.csv', *(f'{c}:{n}x{n}x{n}' for n, c in squares))
    th = traced(alt_so, 'sweep-thin.csv', *(f'{c}:{m}x{nv}x{m}' for m, nv, c in thin))
    model_2d = write(tmp_path, 'model-2d.csv', subprocess.run(
        [MODEL, '--bytes', sq, th], capture_output=True, text=True, check=True).stdout)
    model_1d = write(tmp_path, 'model-1d.csv', subprocess.run(
        [MODEL, sq], capture_output=True, text=True, check=True).stdout)

    # one row per shape, keyed on the exact flops and bytes of examples/blas.defs
    # (C = A B + C: A, B and C in, C out)
    rows = [r.split(',') for r in open(model_2d).read().splitlines() if not r.startswith('#')]
    assert rows[0] == ['func', 'work', 't_ns', 'samples', 'bytes']
    shapes = [(n, n, n, c) for n, c in squares] + [(m, nv, m, c) for m, nv, c in thin]
    want = sorted((2 * m * n * k, c, 8 * (m * k + k * n + 2 * m * n)) for m, n, k, c in shapes)
    assert sorted((int(w), int(s), int(b)) for _, w, _, s, b in rows[1:]) == want

    def predicted(trace, model):
        k = json.loads(speedup(trace, model).stdout)['kernels'][0]
        return k

    # Each model answers from its own rows, whatever times they hold: a call at a
    # sample's sizes gets that sample's time (in the 2-D model, a corner of its
    # triangles), a call between two samples of the 1-D model a time between theirs.
    # How much slower per flop the thin products are is a measurement, not checked
    # here: bench/validate (model-dgemm-thin.svg), BENCHMARKS.md.
    t2 = {(int(w), int(b)): float(t) for _, w, t, _, b in rows[1:]}
    rows1 = [r.split(',') for r in open(model_1d).read().splitlines() if not r.startswith('#')]
    assert rows1[0] == ['func', 'work', 't_ns', 'samples']
    t1 = {int(w): float(t) for _, w, t, _ in rows1[1:]}
    assert sorted(t1) == sorted(2 * n ** 3 for n, _ in squares)
    for m, n in ((768, 8), (256, 256)):
        shape = f'{m}x{n}x{m}'
        base = traced(base_so, f'base-{shape}.csv', '5:' + shape)
        k2, k1 = predicted(base, model_2d), predicted(base, model_1d)
        assert k2['model_keys'] == 'work,bytes' and k1['model_keys'] == 'work'
        assert k2['calls'] == k1['calls'] == 5
        assert k2['out_of_range_calls'] == 0 and k1['out_of_range_calls'] == 0
        f2, f1 = k2['predicted_ns'], k1['predicted_ns']
        work = 2 * m * n * m
        assert f2 == pytest.approx(5 * t2[(work, 8 * (m * m + 3 * m * n))], rel=1e-6), (f2, t2)
        if m == n:
            # squares: the two models come from the same square sweep
            assert f1 == pytest.approx(f2, rel=1e-6), (f2, f1, t1)
        else:
            # the square model sees flops only: the squares' times around it
            lo = max(w for w in t1 if w <= work)
            hi = min(w for w in t1 if w >= work)
            assert 5 * min(t1[lo], t1[hi]) <= f1 <= 5 * max(t1[lo], t1[hi]), (f1, lo, hi, t1)
