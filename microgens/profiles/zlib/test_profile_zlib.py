"""The zlib profile (microgens/profiles/zlib): a wrapper of libz.so.1 made with no --defs
gives deflate, inflate and crc32 their exact bytes and work.  flow_zlib
(examples/apps/flow_zlib.c) deflates BYTES in CHUNK pieces, inflates them back and takes
the crc32 of both; pigz compresses a file of known size."""
import os
import re
import shutil

import pytest

from dyltest import EXAMPLES, Trace, build_c, run_both, wrap

APP = os.path.join(EXAMPLES, 'apps', 'flow_zlib.c')
N, CHUNK = 100000, 4096

pytestmark = pytest.mark.skipif(not os.path.exists('/usr/include/zlib.h'),
                                reason='needs zlib1g-dev')


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('zlib')
    app = build_c(d, APP, 'flow_zlib', '-lz')
    return d, app, wrap(d, '--lib', 'libz.so.1', '--profile', 'auto', name='z.so')


def top(tp, func):
    return [r for r in Trace(tp).by_seq() if r['func'] == func and r['depth'] == '0']


def total(rows, col):
    return sum(int(r[col]) for r in rows)


def test_deflate_inflate_crc32_exact(built):
    d, app, w = built
    r, tp = run_both([app, str(N), str(CHUNK)], w, d, trace='flow.csv')
    packed = int(re.search(rb'to (\d+) in', r.stdout).group(1))
    de, inf, crc = top(tp, 'deflate'), top(tp, 'inflate'), top(tp, 'crc32')
    # deflate: every input byte once, as work; its output is the compressed block
    assert (total(de, 'in_bytes'), total(de, 'out_bytes'), total(de, 'work')) == (N, packed, N)
    assert all(int(x['in_bytes']) <= CHUNK for x in de)
    # inflate: the compressed bytes in, the N bytes back out, work = the bytes produced
    assert (total(inf, 'in_bytes'), total(inf, 'out_bytes'), total(inf, 'work')) == (packed, N, N)
    assert [(x['in_bytes'], x['out_bytes'], x['work']) for x in crc] == [(str(N), '0', str(N))] * 2


def test_profile_none_is_the_old_wrapper(built):
    d, app, _ = built
    w = wrap(d, '--lib', 'libz.so.1', '--profile', 'none', '-f', 'deflate', name='none.so')
    _, tp = run_both([app, str(N), str(CHUNK)], w, d, trace='none.csv')
    de = top(tp, 'deflate')
    assert de and all(x['work'] == '' for x in de)


@pytest.mark.skipif(not shutil.which('pigz'), reason='needs pigz')
def test_pigz_deflates_the_files_bytes(built):
    """pigz -k of a file of 1,288,895 bytes (seq 1 200000): its deflate calls consume
    exactly the file; the .gz is their output plus the gzip header and trailer."""
    d, _, w = built
    text = ''.join(f'{i}\n' for i in range(1, 200001)).encode()
    (d / 'nums.txt').write_bytes(text)
    assert len(text) == 1288895
    run_both(['pigz', '-k', '-f', '-p', '2', 'nums.txt'], w, d, trace='pigz.csv')
    de = top(d / 'pigz.csv', 'deflate')
    assert total(de, 'in_bytes') == total(de, 'work') == 1288895
    gz = (d / 'nums.txt.gz').stat().st_size
    # header: 10 bytes + the name 'nums.txt' and its NUL; trailer: crc32 and length
    assert total(de, 'out_bytes') == gz - (10 + 9 + 8)
    assert total(top(d / 'pigz.csv', 'crc32'), 'in_bytes') == 1288895
