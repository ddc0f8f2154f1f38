"""std.flow's heap objects checked against Valgrind's DHAT (issue 23, "Independent check"):
the same program (tests/apps/flow_sites.c over the reference BLAS) runs under a wrapper
built with -g std.flow and, plain (no wrapper preloaded), under `valgrind --tool=dhat`.
DHAT's JSON lists per program point (a full stack) its total bytes and blocks; frames as
"0xADDR: func (file.c:line)".  Sites are matched by the file:line of their frames (DHAT's
stacks cut to std.flow's three frames, an inlined frame's lines at one address taken
once); where both tools name all of a site's frames so, blocks and bytes must agree.
DHAT also sees libc's own allocations: they take part only where both name them."""
import json
import os
import re
import shutil
import subprocess

import pytest

from dyltest import REF_BLAS, ROOT, TEST_APPS, build_c, make, run_both, wrap
from test_flow_real import dyl_flow, rows

pytestmark = pytest.mark.skipif(shutil.which('valgrind') is None, reason='needs valgrind')

APP = os.path.join(TEST_APPS, 'flow_sites.c')
FRAMES = 3                       # std.flow's frames per site (doc/specs/flow.md)
LINE = re.compile(r'\(([^()]+:\d+)\)$')


def marks():
    """TAG -> 'flow_sites.c:LINE' of the /* SITE TAG */ marks."""
    out = {}
    with open(APP) as f:
        for n, line in enumerate(f, 1):
            m = re.search(r'/\* SITE (\w+) \*/\s*$', line)
            if m:
                out[m.group(1)] = f'flow_sites.c:{n}'
    return out


def file_line(frame):
    m = LINE.search(frame.strip())
    return m.group(1) if m else None


def dhat_sites(path):
    """{(file:line, ...): [bytes, blocks]} from DHAT's JSON: the allocator's frames (in
    Valgrind's preload) dropped, one frame per address, FRAMES frames."""
    d = json.load(open(path))
    out = {}
    for pp in d['pps']:
        frames, seen = [], set()
        for i in pp['fs']:
            text = d['ftbl'][i]
            addr, _, rest = text.partition(': ')
            if 'vgpreload' in rest or addr in seen:
                continue
            seen.add(addr)
            frames.append(file_line(rest))
        key = tuple(frames[:FRAMES])
        if key and None not in key:
            s = out.setdefault(key, [0, 0])
            s[0] += pp['tb']
            s[1] += pp['tbk']
    return out


def flow_sites(trace):
    """{(file:line, ...): [bytes, blocks]} of dyl-flow's heap objects, from their sites."""
    out = {}
    for r in rows(dyl_flow(trace, '--objects')):
        if r['kind'] != 'heap':
            continue
        key = tuple(file_line(f) for f in r['site'].split(' <- '))
        if key and None not in key:
            s = out.setdefault(key, [0, 0])
            s[0] += int(r['size'])
            s[1] += int(r['blocks'])
    return out


@pytest.fixture(scope='module')
def both(tmp_path_factory):
    make('bin/dyl-flow')
    d = tmp_path_factory.mktemp('dhat')
    app = build_c(d, APP, 'flow_sites', REF_BLAS, f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')
    w = wrap(d, '--lib', REF_BLAS, '--header', os.path.join(ROOT, 'examples', 'blas.h'),
             '-g', 'std.flow')
    _, trace = run_both([app, '12'], w, d, trace='sites.csv')
    out = os.path.join(str(d), 'dhat.json')
    env = {k: v for k, v in os.environ.items() if k != 'LD_PRELOAD'}
    r = subprocess.run(['valgrind', '--tool=dhat', f'--dhat-out-file={out}', app, '12'],
                       capture_output=True, text=True, env=env, cwd=str(d), timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return flow_sites(trace), dhat_sites(out)


# The program's five sites, by both tools: 12 blocks of 16 + 8i doubles at the loop
# (5760 B), the calloc of 300 doubles, the helper's malloc from two lines (100 and 250
# doubles: two sites), the posix_memalign of 4096 B.
def test_program_sites_agree_with_dhat(both):
    flow, dhat = both
    m = marks()
    want = {(m['LOOP'],): [5760, 12], (m['CALLOC'],): [2400, 1],
            (m['HELPER'], m['FIRST']): [800, 1], (m['HELPER'], m['SECOND']): [2000, 1],
            (m['ALIGNED'],): [4096, 1]}
    mine = lambda s: {k: v for k, v in s.items() if k[0].startswith('flow_sites.c:')}
    assert mine(dhat) == want
    assert mine(flow) == want


# Every site both name by file and line (libc's too, where its debug information is
# installed) has the same blocks and bytes in both.
def test_common_sites_agree(both):
    flow, dhat = both
    common = set(flow) & set(dhat)
    assert len(common) >= 5
    assert {k: flow[k] for k in common} == {k: dhat[k] for k in common}
