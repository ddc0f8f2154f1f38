"""The jpeg profile (microgens/profiles/jpeg): with no --defs, the scanline calls get the
bytes of their rows and their samples as work; the start and finish calls get no work,
and dyliberator and dyl-speedup say so.  flow_jpeg (examples/apps/flow_jpeg.c) codes a
W x H RGB image ROWS rows a call and decodes it again; cjpeg compresses a PPM."""
import os
import shutil
import subprocess

import pytest

from dyltest import DYLIBERATOR, EXAMPLES, ROOT, Trace, run_both, write_ppm
from microgens.profiles.profiletest import built as build, needs, rows_of

DYL_SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')

pytestmark = needs('/usr/include/jpeglib.h', 'libjpeg-dev')


built = build('flow_jpeg', os.path.join(EXAMPLES, 'apps', 'flow_jpeg.c'),
              ['-ljpeg'], ['libjpeg.so.62'])


def test_scanlines_exact(built):
    d, app, w = built
    _, tp = run_both([app, '64', '48', '8'], w, d, trace='flow.csv')
    # 48 rows of 64 RGB pixels, 8 rows a call: 6 calls of 8 * 64 * 3 bytes
    assert rows_of(tp, 'jpeg_write_scanlines') == [(1536, 0, 1536)] * 6
    read = rows_of(tp, 'jpeg_read_scanlines')
    assert sum(r[1] for r in read) == sum(r[2] for r in read) == 64 * 48 * 3
    assert {r[0] for r in read} == {0}
    assert {r['work'] for r in Trace(tp).rows if r['func'] == 'jpeg_finish_compress'} == {''}


def test_calls_without_work_are_named_by_dyliberator_and_dyl_speedup(built, tmp_path):
    d, app, w = built
    r = subprocess.run([DYLIBERATOR, '--lib', 'libjpeg.so.62', '--no-build', '-o',
                        str(tmp_path / 'x.so')], capture_output=True, text=True)
    assert ('profile jpeg: no work size for 4 of the wrapped functions (jpeg_finish_compress, '
            'jpeg_finish_decompress, jpeg_start_compress, jpeg_start_decompress)') in r.stderr
    _, tp = run_both([app, '64', '48', '8'], w, d, trace='speedup.csv')
    model = tmp_path / 'm.csv'
    model.write_text('func,work,t_ns\njpeg_finish_compress,1,10\njpeg_finish_compress,100000,1000\n')
    s = subprocess.run([DYL_SPEEDUP, tp, str(model)], capture_output=True, text=True)
    said = ' '.join((s.stdout + s.stderr).split())   # (notes are wrapped to the terminal)
    assert ('jpeg_finish_compress: 1 call' in said
            and 'without a work size in the trace: not replaced' in said)


@pytest.mark.skipif(not shutil.which('cjpeg'), reason='needs libjpeg-turbo-progs')
def test_cjpeg_reads_every_pixel_once(built):
    d, _, w = built
    write_ppm(str(d / 'in.ppm'), 200, 150)
    run_both(['cjpeg', '-outfile', 'out.jpg', 'in.ppm'], w, d, trace='cjpeg.csv')
    rows = rows_of(d / 'cjpeg.csv', 'jpeg_write_scanlines')
    assert sum(r[0] for r in rows) == sum(r[2] for r in rows) == 200 * 150 * 3
    assert len(rows) == 150    # cjpeg hands over one row a call
