"""std.flow: TRACE.flow beside the trace, decoded here byte by byte (flowread.py, the
struct module) and compared with flows worked out by hand: a chain A -> B -> C through
heap buffers, one allocation site in a loop, a helper's malloc called from two places,
realloc moving a block, free before read, a static array and a -g stack array named by
symbol and variable, a producer and a consumer in two threads.  The program marks its
allocation sites with "SITE name" comments: the sites' file:line come from there."""
import os
import re
import stat
import signal
import subprocess

import pytest

from dyltest import ROOT, Trace, build_c, c_library, run, run_both, wrap
import flowread

HERE = os.path.dirname(os.path.abspath(__file__))
C_FILES = os.path.join(HERE, 'apps')
APP = os.path.join(C_FILES, 'app.c')


def site_lines():
    """tag -> line of the 'SITE tag' comment in app.c"""
    out = {}
    with open(APP) as f:
        for i, line in enumerate(f, 1):
            m = re.search(r'SITE ([\w-]+)', line)
            if m:
                out[m.group(1)] = i
    return out


LINE = site_lines()


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('flow')
    lib, h = c_library(d, 'fl', os.path.join(C_FILES, 'fl.h'), os.path.join(C_FILES, 'libfl.c'))
    app = build_c(d, APP, 'app', f'-I{d}', lib, f'-Wl,-rpath,{d}', '-lpthread')
    w = wrap(d, '--lib', lib, '--header', h, '-g', 'std.flow')
    return d, app, w


@pytest.fixture(scope='module')
def built_diff(built):
    """the same program under std.flow with std.diff (changed bytes)"""
    d, app, _ = built
    w = wrap(d, '--lib', str(d / 'libfl.so'), '--header', str(d / 'fl.h'), '-g', 'std.flow',
             '-g', 'std.diff', name='wrap_diff.so')
    return d, app, w


def scenario(built, what):
    """the rows of the trace, TRACE.flow's head and records, and the program's own objects
    (those whose site is in app.c, or static and stack ones): obj_id -> OBJECT"""
    d, app, w = built
    _, tp = run_both([app, what], w, d, trace=f'{what}-{os.path.basename(w)}.csv')
    t = Trace(tp)
    assert t.meta['flow'] == 'on'
    head, recs = flowread.read(tp + '.flow')
    assert head['nseq'] == len(t.rows)
    assert head['pid'] == int(t.meta['pid'])
    sites = {r['site_id']: r['text'] for r in recs if r['type'] == 'SITE'}
    mine = {}
    for r in recs:
        if r['type'] == 'OBJECT':
            r['site'] = sites.get(r['site_id'])
            if r['kind'] != 'heap' or 'app.c:' in (r['site'] or ''):
                mine[r['obj_id']] = r
    return t.by_seq(), head, recs, mine


def accesses(recs, objs):
    return [(r['seq'], r['obj_id'], r['rw'], r['lo'], r['hi']) for r in recs
            if r['type'] == 'ACCESS' and r['obj_id'] in objs]


def frees(recs, objs):
    return [(r['obj_id'], r['seq']) for r in recs if r['type'] == 'FREE' and r['obj_id'] in objs]


def test_chain_through_heap_buffers(built):
    rows, head, recs, mine = scenario(built, 'chain')
    assert [r['func'] for r in rows] == ['produce', 'transform', 'consume']
    (a, b) = sorted(mine)
    assert [mine[a]['size'], mine[b]['size']] == [800, 800]
    assert f'app.c:{LINE["chain-a"]})' in mine[a]['site']
    assert f'app.c:{LINE["chain-b"]})' in mine[b]['site']
    assert mine[a]['birth_seq'] == mine[b]['birth_seq'] == 0
    # produce(a) writes a; transform(a, b) reads a, writes b; consume(b) reads b
    assert sorted(accesses(recs, mine)) == [(0, a, 'W', 0, 800), (1, a, 'R', 0, 800),
                                            (1, b, 'W', 0, 800), (2, b, 'R', 0, 800)]
    assert frees(recs, mine) == [(a, 3), (b, 3)]
    # every record names only what came before it, in seq order
    seen_obj, seen_site, last = set(), set(), 0
    for r in recs:
        if r['type'] == 'SITE':
            seen_site.add(r['site_id'])
        elif r['type'] == 'OBJECT':
            assert r['site_id'] is None or r['site_id'] in seen_site
            seen_obj.add(r['obj_id'])
        else:
            assert r['obj_id'] in seen_obj
        s = r.get('seq', r.get('birth_seq', last))
        assert s >= last
        last = s


def test_one_site_in_a_loop(built):
    rows, head, recs, mine = scenario(built, 'loop')
    assert [o['size'] for o in mine.values()] == [64, 128, 192, 256]
    assert len({o['site_id'] for o in mine.values()}) == 1
    (o0,) = {o['site'] for o in mine.values()}
    assert f'app.c:{LINE["loop"]})' in o0
    # each block born before the call that fills it
    assert [o['birth_seq'] for o in mine.values()] == [0, 1, 2, 3]
    assert sorted(accesses(recs, mine)) == [(i, o, 'W', 0, mine[o]['size'])
                                            for i, o in enumerate(sorted(mine))]


def test_helper_called_from_two_places(built):
    rows, head, recs, mine = scenario(built, 'two')
    (x, y) = sorted(mine)
    assert [mine[x]['size'], mine[y]['size']] == [80, 160]
    assert mine[x]['site_id'] != mine[y]['site_id']
    for o, tag in ((x, 'caller-1'), (y, 'caller-2')):
        frames = mine[o]['site'].split(' <- ')
        assert frames[0] == f'helper (app.c:{LINE["helper"]})', mine[o]['site']
        assert frames[1].endswith(f'(app.c:{LINE[tag]})'), mine[o]['site']


def test_realloc_moving_a_block(built):
    rows, head, recs, mine = scenario(built, 'grow')
    (a,) = mine	# one object: the realloc'ed block is the same
    assert mine[a]['size'] == 128
    assert f'app.c:{LINE["grow"]})' in mine[a]['site']
    (rs,) = [r for r in recs if r['type'] == 'RESIZE']
    assert (rs['obj_id'], rs['new_size'], rs['seq'], rs['moved']) == (a, 800000, 1, 1)
    assert accesses(recs, mine) == [(0, a, 'W', 0, 128), (1, a, 'R', 0, 128)]
    assert frees(recs, mine) == [(a, 2)]


def test_free_before_read(built):
    rows, head, recs, mine = scenario(built, 'free')
    assert [r['func'] for r in rows] == ['produce', 'tick']
    (a,) = mine
    # written by call 0, freed before call 1, never read
    assert accesses(recs, mine) == [(0, a, 'W', 0, 800)]
    assert frees(recs, mine) == [(a, 1)]


def test_static_and_stack_arrays_named(built):
    rows, head, recs, mine = scenario(built, 'named')
    assert [r['func'] for r in rows] == ['produce', 'produce', 'consume', 'consume']
    by_name = {o['name']: o for o in mine.values()}
    table, local = by_name['table'], by_name['named:local']
    assert (table['kind'], table['size'], table['birth_seq']) == ('static', 256, 0)
    assert (local['kind'], local['size'], local['birth_seq']) == ('stack', 96, 1)
    t, l = table['obj_id'], local['obj_id']
    assert sorted(accesses(recs, mine)) == [(0, t, 'W', 0, 256), (1, l, 'W', 0, 96),
                                            (2, l, 'R', 0, 96), (3, t, 'R', 0, 256)]


def test_producer_and_consumer_in_two_threads(built):
    rows, head, recs, mine = scenario(built, 'threads')
    assert [r['func'] for r in rows] == ['produce', 'consume']
    assert rows[0]['tid'] != rows[1]['tid']
    (a,) = mine
    assert accesses(recs, mine) == [(0, a, 'W', 0, 800), (1, a, 'R', 0, 800)]


def test_no_library_loaded_to_name_sites(built, tmp_path):
    """Issue 33: the process loads no library to name what it recorded (libdw's
    debuginfod client loaded libcurl and libssh2 into openssl at its exit, which then
    crashed); it writes addresses and its modules, and the tool names them.  LD_DEBUG=files
    lists every object the loader maps, at any time of the run, exit included."""
    d, app, w = built

    def loaded(what):
        trace = str(tmp_path / f'{what}.csv')
        env = dict(os.environ, LD_PRELOAD=w, DYL_TRACE=trace, LD_DEBUG='files')
        r = subprocess.run([app, what], capture_output=True, text=True, env=env, timeout=60)
        assert r.returncode == 0, r.stderr[-2000:]
        files = re.findall(r'file=(\S+)', r.stderr)
        assert any('libfl.so' in f for f in files), files
        return files, flowread.read(trace + '.flow')

    # heap blocks alone: libdw is never loaded
    files, (head, recs) = loaded('chain')
    assert not [f for f in files if re.search(r'libdw|libelf|debuginfod|curl', f)], files
    assert head['flags'] & flowread.F_MODULES
    assert any(m['path'] == app for m in head['modules'])
    sites = [r['text'] for r in recs if r['type'] == 'SITE']
    assert any(f'app.c:{LINE["chain-a"]})' in s for s in sites), sites
    # a stack array: std.regions reads its bounds with libdw during the run
    # (regions/stackvars.c: no Dwfl, no debuginfod); the names are the tool's
    files, (head, recs) = loaded('named')
    assert not [f for f in files if re.search(r'debuginfod|curl', f)], files
    names = {r['name'] for r in recs if r['type'] == 'OBJECT'}
    assert {'table', 'named:local'} <= names, names


def test_flow_file_made_safely(built, tmp_path):
    """0600; a symlink where TRACE.flow goes is not followed (the trace is still written)"""
    d, app, w = built
    target = tmp_path / 'target'
    target.write_text('keep')
    os.symlink(target, tmp_path / 't.csv.flow')
    env = dict(os.environ, LD_PRELOAD=w, DYL_TRACE=str(tmp_path / 't.csv'))
    r = subprocess.run([app, 'chain'], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0
    assert target.read_text() == 'keep'
    assert 'cannot write' in r.stderr and 't.csv.flow' in r.stderr
    assert len(Trace(str(tmp_path / 't.csv')).rows) == 3
    os.unlink(tmp_path / 't.csv.flow')
    subprocess.run([app, 'chain'], capture_output=True, env=env, timeout=120, check=True)
    assert stat.S_IMODE(os.stat(tmp_path / 't.csv.flow').st_mode) == 0o600


def test_program_changes_part_of_a_buffer(built_diff):
    """with std.diff: produce writes all 800 bytes, the program then changes elements
    10-19 (bytes 80-160): the HOST_WRITE before consume's read is exactly those"""
    rows, head, recs, mine = scenario(built_diff, 'host')
    assert head['flags'] & 1	# std.diff ran
    assert [r['func'] for r in rows] == ['produce', 'consume']
    # std.diff's byte counts stay the trace's: consume's input is what changed, + 4
    assert int(rows[1]['in_bytes']) == 80 + 4
    (a,) = mine
    assert [(r['type'], r['seq'], r['obj_id'], r['lo'], r['hi']) for r in recs
            if r['type'] == 'HOST_WRITE'] == [('HOST_WRITE', 1, a, 80, 160)]
    assert accesses(recs, mine) == [(0, a, 'W', 0, 800), (1, a, 'R', 0, 800)]
    # the HOST_WRITE comes before the read it feeds
    kinds = [r['type'] for r in recs if r.get('obj_id') == a and r.get('seq') == 1]
    assert kinds == ['HOST_WRITE', 'ACCESS']


def test_diff_writes_are_changed_bytes(built_diff):
    """with std.diff the chain's flow is the one the extents gave (every byte written
    changed), and there is no HOST_WRITE where the program changed nothing"""
    rows, head, recs, mine = scenario(built_diff, 'chain')
    (a, b) = sorted(mine)
    assert sorted(accesses(recs, mine)) == [(0, a, 'W', 0, 800), (1, a, 'R', 0, 800),
                                            (1, b, 'W', 0, 800), (2, b, 'R', 0, 800)]
    assert not [r for r in recs if r['type'] == 'HOST_WRITE']


def test_diff_writes_only_changed_bytes(built_diff):
    """produce(a, 50) into a zeroed block of 100 doubles changes its first 400 bytes: with
    std.diff that is the write, not the block's 800"""
    rows, head, recs, mine = scenario(built_diff, 'partial')
    (a,) = mine
    assert mine[a]['size'] == 800
    assert accesses(recs, mine) == [(0, a, 'W', 0, 400), (1, a, 'R', 0, 800)]


def test_calls_repeating_their_accesses(built):
    """three consumes of the same buffer in a row, a call without pointers, a fourth: the
    runtime writes a repeated call's accesses as one word; each call still has its read"""
    rows, head, recs, mine = scenario(built, 'repeat')
    assert [r['func'] for r in rows] == ['produce', 'consume', 'consume', 'consume', 'tick', 'consume']
    (a,) = mine
    assert accesses(recs, mine) == [(0, a, 'W', 0, 800), (1, a, 'R', 0, 800), (2, a, 'R', 0, 800),
                                    (3, a, 'R', 0, 800), (5, a, 'R', 0, 800)]


def test_killed_run_keeps_its_events(built, tmp_path):
    """SIGKILLed after the chain: the spool's windows hold every event, and a reader
    converts them (runtime/format/flowconv.c, as dyl-flow does after a crash)"""
    d, app, w = built
    fmt = run(['make', '-s', '-C', ROOT, 'tool-src-dyl-trace']).stdout.split()
    fmt = [os.path.join(ROOT, f) for f in fmt
           if f.startswith('runtime/format/') and not f.startswith('runtime/format/read/')]
    conv = build_c(tmp_path, os.path.join(C_FILES, 'flowconv.c'), 'flowconv',
                   f'-I{ROOT}/runtime/format', f'-I{ROOT}/runtime/include', *fmt)
    env = dict(os.environ, LD_PRELOAD=w, DYL_TRACE=str(tmp_path / 'k.csv'))
    p = subprocess.Popen([app, 'killed'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert p.stdout.readline().strip().isdigit()
    assert p.stdout.readline() == b'ready\n'
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=60)
    spool = tmp_path / '.k.csv.dylspool'
    assert spool.exists() and not (tmp_path / 'k.csv.flow').exists()
    run([conv, str(spool), str(tmp_path / 'k.flow')])
    head, recs = flowread.read(str(tmp_path / 'k.flow'))
    assert head['nseq'] == 3 and head['flags'] & 2
    sized = {r['obj_id'] for r in recs if r['type'] == 'OBJECT' and r['size'] == 800}
    (a, b) = sorted(sized)
    assert sorted(accesses(recs, sized)) == [(0, a, 'W', 0, 800), (1, a, 'R', 0, 800),
                                             (1, b, 'W', 0, 800), (2, b, 'R', 0, 800)]
