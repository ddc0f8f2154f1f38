"""The zlib profile (microgens/profiles/zlib): a wrapper of libz.so.1 made with no --defs
gives deflate, inflate and crc32 their exact bytes and work.  flow_zlib
(examples/apps/flow_zlib.c) deflates BYTES in CHUNK pieces, inflates them back and takes
the crc32 of both; pigz compresses a file of known size."""
import os
import re
import shutil

import pytest

from dyltest import EXAMPLES, Trace, run_both, wrap
from microgens.profiles.profiletest import built as build, col, needs, rows_of

N, CHUNK = 100000, 4096

pytestmark = needs('/usr/include/zlib.h', 'zlib1g-dev')


built = build('flow_zlib', os.path.join(EXAMPLES, 'apps', 'flow_zlib.c'),
              ['-lz'], ['libz.so.1'])


def test_deflate_inflate_crc32_exact(built):
    d, app, w = built
    r, tp = run_both([app, str(N), str(CHUNK)], w, d, trace='flow.csv')
    packed = int(re.search(rb'to (\d+) in', r.stdout).group(1))
    de, inf = rows_of(tp, 'deflate'), rows_of(tp, 'inflate')
    # deflate: every input byte once, as work; its output is the compressed block
    assert (col(de, 0), col(de, 1), col(de, 2)) == (N, packed, N)
    assert all(x[0] <= CHUNK for x in de)
    # inflate: the compressed bytes in, the N bytes back out, work = the bytes produced
    assert (col(inf, 0), col(inf, 1), col(inf, 2)) == (packed, N, N)
    assert rows_of(tp, 'crc32') == [(N, 0, N)] * 2


def test_profile_none_is_the_old_wrapper(built):
    d, app, _ = built
    w = wrap(d, '--lib', 'libz.so.1', '--profile', 'none', '-f', 'deflate', name='none.so')
    _, tp = run_both([app, str(N), str(CHUNK)], w, d, trace='none.csv')
    de = [r for r in Trace(tp).rows if r['func'] == 'deflate']
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
    de = rows_of(d / 'pigz.csv', 'deflate')
    assert col(de, 0) == col(de, 2) == 1288895
    gz = (d / 'nums.txt.gz').stat().st_size
    # header: 10 bytes + the name 'nums.txt' and its NUL; trailer: crc32 and length
    assert col(de, 1) == gz - (10 + 9 + 8)
    assert col(rows_of(d / 'pigz.csv', 'crc32'), 0) == 1288895
