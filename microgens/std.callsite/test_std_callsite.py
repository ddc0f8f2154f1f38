"""std.callsite: each call's call site (and depth=N frames above it) in the trace, the
module table in its footer, and the tools that name them offline: dyl-trace summary
--by-callsite and dyl-trace folded.  apps/app.c calls cs_work 3 times from caller_a, 5
times from caller_b and once through main -> chain1 -> chain2 -> chain3; then, from
nested, cs_outer (which calls cs_work) and cs_tail (which jumps to it: that call returns
into cs_tail's wrapper)."""
import csv
import io
import json
import os
import subprocess

import pytest

from dyltest import ROOT, Trace, app_with_and_without_debug_info, c_app, run_both, wrap

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'apps')
HEADER = os.path.join(C_FILES, 'cs.h')
SOURCE = os.path.join(C_FILES, 'libcs.c')
APP = os.path.join(C_FILES, 'app.c')
DYL_TRACE = os.path.join(ROOT, 'bin', 'dyl-trace')


def line_of(mark, path=APP):
    """The line of PATH that holds MARK (the calls' lines, found, not copied)."""
    with open(path) as f:
        return next(i for i, line in enumerate(f, 1) if f"/* {mark} */" in line)


def dyl_trace(*args, rc=0):
    r = subprocess.run([DYL_TRACE, *args], capture_output=True, text=True)
    assert r.returncode == rc, r.stderr
    return r


@pytest.fixture(scope='module')
def traces(tmp_path_factory):
    """Traces of the app built with -g and stripped, wrapped with depth=0 and depth=3."""
    d = tmp_path_factory.mktemp('callsite')
    lib, h, apps = app_with_and_without_debug_info(d, 'cs', HEADER, SOURCE, APP)
    out = {}
    for depth in (0, 3):
        w = wrap(d, '--lib', lib, '--header', h, '-g', f'std.callsite:depth={depth}',
                 name=f'cs{depth}.so')
        for kind, app in apps.items():
            r, tp = run_both([app], w, d, trace=f'{kind}{depth}.csv')
            assert r.stdout == b'3526\n'
            out[kind, depth] = tp
    return out


def test_columns_and_module_table(traces):
    t = Trace(traces['g', 3])
    assert t.columns[-4:] == ['callsite', 'stack1', 'stack2', 'stack3']
    assert len(t.rows) == 13 and all(int(r['callsite']) > 0 for r in t.rows)
    with open(traces['g', 3]) as f:
        modules = [line.split()[-1] for line in f if line.startswith('# module=')]
    assert any(m.endswith('/app_g') for m in modules)
    assert any(m.endswith('/libcs.so') for m in modules)


def test_by_callsite_names_the_lines(traces):
    out = dyl_trace('summary', '--by-callsite', '--csv', traces['g', 0]).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    got = sorted((r['func'], r['callsite'], int(r['calls'])) for r in rows)
    assert got == sorted([('cs_work', f'caller_a (app.c:{line_of("CALL_A")})', 3),
                   ('cs_work', f'caller_b (app.c:{line_of("CALL_B")})', 5),
                   ('cs_work', f'chain3 (app.c:{line_of("CALL_C")})', 1),
                   # inside the library: where cs_outer calls it; a tail call's returns
                   # into cs_tail's wrapper
                   ('cs_work', f'cs_outer (libcs.c:{line_of("CALL_IN", SOURCE)})', 1),
                   ('cs_work', 'inside cs_tail', 1),
                   ('cs_outer', f'nested (app.c:{line_of("CALL_D")})', 1),
                   ('cs_tail', f'nested (app.c:{line_of("CALL_E")})', 1)])
    # the times add up to the function's (self = total: no recorded call is nested)
    t = Trace(traces['g', 0])
    assert sum(int(r['total_ns']) for r in rows) == sum(int(r['t_ns']) for r in t.rows)
    # cs_outer's self time is its total less its cs_work's
    nest = {(r['func'], r['callsite'].split()[0]): r for r in rows}
    outer, inner = nest['cs_outer', 'nested'], nest['cs_work', 'cs_outer']
    assert int(outer['self_ns']) == int(outer['total_ns']) - int(inner['total_ns'])
    js = json.loads(dyl_trace('summary', '--by-callsite', '--json', traces['g', 0]).stdout)
    assert js['version'] and sorted(c['calls'] for c in js['traces'][0]['callsites']) == [1, 1, 1, 1, 1, 3, 5]
    table = dyl_trace('summary', '--by-callsite', traces['g', 0]).stdout
    assert f'caller_b (app.c:{line_of("CALL_B")})' in table and len(table.splitlines()) == 9


def test_folded(traces):
    # depth=0: the call site's function above the library's
    assert dyl_trace('folded', '--weight', 'calls', traces['g', 0]).stdout == (
        'caller_a;cs_work 3\ncaller_b;cs_work 5\nchain3;cs_work 1\ncs_outer;cs_work 1\n'
        'cs_tail;cs_work 1\nnested;cs_outer 1\nnested;cs_tail 1\n')
    # depth=3: the three frames above it, outermost first, up to main; a wrapper's frame
    # right above its function's in the library is one frame
    assert dyl_trace('folded', '--weight', 'calls', traces['g', 3]).stdout == (
        'main;caller_a;cs_work 3\nmain;caller_b;cs_work 5\nmain;chain1;chain2;chain3;cs_work 1\n'
        'main;nested;cs_outer 1\nmain;nested;cs_outer;cs_work 1\nmain;nested;cs_tail 1\n'
        'main;nested;cs_tail;cs_work 1\n')
    # time (the default): the calls' t_ns, all of them
    lines = dyl_trace('folded', traces['g', 3]).stdout.splitlines()
    t = Trace(traces['g', 3])
    assert sum(int(line.rsplit(' ', 1)[1]) for line in lines) == sum(int(r['t_ns']) for r in t.rows)
    # two traces of one program: their stacks merge (each named from its own modules)
    both = dyl_trace('folded', '--weight', 'calls', traces['g', 3], traces['g', 3]).stdout
    assert both.splitlines()[1] == 'main;caller_b;cs_work 10' and len(both.splitlines()) == 7


def test_stripped_program_gives_module_offsets(traces):
    out = dyl_trace('summary', '--by-callsite', '--csv', traces['stripped', 3]).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    assert sorted(int(r['calls']) for r in rows) == [1, 1, 1, 1, 1, 3, 5]
    assert sum(r['callsite'].startswith('app_s+0x') for r in rows) == 5
    # each site is the same offset in both builds (-s strips, the code stays)
    g = list(csv.DictReader(io.StringIO(dyl_trace('summary', '--by-callsite', '--csv',
                                                  traces['g', 3]).stdout)))
    assert sorted(int(r['address'], 16) & 0xfff for r in rows) == \
        sorted(int(r['address'], 16) & 0xfff for r in g)
    folded = dyl_trace('folded', '--weight', 'calls', traces['stripped', 3]).stdout.splitlines()
    assert sum(int(line.split(' ')[-1]) for line in folded if ';cs_work ' in line) == 11


def test_errors(traces, tmp_path):
    plain = tmp_path / 'plain.csv'
    with open(traces['g', 0]) as f, open(plain, 'w') as o:
        for line in f:   # the trace without its callsite column
            o.write(line if line.startswith('#') else line.rsplit(',', 1)[0] + '\n')
    r = dyl_trace('summary', '--by-callsite', str(plain), rc=2)
    assert r.stderr.startswith(f'dyl-trace: {plain}: no callsite column') and r.stderr.count('\n') == 1
    dyl_trace('folded', str(plain), rc=2)
    assert 'choose time, calls, bytes or work' in dyl_trace('folded', '--weight', 'ns', traces['g', 0],
                                                           rc=2).stderr
    assert 'goes with folded' in dyl_trace('summary', '--weight', 'calls', traces['g', 0], rc=2).stderr
    assert "a value must follow '--weight'" in dyl_trace('folded', traces['g', 0], '--weight', rc=2).stderr


def test_beside_std_faults(traces, tmp_path):
    """Another micro-generator's counter column: a call has one range of counters, and
    both fill theirs, whichever runs first."""
    d = os.path.dirname(traces['g', 0])
    w = wrap(tmp_path, '--lib', os.path.join(d, 'libcs.so'), '--header', os.path.join(d, 'cs.h'),
             '-g', 'std.callsite:depth=2', '-g', 'std.faults', name='csf.so')
    _, tp = run_both([os.path.join(d, 'app_g')], w, tmp_path)
    t = Trace(tp)
    assert t.columns[-4:] == ['callsite', 'stack1', 'stack2', 'faults']
    assert all(r['callsite'] and r['stack1'] and r['stack2'] for r in t.rows)
    assert 'main;caller_a;cs_work 3' in dyl_trace('folded', '--weight', 'calls', tp).stdout.splitlines()


def test_killed_process_keeps_raw_addresses(traces, tmp_path):
    """No footer, no module table: the addresses are shown raw, nothing fails."""
    d = os.path.dirname(traces['g', 0])
    app = c_app(tmp_path, 'killed', os.path.join(C_FILES, 'killed.c'), os.path.join(d, 'libcs.so'))
    tp = str(tmp_path / 'k.csv')
    env = dict(os.environ, LD_PRELOAD=os.path.join(d, 'cs3.so'), DYL_TRACE=tp)
    env.pop('DYL_CONVERT', None)
    subprocess.run([app], env=env, capture_output=True, cwd=str(tmp_path), timeout=60)
    rows = list(csv.DictReader(io.StringIO(dyl_trace('summary', '--by-callsite', '--csv', tp).stdout)))
    assert [(r['calls'], r['callsite'] == r['address']) for r in rows] == [('4', True)]
    assert dyl_trace('folded', '--weight', 'calls', tp).stdout.endswith(';cs_work 4\n')
