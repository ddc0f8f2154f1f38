"""dyl-flow on hand-made traces and TRACE.flow files (tests/tools/flowfile.py), each
with its flow worked out in the comments: a chain, the program changing part of a
buffer, a power iteration, objects by site, per-call rows, time slices and phases,
several processes, the graph outputs, and bad input.  The engine's own arithmetic is
tested in tests/unit/flow_engine_test.c."""
import csv
import io
import json
import os
import shutil
import subprocess
import sys

import pytest

from dyltest import ROOT, TEST_APPS, build_c, make, run

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flowfile import (HEAP, MAPPING, STACK, STATIC, access, flow_file, free, host_write,  # noqa: E402
                      module, obj, resize, site, stack_obj, trace_csv)

DYL_FLOW = os.path.join(ROOT, 'bin', 'dyl-flow')


@pytest.fixture(scope='module', autouse=True)
def built():
    make('bin/dyl-flow')


def dyl_flow(*args, rc=0):
    r = subprocess.run([DYL_FLOW, *map(str, args)], capture_output=True, text=True, timeout=60)
    assert r.returncode == rc, r.stderr
    return r


def write(tmp_path, name, calls, records, pid=100):
    path = tmp_path / name
    path.write_text(trace_csv(calls, pid=pid))
    (tmp_path / (name + '.flow')).write_bytes(flow_file(records, pid=pid, nseq=len(calls)))
    return str(path)


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def edges(*args):
    return {(r['producer'], r['consumer']): (int(r['bytes']), int(r['unique_bytes']),
                                             int(r['fresh_bytes']))
            for r in rows(dyl_flow(*args).stdout)}


# A writes buffer 0 (100 B), B reads it and writes buffer 1, C reads buffer 1:
#   A -> B 100 B, B -> C 100 B, all unique and fresh; nothing from the program.
def chain(tmp_path, name='chain.csv', pid=100):
    calls = [(0, 'A', 0, 100), (1, 'B', 200, 100), (2, 'C', 400, 100)]
    return write(tmp_path, name, calls, [
        site(0, 'make (t.c:5) <- main (t.c:20)'), obj(0, HEAP, 100, 0), obj(1, HEAP, 100, 0),
        access(0, 0, 0, 100, 1), access(1, 0, 0, 100, 0), access(1, 1, 0, 100, 1),
        access(2, 1, 0, 100, 0)], pid=pid)


def test_chain(tmp_path):
    t = chain(tmp_path)
    assert edges(t) == {('A', 'B'): (100, 100, 100), ('B', 'C'): (100, 100, 100)}
    # TRACE.flow may be named instead of TRACE
    assert edges(t + '.flow') == edges(t)


# A writes 100 B; the program changes [10, 20) (std.diff's HOST_WRITE); B reads it all,
# twice.  A -> B: 90 B a call, 180 B, 90 unique, 90 fresh (the second read is not);
# host -> B: 20 B, 10 unique, 10 fresh.
def test_program_changes_part_of_a_buffer(tmp_path):
    t = write(tmp_path, 't.csv', [(0, 'A', 0, 10), (1, 'B', 20, 10), (2, 'B', 40, 10)], [
        site(0, 'main (t.c:3)'), obj(0, HEAP, 100, 0),
        access(0, 0, 0, 100, 1), host_write(1, 0, 10, 20),
        access(1, 0, 0, 100, 0), access(2, 0, 0, 100, 0)])
    assert edges(t) == {('A', 'B'): (180, 90, 90), ('host', 'B'): (20, 10, 10)}


# dgemv_ reads the matrix (800 B, filled by the program) in each of 5 calls and its
# vector (80 B), and writes the vector: host -> dgemv_ 5 x 800 + 80 bytes, unique 880
# (the matrix's size and the vector's, however many calls); dgemv_ -> dgemv_ 4 x 80.
def test_power_iteration(tmp_path):
    recs = [site(0, 'main (p.c:10)'), site(1, 'main (p.c:11)'),
            obj(0, HEAP, 800, 0), obj(1, HEAP, 80, 1)]
    for s in range(5):
        recs += [access(s, 0, 0, 800, 0), access(s, 1, 0, 80, 0), access(s, 1, 0, 80, 1)]
    t = write(tmp_path, 'p.csv', [(s, 'dgemv_', s * 100, 50) for s in range(5)], recs)
    e = edges(t)
    assert e[('host', 'dgemv_')] == (4080, 880, 880)
    assert e[('dgemv_', 'dgemv_')] == (320, 80, 320)


# Objects: one site in a loop (3 blocks: one object), one helper called from two places
# (two sites sharing their first frame: labelled by two frames), a static array, a
# stack array, a realloc that moves, a block freed before half of it is read.
def test_objects(tmp_path):
    calls = [(0, 'fill', 0, 10), (1, 'use', 20, 10), (2, 'fill', 40, 10), (3, 'use', 60, 10)]
    t = write(tmp_path, 'o.csv', calls, [
        site(0, 'main (o.c:8)'),
        site(1, 'helper (o.c:3) <- main (o.c:20)'), site(2, 'helper (o.c:3) <- main (o.c:21)'),
        obj(0, HEAP, 10, 0), obj(1, HEAP, 10, 0), obj(2, HEAP, 10, 0),
        obj(3, HEAP, 64, 1), obj(4, HEAP, 32, 2),
        obj(5, STATIC, 300, name='table'), obj(6, STACK, 16, name='main:buf'),
        access(0, 3, 0, 64, 1), access(0, 5, 0, 300, 0),
        access(1, 3, 0, 32, 0), access(1, 6, 0, 16, 1),
        free(3, 2),
        resize(4, 128, 2, 1), access(2, 4, 0, 128, 1), access(3, 4, 0, 128, 0)])
    # main (o.c:8)'s blocks are never accessed: left out, and said on stderr
    r = dyl_flow(t, '--objects')
    assert 'main (o.c:8)' not in r.stdout
    assert r.stderr == ('dyl-flow: 1 object that no call or host access touched left out '
                        '(--all-objects lists them)\n')
    objs = {r['object']: r for r in rows(dyl_flow(t, '--objects', '--all-objects').stdout)}
    assert set(objs) == {'main (o.c:8)', 'helper (o.c:3) <- main (o.c:20)',
                         'helper (o.c:3) <- main (o.c:21)', 'table', 'main:buf'}
    assert objs['main (o.c:8)']['blocks'] == '3' and objs['main (o.c:8)']['size'] == '30'
    a = objs['helper (o.c:3) <- main (o.c:20)']
    assert (a['call_written'], a['call_read'], a['prod_pct'], a['alloc_pct']) == \
        ('64', '32', '50.0', '100.0')
    b = objs['helper (o.c:3) <- main (o.c:21)']
    assert (b['size'], b['moves'], b['prod_pct']) == ('128', '1', '100.0')
    assert objs['table']['kind'] == 'static' and objs['table']['site'] == ''
    assert objs['main:buf']['kind'] == 'stack'
    # sorted by traffic: the static table (300 B read) first, the empty loop site last
    order = [r['object'] for r in rows(dyl_flow(t, '--objects', '--all-objects').stdout)]
    assert order[0] == 'table' and order[-1] == 'main (o.c:8)'
    via = rows(dyl_flow(t, '--via-objects').stdout)
    assert {'from': 'fill', 'to': 'table', 'bytes': '300', 'access': 'read'} not in via
    assert {'from': 'table', 'to': 'fill', 'bytes': '300', 'access': 'read'} in via
    assert {'from': 'use', 'to': 'main:buf', 'bytes': '16', 'access': 'write'} in via


def test_calls(tmp_path):
    t = write(tmp_path, 'c.csv', [(0, 'A', 0, 10), (1, 'B', 20, 10)], [
        site(0, 'main (c.c:1)'), obj(0, HEAP, 100, 0), obj(1, STATIC, 8, name='g'),
        access(0, 0, 0, 10, 1), access(0, 0, 50, 60, 1),
        access(1, 0, 55, 60, 0), access(1, 1, 0, 8, 0), access(1, 0, 0, 10, 0),
        access(1, 0, 0, 5, 1)])
    r = rows(dyl_flow(t, '--calls').stdout)
    assert r == [
        {'seq': '0', 'func': 'A', 'obj_id': '0', 'object': 'main (c.c:1)', 'read_bytes': '0',
         'written_bytes': '20', 'read_ranges': '', 'written_ranges': '0-10 50-60'},
        {'seq': '1', 'func': 'B', 'obj_id': '0', 'object': 'main (c.c:1)', 'read_bytes': '15',
         'written_bytes': '5', 'read_ranges': '0-10 55-60', 'written_ranges': '0-5'},
        {'seq': '1', 'func': 'B', 'obj_id': '1', 'object': 'g', 'read_bytes': '8',
         'written_bytes': '0', 'read_ranges': '0-8', 'written_ranges': ''}]


# Phase 1: 10 calls of fft_ over [0, 1 ms), each 100 us moving 1000 B; phase 2: 10 calls
# of dgemm_ over [1 ms, 2 ms), 4000 B each.  Slices of 100 us: two phases of 50 %.
def test_slices_and_phases(tmp_path):
    calls, recs = [], [site(0, 'main (s.c:1)'), obj(0, HEAP, 4000, 0)]
    for i in range(20):
        f, n = ('fft_', 1000) if i < 10 else ('dgemm_', 4000)
        calls.append((i, f, i * 100000, 100000))
        recs.append(access(i, 0, 0, n, 0))
    t = write(tmp_path, 's.csv', calls, recs)
    ph = rows(dyl_flow(t, '--slices', 100000, '--phases').stdout)
    assert [(p['start_ns'], p['end_ns'], p['share'], p['functions']) for p in ph] == [
        ('0', '1000000', '0.500', 'fft_'), ('1000000', '2000000', '0.500', 'dgemm_')]
    spans = {r['function']: r for r in rows(dyl_flow(t, '--slices', 100000, '--spans').stdout)}
    assert spans['dgemm_']['first_ns'] == '1000000'
    assert spans['dgemm_']['peak_bytes_per_s'] == str(4000 * 10000)   # 4000 B per 100 us
    cells = rows(dyl_flow(t, '--slices', 200000).stdout)
    assert cells[0] == {'slice': '0', 'start_ns': '0', 'end_ns': '200000', 'function': 'fft_',
                        'read_bytes': '2000', 'written_bytes': '0', 'bytes_per_s': '10000000'}
    j = json.loads(dyl_flow(t, '--slices', 100000, '--json').stdout)
    assert len(j['traces'][0]['slices']['phases']) == 2
    plot = tmp_path / 'bw.svg'
    dyl_flow(t, '--slices', 100000, '--plot', plot)
    text = plot.read_text()
    assert text.startswith('<svg') and 'P1 50%' in text and 'P2 50%' in text


def test_several_processes(tmp_path):
    a, b = chain(tmp_path, 'a.csv', pid=1), chain(tmp_path, 'b.csv', pid=2)
    r = rows(dyl_flow(a, b).stdout)
    assert [(x['trace'], x['pid'], x['producer']) for x in r] == [
        (a, '1', 'A'), (a, '1', 'B'), (b, '2', 'A'), (b, '2', 'B')]
    dot = dyl_flow(a, b, '--dot').stdout
    assert 'subgraph cluster_0' in dot and 'subgraph cluster_1' in dot


def test_graphs(tmp_path):
    t = chain(tmp_path)
    dot = dyl_flow(t, '--dot').stdout
    assert 'p0_n1 -> p0_n2 [label="100 B"' in dot and 'shape=ellipse' in dot
    assert '20.0% time\\n1 calls' in dot
    via = dyl_flow(t, '--dot', '--via-objects').stdout
    assert 'shape=box' in via and 'p0_n1 -> p0_o0' in via and 'p0_o0 -> p0_n2' in via
    assert '->' not in dyl_flow(t, '--dot', '--threshold', 101).stdout
    g = json.loads(dyl_flow(t, '--gprof2dot').stdout)
    assert g['version'] == 0
    names = [f['name'] for f in g['functions']]
    assert sorted((names[e['callchain'][1]], names[e['callchain'][0]], e['cost'][0])
                  for e in g['events']) == [('A', 'B', 100), ('B', 'C', 100)]
    j = json.loads(dyl_flow(t, '--json').stdout)['traces'][0]
    assert j['pid'] == 100 and len(j['edges']) == 2 and len(j['objects']) == 1


@pytest.mark.skipif(not shutil.which('dot'), reason='Graphviz dot not installed')
def test_svg(tmp_path):
    t = chain(tmp_path)
    svg = tmp_path / 'g.svg'
    dyl_flow(t, '--svg', svg)
    assert '<svg' in svg.read_text()


def test_bad_input(tmp_path):
    t = chain(tmp_path)
    flow = tmp_path / 'chain.csv.flow'
    good = flow.read_bytes()
    # cut inside the last record
    flow.write_bytes(good[:-8])
    r = dyl_flow(t, rc=2)
    assert r.stderr.count('\n') == 1 and 'chain.csv.flow' in r.stderr and 'record 7' in r.stderr
    # an access to an object never defined
    flow.write_bytes(good + access(2, 9, 0, 1, 0))
    r = dyl_flow(t, rc=2)
    assert r.stderr.count('\n') == 1 and 'record 8' in r.stderr and 'object 9' in r.stderr
    # ids out of file order (a damaged file must not ask for an array of that size)
    flow.write_bytes(flow_file([site(0, 's'), obj(900000000, HEAP, 8, 0)]))
    r = dyl_flow(t, rc=2)
    assert r.stderr.count('\n') == 1 and 'record 2' in r.stderr and 'out of order' in r.stderr
    # not a flow file; no flow file
    flow.write_bytes(b'hello')
    assert 'not a flow file' in dyl_flow(t, rc=2).stderr
    # empty: made at exit, the process ended before it was written (issue 33)
    flow.write_bytes(b'')
    r = dyl_flow(t, rc=2)
    assert r.stderr == ('dyl-flow: ' + str(flow) + ': empty: the process ended before std.flow '
                        'wrote it (killed or crashed?)\n'), r.stderr
    flow.unlink()
    r = dyl_flow(t, rc=2)
    assert r.stderr.count('\n') == 1 and 'std.flow' in r.stderr
    # -o FILE is left as it was when the input is bad
    out = tmp_path / 'out.csv'
    out.write_text('old\n')
    dyl_flow(t, '-o', out, rc=2)
    assert out.read_text() == 'old\n'
    flow.write_bytes(good)
    dyl_flow(t, '-o', out)
    assert out.read_text().startswith('producer,consumer,')
    assert dyl_flow('--bogus', rc=2).stderr == \
        "dyl-flow: unknown option '--bogus' (see dyl-flow --help)\n"
    assert 'fresh_bytes' in dyl_flow('--help').stdout


def symbols(exe):
    """name -> address of EXE's symbols (nm)"""
    out = {}
    for line in run(['nm', exe]).stdout.splitlines():
        f = line.split()
        if len(f) == 3:
            out[f[2]] = int(f[0], 16)
    return out


def test_names_made_offline(tmp_path):
    """Issue 33: the process writes addresses and its modules (flag 16); dyl-flow names
    them from the files: a site's frames by function and file:line (binutils' addr2line
    says which), up to main; a static by its symbol; a frame's stack object seen from two
    return addresses in one function is one object.  A file whose build ID is not the
    run's keeps the raw names (object+0xoff)."""
    exe = build_c(tmp_path, os.path.join(TEST_APPS, 'flow_names.c'), 'flow_names', '-O0')
    sym = symbols(exe)
    note = run(['readelf', '-n', exe]).stdout
    build_id = bytes.fromhex(note.split('Build ID:')[1].split()[0])
    bias = 0x555555554000
    pcs = (bias + sym['make'] + 5, bias + sym['main'] + 5, 0x1234)

    def where(pc):      # the call is the byte before the return address
        loc = run(['addr2line', '-e', exe, hex(pc - bias - 1)]).stdout.strip()
        return os.path.basename(loc.split(' ')[0])

    def names(bid, path=exe):
        calls = [(0, 'A', 0, 100), (1, 'B', 200, 100)]
        t = write(tmp_path, 'named.csv', calls, [
            module(0, path, bid, bias, bias, bias + 0x100000),
            site(0, 'raw', pcs), obj(0, HEAP, 64, 0),
            obj(1, STATIC, 256, name='raw', addr=bias + sym['table']),
            stack_obj(2, 128, 'raw', 0x7ffc0000, bias + sym['fill'] + 4, 0x7ffc0100),
            stack_obj(3, 128, 'raw', 0x7ffc0000, bias + sym['fill'] + 9, 0x7ffc0100),
            access(0, 2, 0, 128, 1), access(1, 3, 0, 128, 0)])
        with open(t + '.flow', 'r+b') as f:     # head flag 16: names from the modules
            f.seek(12)
            f.write((16).to_bytes(4, 'little'))
        got = {(r['record'], int(r['id'])): r['name'] for r in rows(dyl_flow(t, '--names').stdout)}
        return t, got

    t, got = names(build_id)
    assert got[('site', 0)] == f'make ({where(pcs[0])}) <- main ({where(pcs[1])})'
    assert got[('object', 1)] == 'table'
    assert got[('object', 2)] == got[('object', 3)] and got[('object', 2)].startswith('fill')
    objs = rows(dyl_flow(t, '--objects').stdout)
    (stack,) = [o for o in objs if o['kind'] == 'stack']
    assert (stack['object'], stack['blocks'], stack['call_written'], stack['call_read']) == \
        (got[('object', 2)], '1', '128', '128')
    # B reads what A wrote through the other return address: one object, one edge
    assert edges(t)[('A', 'B')] == (128, 128, 128)
    # another build of the file: raw names
    t, got = names(b'\x01' * len(build_id))
    assert got[('site', 0)] == (f'flow_names+0x{pcs[0] - bias:x} <- flow_names+0x{pcs[1] - bias:x}'
                                ' <- 0x1234')
    assert got[('object', 1)] == f'flow_names+0x{sym["table"]:x}'
    # a module path that is a FIFO (a planted file): not opened, raw names, no hang
    fifo = str(tmp_path / 'flow_names.fifo')
    os.mkfifo(fifo)
    t, got = names(build_id, fifo)
    assert got[('object', 1)] == f'flow_names.fifo+0x{sym["table"]:x}'
