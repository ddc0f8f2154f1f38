"""std.flow's follow= option: a call handed a data structure built of pointers also
reads the heap blocks it can reach through them, each whole and once.  fw.h's calls get
one pointer each (apps/follow.c builds a list, a ring, a tree, blocks linked through
pointers into their middles, ...); TRACE.flow is decoded by flowread.py and compared
with what was worked out by hand.  Blocks are whole: a list of N nodes of 32 bytes is
N * 32 bytes read."""
import os
import re
import subprocess

import pytest

from dyltest import ROOT, Trace, build_c, c_library, make, run, run_both, wrap
import flowread

HERE = os.path.dirname(os.path.abspath(__file__))
C_FILES = os.path.join(HERE, 'apps')
APP = os.path.join(C_FILES, 'follow.c')
NODE, TREE, MIDDLE = 32, 24, 64	# sizeof(struct fw_node), sizeof(struct fw_tree), middles()


def site_line(tag):
    with open(APP) as f:
        for i, line in enumerate(f, 1):
            if re.search(rf'SITE {tag}\b', line):
                return i
    raise KeyError(tag)


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    """the app, and wrappers without follow=, with follow=on and with follow=16"""
    d = tmp_path_factory.mktemp('follow')
    lib, h = c_library(d, 'fw', os.path.join(C_FILES, 'fw.h'), os.path.join(C_FILES, 'libfw.c'))
    app = build_c(d, APP, 'follow', f'-I{d}', lib, f'-Wl,-rpath,{d}', '-lpthread')
    ws = {v: wrap(d, '--lib', lib, '--header', h, '-g', f'std.flow:follow={v}', name=f'w_{v}.so')
          for v in ('off', 'on', '16')}
    return d, app, ws


def flow(built, follow, *args, plain=True):
    """(rows by seq, records, heap objects of the app's site TAG: obj_id -> OBJECT,
    stderr); PLAIN: the unwrapped run must print the same"""
    d, app, ws = built
    name = f'{"-".join(args)}-{follow}.csv'
    if plain:
        r, tp = run_both([app, *args], ws[follow], d, trace=name)
    else:
        tp = str(d / name)
        r = subprocess.run([app, *args], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, LD_PRELOAD=ws[follow], DYL_TRACE=tp))
        assert r.returncode == 0, r
    t = Trace(tp)
    assert t.meta['flow'] == 'on'
    head, recs = flowread.read(tp + '.flow')
    assert head['nseq'] == len(t.rows)
    sites = {x['site_id']: x['text'] for x in recs if x['type'] == 'SITE'}
    objs = {x['obj_id']: dict(x, site=sites.get(x['site_id'], '')) for x in recs
            if x['type'] == 'OBJECT' and x['kind'] == 'heap'}
    return t.by_seq(), recs, objs, r.stderr


def of_site(objs, tag):
    """the objects whose site's innermost frame is the line marked 'SITE TAG'"""
    at = f'(follow.c:{site_line(tag)})'
    return {o for o, x in objs.items() if x['site'].split(' <- ')[0].endswith(at)}


def reads(recs, objs, seq=None):
    """(seq, obj_id, lo, hi) of the reads of OBJS (by call SEQ)"""
    return sorted((x['seq'], x['obj_id'], x['lo'], x['hi']) for x in recs
                  if x['type'] == 'ACCESS' and x['obj_id'] in objs and x['rw'] == 'R'
                  and (seq is None or x['seq'] == seq))


def test_list_counts_every_node(built):
    n = 50
    rows, recs, objs, _ = flow(built, 'on', 'list', str(n))
    assert [r['func'] for r in rows] == ['fw_list_sum']
    nodes = of_site(objs, 'node')
    assert len(nodes) == n and {objs[o]['size'] for o in nodes} == {NODE}
    got = reads(recs, nodes)
    assert got == [(0, o, 0, NODE) for o in sorted(nodes)]
    assert sum(hi - lo for _, _, lo, hi in got) == n * NODE
    # the trace's byte counts stay std.regions': the head node the pointer reaches
    assert int(rows[0]['in_bytes']) == NODE


def test_trace_says_writes_are_not_seen(built):
    """follow= sees no writes behind the pointers it follows: the trace says so (issue 33,
    item 4), and only where follow= is on"""
    d, _, _ = built
    flow(built, 'on', 'list', '5')
    flow(built, 'off', 'list', '5')
    on, off = Trace(str(d / 'list-5-on.csv')).meta, Trace(str(d / 'list-5-off.csv')).meta
    assert on['flow_follow_writes'].startswith('not seen:')
    assert 'flow_follow_writes' not in off


def test_without_follow_only_the_head(built):
    rows, recs, objs, _ = flow(built, 'off', 'list', '50')
    nodes = of_site(objs, 'node')
    assert len(nodes) == 50
    head = max(nodes)	# (the list is built from its tail: the head is born last)
    assert reads(recs, nodes) == [(0, head, 0, NODE)]


@pytest.mark.parametrize('n', [2, 30])
def test_same_list_twice(built, n):
    """two calls with the same head (the second written as a repeat of the first's
    accesses, hooks.c): each reads every node once (with 2 nodes, the second call's first
    pointer leads to the block the first call reached last)"""
    rows, recs, objs, _ = flow(built, 'on', 'twice', str(n))
    assert [r['func'] for r in rows] == ['fw_list_sum', 'fw_list_sum']
    nodes = of_site(objs, 'node')
    assert len(nodes) == n
    for seq in (0, 1):
        assert reads(recs, nodes, seq) == [(seq, o, 0, NODE) for o in sorted(nodes)]


def test_blocks_made_before_the_wrapper_started(built):
    """the library's constructor, which runs before the wrapper's, makes a list of 3: no
    site (std.flow had not begun), and followed all the same"""
    rows, recs, objs, _ = flow(built, 'on', 'early')
    assert [r['func'] for r in rows] == ['fw_early_list', 'fw_list_sum']
    early = {o for o, x in objs.items() if x['site_id'] is None and x['size'] == NODE}
    assert len(early) == 3
    assert reads(recs, early) == [(1, o, 0, NODE) for o in sorted(early)]


def test_calls_in_other_threads(built):
    """4 threads in turn each hand the main thread's list of 25 to a call: each call
    reads every node once"""
    rows, recs, objs, _ = flow(built, 'on', 'threads', '25')
    assert [r['func'] for r in rows] == ['fw_list_sum'] * 4
    assert len({r['tid'] for r in rows}) >= 2
    nodes = of_site(objs, 'node')
    assert len(nodes) == 25
    for seq in range(4):
        assert reads(recs, nodes, seq) == [(seq, o, 0, NODE) for o in sorted(nodes)]


def test_binary_tree(built):
    depth = 6
    rows, recs, objs, _ = flow(built, 'on', 'tree', str(depth))
    nodes = of_site(objs, 'tree')
    assert len(nodes) == 2**depth - 1
    assert reads(recs, nodes) == [(0, o, 0, TREE) for o in sorted(nodes)]


def test_cycle_visited_once(built):
    """a ring of 20 nodes read from two of its nodes: each call reads every node once"""
    rows, recs, objs, _ = flow(built, 'on', 'ring', '20')
    assert [r['func'] for r in rows] == ['fw_ring_sum', 'fw_ring_sum']
    nodes = of_site(objs, 'node')
    assert len(nodes) == 20
    for seq in (0, 1):
        assert reads(recs, nodes, seq) == [(seq, o, 0, NODE) for o in sorted(nodes)]


def test_pointers_into_the_middle_of_blocks(built):
    """each block's first word points at byte 40 of the next: the blocks count whole"""
    rows, recs, objs, _ = flow(built, 'on', 'middle', '12')
    blocks = of_site(objs, 'middle')
    assert len(blocks) == 12
    assert reads(recs, blocks) == [(0, o, 0, MIDDLE) for o in sorted(blocks)]


def test_big_blocks(built):
    """4 blocks of 256 KiB (mapped apart by glibc, where no heap block was: the map of
    the heap learns of them at their birth; read through process_vm_readv), each one's
    last word pointing to the next"""
    rows, recs, objs, _ = flow(built, 'on', 'big', '4')
    blocks = of_site(objs, 'bigs')
    assert len(blocks) == 4
    assert reads(recs, blocks) == [(0, o, 0, 256 << 10) for o in sorted(blocks)]


def test_address_of_a_freed_block_not_followed(built):
    """call 0 reaches X through the holder's word; X is freed; call 1 finds the same word
    (the address of no block now) and a second one pointing to C, a live block: it reads
    the holder and C, not X"""
    rows, recs, objs, _ = flow(built, 'on', 'freed')
    (a,), (x,), (c,) = (of_site(objs, t) for t in ('holder', 'gone', 'live'))
    assert (objs[a]['size'], objs[x]['size'], objs[c]['size']) == (32, 48, 40)
    assert [(f['obj_id'], f['seq']) for f in recs if f['type'] == 'FREE' and f['obj_id'] == x] == [(x, 1)]
    assert reads(recs, {a, x, c}) == [(0, a, 0, 32), (0, x, 0, 48), (1, a, 0, 32), (1, c, 0, 40)]


def test_cap(built):
    """follow=16: a list of 40 nodes gives the head and the 16 nodes after it (breadth
    first: the nearest), and one warning"""
    rows, recs, objs, err = flow(built, '16', 'list', '40', plain=False)
    nodes = sorted(of_site(objs, 'node'))	# born tail first: the head is the last id
    assert len(nodes) == 40
    assert reads(recs, nodes) == [(0, o, 0, NODE) for o in nodes[-17:]]
    assert err.count('follow=16: a call reached the cap') == 1, err
    # a list of 10 stays under it: all of it, and no warning
    rows, recs, objs, err = flow(built, '16', 'list', '10', plain=False)
    assert len(reads(recs, of_site(objs, 'node'))) == 10 and not err


def test_cap_on_words_read(built):
    """a node's address in the last word of a 128 KiB buffer: follow=on (16 MiB of words
    a call) finds it, follow=16 (64 KiB) stops before it"""
    for follow, found in (('on', 1), ('16', 0)):
        rows, recs, objs, err = flow(built, follow, 'budget', plain=False)
        (big,), nodes = of_site(objs, 'big'), of_site(objs, 'node')
        assert reads(recs, {big}) == [(0, big, 0, 131072)]
        assert len(reads(recs, nodes)) == found
        assert ('reached the cap' in err) == (not found)


def test_dyl_flow_counts_the_nodes(built):
    """dyl-flow, unchanged, gives the node site's object read by the call: every node
    (with follow=on) or the head (without)"""
    make('bin/dyl-flow')
    d, _, _ = built
    n = 50
    for follow, read in (('on', n * NODE), ('off', NODE)):
        flow(built, follow, 'list', str(n))
        t = str(d / f'list-{n}-{follow}.csv')
        out = run([os.path.join(ROOT, 'bin', 'dyl-flow'), '--objects', t]).stdout.splitlines()
        cols = out[0].split(',')
        (node,) = [dict(zip(cols, r.split(','))) for r in out[1:]
                   if r.startswith(f'list (follow.c:{site_line("node")})')]
        assert (int(node['blocks']), int(node['call_read'])) == (n, read)
        edges = run([os.path.join(ROOT, 'bin', 'dyl-flow'), '--edges', t]).stdout.splitlines()
        assert f'host,fw_list_sum,{read},{read},{read}' in edges
