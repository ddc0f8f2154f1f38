"""dyl-trace: a trace printed back as CSV in seq order, summarised per function, and
exported as Chrome trace events; on hand-made traces whose answers are worked out in the
comments, on traces cut short and broken ones, and on a real trace of the reference BLAS.
"""
import json
import os
import signal
import subprocess

import pytest

from dyltest import REF_BLAS, ROOT, Trace, build_c, make, parents, run_both, wrap

DYL_TRACE = os.path.join(ROOT, 'bin', 'dyl-trace')
APPS = os.path.join(ROOT, 'examples', 'apps')
HEADER = 'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args'


@pytest.fixture(scope='module', autouse=True)
def built():
    make('bin/dyl-trace')


def dyl_trace(*args, check=True):
    r = subprocess.run([DYL_TRACE, *args], capture_output=True, text=True, timeout=60)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def summary(*paths):
    r = dyl_trace('summary', '--json', *paths)
    return json.loads(r.stdout), r.stderr


def by_func(trace_json):
    return {f['func']: f for f in trace_json['funcs']}


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


# Two threads.  Thread 1 (tid 11):
#   seq 0  A  [1000, 2000)  depth 0
#   seq 1    B  [1100, 1400)  depth 1
#   seq 2      C  [1150, 1250)  depth 2
#   seq 3    B  [1500, 1900)  depth 1
#   seq 4  D  [2000, 2000)  depth 0: inside A's span by its times, but a sibling by depth
#   seq 5  A  [3000, 3050)  depth 0
# Thread 2 (tid 22), at the same times as thread 1 (nothing nests across threads):
#   seq 6  B  [1000, 1500)  depth 0
#   seq 7    C  [1200, 1400)  depth 1
# The rows are in the order the calls end, per thread, as the runtime writes them.
# Per function:
#   A: 2 calls, 1000 + 50 = 1050; self 1050 - 300 - 400 = 350; min 50, median (50+1000)/2 = 525
#   B: 3 calls, 300 + 400 + 500 = 1200; self 1200 - 100 - 200 = 900; median 400, mean 400
#   C: 2 calls, 100 + 200 = 300; self 300; median 150
#   D: 1 call of 0 ns
# Nested: seq 1, 2, 3, 7.  Shares of total_ns = 10000: A .105 (self .035), B .12 (self .09).
ROWS = {
    0: '0,11,A,1000,1000,,,,0,',
    1: '1,11,B,1100,300,8,16,24,1,"n=3, m=4"',
    2: '2,11,C,1150,100,,,,2,',
    3: '3,11,B,1500,400,8,16,24,1,',
    4: '4,11,D,2000,0,,,,0,',
    5: '5,11,A,3000,50,,,,0,',
    6: '6,22,B,1000,500,1,2,3,0,',
    7: '7,22,C,1200,200,,,,1,',
}
FILE_ORDER = [2, 6, 1, 3, 7, 0, 4, 5]
META = ['# dyliberator trace 1', '# pid=4242', '# cmdline=./app "quoted\\arg" x,y']


def hand_trace(tmp_path, name='hand.csv', total=True):
    lines = META + [HEADER] + [ROWS[s] for s in FILE_ORDER]
    if total:
        lines.append('# total_ns=10000')
    return write(tmp_path, name, '\n'.join(lines) + '\n')


def test_cat_prints_rows_in_seq_order(tmp_path):
    path = hand_trace(tmp_path)
    r = dyl_trace(path)
    assert r.stdout.splitlines() == META + [HEADER] + [ROWS[s] for s in range(8)] + \
        ['# total_ns=10000']
    assert r.stderr == ''
    assert dyl_trace('cat', path).stdout == r.stdout
    # what it prints is a trace too, and reads back the same
    again = write(tmp_path, 'again.csv', r.stdout)
    assert dyl_trace(again).stdout == r.stdout


def test_cat_sparse_seq_numbers(tmp_path):
    # seq numbers far apart (not the runtime's 0..n-1): sorted all the same
    rows = [f'{s},1,f,{s},1,,,,0,' for s in (7000000000, 3, 900000)]
    path = write(tmp_path, 's.csv', '\n'.join([HEADER, *rows]) + '\n# total_ns=9\n')
    assert dyl_trace(path).stdout.splitlines()[1:4] == [rows[1], rows[2], rows[0]]
    path = write(tmp_path, 'd.csv', '\n'.join([HEADER, *rows, rows[2]]) + '\n')
    r = dyl_trace(path, check=False)
    assert (r.returncode, r.stderr) == (2, f'dyl-trace: {path}:5: seq 900000 again (first on line 4)\n')


def test_summary_self_time_median_two_threads(tmp_path):
    out, err = summary(hand_trace(tmp_path))
    assert err == ''
    (t,) = out['traces']
    assert (t['pid'], t['cmdline'], t['total_ns']) == (4242, './app "quoted\\arg" x,y', 10000)
    assert (t['rows'], t['threads'], t['nested_calls'], t['truncated']) == (8, 2, 4, False)
    assert [f['func'] for f in t['funcs']] == ['B', 'A', 'C', 'D']   # by total time
    f = by_func(t)
    want = {  # calls, total, self, mean, min, median, max
        'A': (2, 1050, 350, 525, 50, 525, 1000),
        'B': (3, 1200, 900, 400, 300, 400, 500),
        'C': (2, 300, 300, 150, 100, 150, 200),
        'D': (1, 0, 0, 0, 0, 0, 0),
    }
    keys = ('calls', 'total_ns', 'self_ns', 'mean_ns', 'min_ns', 'median_ns', 'max_ns')
    for func, values in want.items():
        assert tuple(f[func][k] for k in keys) == values, func
    assert f['A']['share'] == pytest.approx(0.105) and f['A']['self_share'] == pytest.approx(0.035)
    assert f['B']['share'] == pytest.approx(0.12) and f['B']['self_share'] == pytest.approx(0.09)
    # the self times add up to the time of the outermost calls
    outer = sum(int(ROWS[s].split(',')[4]) for s in ROWS if ROWS[s].split(',')[8] == '0')
    assert sum(x['self_ns'] for x in t['funcs']) == outer == 1000 + 0 + 50 + 500


def test_summary_csv_and_table(tmp_path):
    path = hand_trace(tmp_path)
    lines = dyl_trace('summary', path, '--csv').stdout.splitlines()
    assert lines[0] == ('trace,pid,func,calls,total_ns,self_ns,mean_ns,min_ns,median_ns,max_ns,'
                        'share,self_share')
    assert lines[1] == f'{path},4242,B,3,1200,900,400,300,400,500,0.120000,0.090000'
    assert lines[2] == f'{path},4242,A,2,1050,350,525,50,525,1000,0.105000,0.035000'
    table = dyl_trace('summary', path).stdout
    assert 'pid 4242' in table and 'total_ns=10000' in table
    assert [ln.split()[0] for ln in table.splitlines()[-4:]] == ['B', 'A', 'C', 'D']
    assert 'share and self%: of total_ns\n' in table
    # two threads' calls added up can pass the run's time: the table says what that means
    assert ('(the calls of 2 threads, added up: a share past 100 % is threads that called at '
            'once, not more than the run)') in table


def test_summary_says_its_shares_base(tmp_path):
    # dyl-speedup's P is of T = total_ns + startup_ns - overhead_ns: the summary's share
    # (B: 1200 / 10000 = 12 %) is of total_ns, with tracing's cost in it, and says so
    path = hand_trace(tmp_path)
    with open(path, 'a') as f:
        f.write('# startup_ns=100\n# overhead_ns=2000\n')
    table = dyl_trace('summary', path).stdout
    assert ("share and self%: of total_ns, tracing's own cost in it (overhead_ns=2.00 us); "
            "dyl-speedup's P is of total_ns + startup_ns - overhead_ns\n") in table, table
    assert ' 12.0% ' in table


def test_summary_escapes_control_bytes_and_refuses_a_column_named_twice(tmp_path):
    # the table is for people: an escape sequence in a name or the command line is shown
    # as \xHH, never sent to the terminal; the JSON has the name (escaped as JSON does)
    text = (f'# cmdline=./app \x1b]0;title\x07\n{HEADER}\n0,1,"ev\x1b[2Jil",0,100,,,5,0,\n'
            '# total_ns=1000\n')
    path = write(tmp_path, 'esc.csv', text)
    r = subprocess.run([DYL_TRACE, 'summary', path], capture_output=True)
    assert r.returncode == 0 and b'\x1b' not in r.stdout and b'\x07' not in r.stdout
    assert b'ev\\x1b[2Jil' in r.stdout and b'./app \\x1b]0;title\\x07' in r.stdout
    doc, _ = summary(path)
    assert doc['traces'][0]['funcs'][0]['func'] == 'ev\x1b[2Jil'
    dup = write(tmp_path, 'dup.csv', f'{HEADER},t_ns\n0,1,f,0,100,,,5,0,,7\n# total_ns=1000\n')
    for cmd in ('cat', 'summary', 'chrome'):
        r = dyl_trace(cmd, dup, check=False)
        assert r.returncode == 2 and r.stdout == '', r
        assert r.stderr == f"dyl-trace: {dup}:1: column 11 repeats column 5's name, 't_ns'\n"


def test_summary_median_of_odd_and_even_counts(tmp_path):
    # durations 7, 1, 5, 3 (even: (3+5)/2 = 4) and 9, 2, 6 (odd: 6), unsorted in the file
    rows = [f'{i},1,{f},{i * 100},{t},,,,0,' for i, (f, t) in
            enumerate([('e', 7), ('o', 9), ('e', 1), ('o', 2), ('e', 5), ('e', 3), ('o', 6)])]
    path = write(tmp_path, 'm.csv', '\n'.join([HEADER, *rows, '# total_ns=1000']) + '\n')
    f = by_func(summary(path)[0]['traces'][0])
    assert (f['e']['median_ns'], f['e']['mean_ns'], f['e']['min_ns'], f['e']['max_ns']) == (4, 4, 1, 7)
    assert (f['o']['median_ns'], f['o']['mean_ns']) == (6, pytest.approx(17 / 3, abs=0.05))


def test_summary_matches_a_reference_on_random_call_trees(tmp_path):
    """Random call trees on three threads, rows in the order the calls end; self time
    known by construction (a call's duration minus its children's)."""
    import random
    import statistics
    rnd = random.Random(7)
    calls = []   # (seq, tid, func, start, dur, depth, self)

    def tree(tid, start, depth):
        func = rnd.choice('fghk')
        children, t = [], start + rnd.randrange(0, 20)
        if depth < 3:
            for _ in range(rnd.randrange(0, 4)):
                child = tree(tid, t, depth + 1)
                children.append(child)
                t = child[3] + child[4] + rnd.randrange(0, 5)
        dur = t - start + rnd.randrange(0, 30)
        me = [None, tid, func, start, dur, depth, dur - sum(c[4] for c in children)]
        calls.append(me)   # after its children: end order
        return me

    for tid in (1, 2, 3):
        t = 0
        for _ in range(60):
            top = tree(tid, t, 0)
            t = top[3] + top[4] + rnd.randrange(0, 10)
    for i, c in enumerate(sorted(calls, key=lambda c: (c[3], c[5]))):
        c[0] = i   # seq: start order
    rnd.shuffle(calls)   # the threads' rows interleaved any which way
    calls.sort(key=lambda c: c[1])
    lines = [HEADER] + [f'{c[0]},{c[1]},{c[2]},{c[3]},{c[4]},,,,{c[5]},' for c in calls]
    path = write(tmp_path, 'random.csv', '\n'.join(lines + ['# total_ns=100000']) + '\n')
    t = summary(path)[0]['traces'][0]
    assert t['nested_calls'] == sum(1 for c in calls if c[5] > 0)
    for func, f in by_func(t).items():
        mine = [c for c in calls if c[2] == func]
        durs = [c[4] for c in mine]
        assert (f['calls'], f['total_ns'], f['self_ns'], f['median_ns']) == \
            (len(mine), sum(durs), sum(c[6] for c in mine), statistics.median(durs)), func


def check_chrome_nesting(events):
    """Per (pid, tid), the X events nest: each one inside the open event whose depth is one
    less, or after it ends.  Times back in ns (the us have 3 decimals: exact)."""
    per_thread = {}
    for e in events:
        if e['ph'] == 'X':
            start = round(e['ts'] * 1000)
            per_thread.setdefault((e['pid'], e['tid']), []).append(
                (start, -(start + round(e['dur'] * 1000)), e['args']['depth'], e))
    for calls in per_thread.values():
        stack = []
        for start, neg_end, depth, e in sorted(calls, key=lambda c: c[:3]):
            end = -neg_end
            while stack and not (stack[-1][0] <= start and end <= stack[-1][1] and
                                 stack[-1][2] < depth):
                assert start >= stack[-1][1], ('overlap', e, stack[-1][3])
                stack.pop()
            assert len(stack) == depth, ('depth', e, [s[3] for s in stack])
            stack.append((start, end, depth, e))
    return per_thread


def test_chrome_events(tmp_path):
    path = hand_trace(tmp_path)
    doc = json.loads(dyl_trace('chrome', path).stdout)
    events = doc['traceEvents']
    meta = [e for e in events if e['ph'] == 'M']
    assert meta == [{'name': 'process_name', 'ph': 'M', 'pid': 4242, 'tid': 0,
                     'args': {'name': './app "quoted\\arg" x,y'}}]
    xs = [e for e in events if e['ph'] == 'X']
    assert [e['args']['seq'] for e in xs] == list(range(8))
    assert xs[1] == {'name': 'B', 'ph': 'X', 'ts': 1.1, 'dur': 0.3, 'pid': 4242, 'tid': 11,
                     'args': {'seq': 1, 'depth': 1, 'in_bytes': 8, 'out_bytes': 16, 'work': 24}}
    assert xs[0]['args']['work'] is None
    assert set(check_chrome_nesting(events)) == {(4242, 11), (4242, 22)}
    # -o FILE writes the same
    out = str(tmp_path / 't.json')
    dyl_trace('chrome', path, '-o', out)
    assert json.load(open(out)) == doc


def test_output_file_is_replaced_only_when_all_went_well(tmp_path):
    """-o FILE: a new file beside FILE, renamed over it at the end.  A failed run leaves
    FILE as it was (it used to be emptied first); an output that is an input is refused
    in one line, exit 2 (it used to empty the trace before reading it)."""
    path = hand_trace(tmp_path)
    before = open(path, 'rb').read()
    k = write(tmp_path, 'k.json', 'kept\n')
    garbage = write(tmp_path, 'garbage.bin', bytes(range(256)) * 4)
    r = dyl_trace('chrome', garbage, '-o', k, check=False)
    assert r.returncode == 2 and open(k).read() == 'kept\n'
    # an input, under its own name, another name for it, or through a symlink
    os.symlink(path, str(tmp_path / 'link.csv'))
    for out, args in ((path, ['chrome', path]), ('./' + os.path.basename(path), ['summary', path]),
                      (path, [str(tmp_path / 'link.csv')]), (path, ['chrome', garbage, path])):
        r = subprocess.run([DYL_TRACE, *args, '-o', out], capture_output=True, text=True,
                           cwd=str(tmp_path))
        assert r.returncode == 2 and r.stdout == '', r
        assert r.stderr.count('\n') == 1 and 'is also an input' in r.stderr, r.stderr
        assert open(path, 'rb').read() == before
    # a folder it cannot create a file in: one line, nothing left behind
    r = dyl_trace('chrome', path, '-o', str(tmp_path / 'no' / 'k.json'), check=False)
    assert r.returncode == 2 and r.stderr.count('\n') == 1 and 'cannot create' in r.stderr
    # success: the new output replaces the symlink itself, not what it points to; the
    # file is its owner's only (0600 less the umask), as the trace it comes from (it can
    # hold argument values; it was 0644); no temporary file is left
    os.symlink(k, str(tmp_path / 'klink.json'))
    old = os.umask(0o027)
    try:
        dyl_trace('chrome', path, '-o', str(tmp_path / 'klink.json'))
    finally:
        os.umask(old)
    assert open(k).read() == 'kept\n' and not os.path.islink(str(tmp_path / 'klink.json'))
    assert json.load(open(str(tmp_path / 'klink.json')))['traceEvents']
    assert os.stat(str(tmp_path / 'klink.json')).st_mode & 0o777 == 0o600
    assert sorted(os.listdir(str(tmp_path))) == sorted(
        ['garbage.bin', 'k.json', 'klink.json', 'link.csv', os.path.basename(path)])
    # what is no regular file (a FIFO here; /dev/null, /dev/stdout) is written as it is,
    # never replaced by a file (root would break /dev/null for everyone)
    import stat
    import threading
    fifo = str(tmp_path / 'fifo')
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, 'rb').read()), daemon=True)
    reader.start()
    dyl_trace('chrome', path, '-o', fifo)
    reader.join(20)     # a FIFO replaced by a file would leave the reader waiting
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and json.loads(got[0])['traceEvents']


def test_chrome_escapes_names_and_command_line(tmp_path):
    text = ('# cmdline=./app "a\\b"\ttab \xff\xfe end\n'.encode('latin-1') +
            f'{HEADER}\n0,1,"we""ird,name\\",10,5,,,,0,\n# total_ns=100\n'.encode())
    doc = json.loads(dyl_trace('chrome', write(tmp_path, 'esc.csv', text)).stdout)
    names = {e['ph']: e['args']['name'] if e['ph'] == 'M' else e['name'] for e in doc['traceEvents']}
    assert names['M'] == './app "a\\b"\ttab \ufffd\ufffd end'
    assert names['X'] == 'we"ird,name\\'
    # and the cat of it quotes the name again, and keeps the command line's bytes
    cat = subprocess.run([DYL_TRACE, str(tmp_path / 'esc.csv')], capture_output=True).stdout
    assert cat == text


def test_several_traces_on_one_time_axis(tmp_path):
    a = write(tmp_path, 'a.csv', f'# pid=1\n# start_ns=5000000\n{HEADER}\n0,1,f,100,10,,,,0,\n# total_ns=200\n')
    b = write(tmp_path, 'b.csv', f'# pid=2\n# start_ns=5001000\n{HEADER}\n0,2,g,100,10,,,,0,\n# total_ns=200\n')
    xs = {e['pid']: e for e in json.loads(dyl_trace('chrome', a, b).stdout)['traceEvents']
          if e['ph'] == 'X'}
    assert (xs[1]['ts'], xs[2]['ts']) == (0.1, 1.1)   # b started 1000 ns after a
    out, _ = summary(a, b)
    assert [(t['pid'], t['funcs'][0]['func']) for t in out['traces']] == [(1, 'f'), (2, 'g')]


def test_trace_cut_short(tmp_path):
    # the process was killed while it wrote row seq 5 (the last in the file): no footer
    full = '\n'.join(META + [HEADER] + [ROWS[s] for s in FILE_ORDER]) + '\n'
    cut = full[:-len(ROWS[5]) // 2 - 1]
    assert not cut.endswith('\n')
    path = write(tmp_path, 'cut.csv', cut + '\0' * 64)   # a pre-extended file's zeros too
    r = dyl_trace(path)
    assert r.stdout.splitlines() == META + [HEADER] + [ROWS[s] for s in (0, 1, 2, 3, 4, 6, 7)]
    warnings = r.stderr.splitlines()
    assert len(warnings) == 2 and all(w.startswith(f'dyl-trace: {path}') for w in warnings)
    assert f'{path}:{len(META) + 1 + len(FILE_ORDER)}: warning: the last row is cut short' in r.stderr
    assert 'no \'# total_ns=N\'' in r.stderr
    out, _ = summary(path)
    t = out['traces'][0]
    assert (t['truncated'], t['total_ns'], t['rows']) == (True, None, 7)
    assert by_func(t)['A']['calls'] == 1 and by_func(t)['A']['share'] is None
    json.loads(dyl_trace('chrome', path).stdout)
    # cut right after a full row: all rows kept, still no footer
    path = write(tmp_path, 'cut2.csv', full)
    r = dyl_trace(path)
    assert len(r.stdout.splitlines()) == len(META) + 1 + 8 and 'no \'# total_ns=N\'' in r.stderr


BAD = [  # (what, file text (None: no file), line, message)
    ('missing file', None, None, 'cannot open'),
    ('too few fields', [ROWS[0], '1,11,B,1100,300,,,,1'], 4, 'malformed row: 9 fields, the header has 10'),
    ('non-numeric t_ns', [ROWS[0], '1,11,B,1100,3o0,,,,1,'], 4, "t_ns is not a number ('3o0')"),
    ('negative work', ['0,11,A,1000,1000,,,-5,0,'], 3, 'work is negative (-5)'),
    ('non-numeric depth', ['0,11,A,1000,1000,,,,x,'], 3, "depth is not a number ('x')"),
    ('empty func', ['0,11,,1000,1000,,,,0,'], 3, 'func is empty'),
    ('start without duration', ['0,11,A,1000,,,,,0,'], 3, 't_ns is empty but t_start_ns is not'),
    ('seq twice', [ROWS[0], ROWS[1], ROWS[1].replace('B', 'C')], 5, 'seq 1 again (first on line 4)'),
    ('not a trace', 'func,work,t_ns\ndgemm_,1,2\n', 1, 'not a trace: the header must start with'),
    ('bad total_ns', [ROWS[0], '# total_ns=12x'], 4, "total_ns is not a number ('12x')"),
]


@pytest.mark.parametrize('cmd', [[], ['summary'], ['summary', '--json'], ['chrome']])
@pytest.mark.parametrize('what,text,line,message', BAD, ids=[b[0] for b in BAD])
def test_bad_input_one_line_naming_file_and_line(tmp_path, cmd, what, text, line, message):
    path = str(tmp_path / 'bad.csv')
    if text is not None:
        if isinstance(text, list):
            text = '\n'.join(['# pid=1', HEADER, *text, '# total_ns=100']) + '\n'
        write(tmp_path, 'bad.csv', text)
    r = dyl_trace(*cmd, path, check=False)
    assert r.returncode == 2
    where = f'{path}:{line}' if line else path
    assert r.stderr.splitlines() == [f'dyl-trace: {where}: {message}'] or \
        (r.stderr.count('\n') == 1 and r.stderr.startswith(f'dyl-trace: {where}: {message}')), r.stderr


def test_usage(tmp_path):
    r = dyl_trace('--help')
    for word in ('cat', 'summary', 'chrome', '--json', '--csv', 'Examples', 'perfetto'):
        assert word in r.stdout
    for args in ([], ['summary'], ['--bogus', 'x.csv'], ['--json', 'x.csv'], ['cat', 'a', 'b']):
        r = dyl_trace(*args, check=False)
        assert r.returncode == 2 and r.stderr.startswith('dyl-trace: '), args


# --- a real trace: the reference BLAS through its C interface --------------------------

REPS = 4


@pytest.fixture(scope='module')
def blas_trace(tmp_path_factory):
    d = tmp_path_factory.mktemp('dyl_trace_blas')
    wrapper = wrap(d, '--lib', REF_BLAS, name='W.so')
    app = build_c(d, os.path.join(APPS, 'blas_cblas.c'), 'blas_cblas', REF_BLAS,
                  f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')
    _, path = run_both([app, str(REPS), '7', '3', '9'], wrapper, d, trace='blas.csv')
    return d, wrapper, app, path


def test_real_trace_summary_counts(blas_trace):
    _, _, app, path = blas_trace
    tr = Trace(path)
    out, err = summary(path)
    assert err == ''
    (t,) = out['traces']
    assert t['rows'] == len(tr.rows) and t['total_ns'] == int(tr.meta['total_ns'])
    assert t['pid'] == int(tr.meta['pid']) and t['cmdline'].startswith(app)
    f = by_func(t)
    assert {name: x['calls'] for name, x in f.items()} == \
        {name: tr.count(name) for name in set(tr.funcs())}
    assert (f['cblas_dgemm']['calls'], f['cblas_daxpy']['calls'], f['cblas_ddot']['calls']) == \
        (REPS, 2 * REPS, 3 * REPS)
    for name, x in f.items():
        times = sorted(int(r['t_ns']) for r in tr.rows if r['func'] == name)
        assert (x['total_ns'], x['min_ns'], x['max_ns']) == (sum(times), times[0], times[-1])
    # every nested call is taken off exactly one caller
    assert t['nested_calls'] == sum(1 for r in tr.rows if r['depth'] != '0')
    assert sum(x['self_ns'] for x in t['funcs']) == \
        sum(int(r['t_ns']) for r in tr.rows if r['depth'] == '0')


def test_real_trace_cat_and_chrome(blas_trace):
    d, _, _, path = blas_trace
    tr = Trace(path)
    cat = dyl_trace(path).stdout
    printed = Trace(write(d, 'cat.csv', cat))
    assert [r['seq'] for r in printed.rows] == [str(i) for i in range(len(tr.rows))]
    assert printed.by_seq() == tr.by_seq() and printed.meta == tr.meta
    doc = json.loads(dyl_trace('chrome', path).stdout)
    xs = [e for e in doc['traceEvents'] if e['ph'] == 'X']
    assert len(xs) == len(tr.rows)
    check_chrome_nesting(doc['traceEvents'])
    parents(tr)   # the trace's own nesting, by dyltest's independent reading


def test_real_trace_of_a_killed_process(blas_trace, tmp_path):
    """SIGKILL: the trace holds what was written before; dyl-trace reads it with warnings."""
    d, wrapper, app, _ = blas_trace
    path = str(tmp_path / 'killed.csv')
    env = dict(os.environ, LD_PRELOAD=wrapper, DYL_TRACE=path)
    # seconds of work, killed after a moment: the runtime has written some blocks by then
    p = subprocess.Popen([app, '1000000', '30', '30', '30'], env=env, stdout=subprocess.DEVNULL)
    try:
        p.wait(timeout=0.7)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGKILL)
        p.wait()
    if not os.path.exists(path) or p.returncode != -signal.SIGKILL:
        pytest.skip('the app finished or wrote nothing before it was killed')
    r = dyl_trace('summary', '--json', path)
    t = json.loads(r.stdout)['traces'][0]
    assert t['truncated'] and t['total_ns'] is None and 'total_ns' in r.stderr
    assert t['overhead_ns'] is None         # written with total_ns, at the end
    assert t['rows'] > 0, 'seconds of calls, several buffers written out: none readable'
    rows = dyl_trace(path).stdout.splitlines()
    assert sum(1 for ln in rows if ln and ln[0].isdigit()) == t['rows']
