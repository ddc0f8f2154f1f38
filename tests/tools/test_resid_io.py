"""A library's own I/O inside a wrapped call is a host read (issue 24): a device cannot do
I/O, so the bytes a library hands to write, fwrite, send... from inside a call are on the
host then.  std.flow:host_reads=on records them as HOST_READ how 2 (exactly the range
handed over, clipped to the object), and dyl-speedup's exact figure moves them back.
tests/tools/resid_io/ (libio's calls write their own output with write(2) and fwrite) and
cjpeg (libjpeg's stdio destination fwrites its buffer inside jpeg_write_scanlines and
jpeg_finish_compress: every compressed byte comes back, as in a port)."""
import json
import os
import shutil
import struct

import pytest

import flowfile as ff
from dyltest import ROOT, build_c, c_library, make, run, run_both, wrap
from test_residency import F_DIFF, F_HOST_READS, GEMV, figure, files, host_read, predict
from test_residency import speedup as sp
from test_resid_real import cjpeg_traced

IO = os.path.join(ROOT, 'tests', 'tools', 'resid_io')
MODELS = os.path.join(ROOT, 'models')
LINK = os.path.join(MODELS, 'link-pcie4-x16.csv')
HOST_READ, LIBIO = 7, 2


def flow_records(path):
    """(offset, type, body) of each record of TRACE.flow (after its 32-byte head)."""
    with open(path, 'rb') as f:
        data = f.read()
    off = 32
    while off + 8 <= len(data):
        kind, n = struct.unpack_from('<II', data, off)
        yield off, kind, data[off + 8:off + 8 + n]
        off += 8 + n


def libio_bytes(flow):
    """The bytes of the HOST_READ records a library's I/O made (how 2)."""
    total = 0
    for _, kind, body in flow_records(flow):
        if kind == HOST_READ and len(body) >= 40:
            _, _, lo, hi, how = struct.unpack_from('<QQQQQ', body)
            total += (hi - lo) if how == LIBIO else 0
    return total


def without_libio(trace, tmp_path):
    """A copy of TRACE whose HOST_READ how 2 records have a type readers skip."""
    data = bytearray(open(trace + '.flow', 'rb').read())
    for off, kind, body in flow_records(trace + '.flow'):
        if kind == HOST_READ and len(body) >= 40 and struct.unpack_from('<Q', body, 32)[0] == LIBIO:
            struct.pack_into('<I', data, off, 99)
    out = os.path.join(str(tmp_path), 'nolibio.csv')
    shutil.copy(trace, out)
    with open(out + '.flow', 'wb') as f:
        f.write(data)
    return out


def speedup(trace, model):
    out = run([os.path.join(ROOT, 'bin', 'dyl-speedup'), trace, model, LINK, '--json']).stdout
    return json.loads(out)


N, STEPS = 256 * 1024, 3


# ioapp: STEPS x fill_send (each writes the whole block, then write(2)s it): the block
# comes back every step; fill, then send_buf of 5,000 of its bytes (they come back, and
# are valid on both sides after: fill is not the call that sent them) and send_file's
# fwrite of the first 3,000 (only the first 1,000 were not back).  The program never
# touches the block: nothing else moves back.
def test_library_write_is_a_host_read(tmp_path):
    make('bin/dyl-speedup')
    lib, h = c_library(tmp_path, 'io', os.path.join(IO, 'io.h'), os.path.join(IO, 'libio.c'))
    app = build_c(tmp_path, os.path.join(IO, 'ioapp.c'), 'ioapp', f'-I{tmp_path}', lib,
                  f'-Wl,-rpath,{tmp_path}')
    w = wrap(tmp_path, '--lib', lib, '--header', h, '-g', 'std.flow:host_reads=on',
             '-g', 'std.diff')
    r, t = run_both([app, str(STEPS)], w, tmp_path)
    assert len(r.stdout) == STEPS * N + 5000 + 3000
    assert libio_bytes(t + '.flow') == STEPS * N + 5000 + 3000
    model = tmp_path / 'k.csv'
    model.write_text('func,work,t_ns\n' + ''.join(f'{f},0,100\n{f},1000000,100\n' for f in
                                                  ('fill', 'fill_send', 'send_buf', 'send_file')))
    j = speedup(t, str(model))
    ex, op, pe = (j['bounds'][m] for m in ('exact', 'optimistic', 'pessimistic'))
    assert j['residency_mode'] == 'exact'
    assert ex['d2h_bytes'] == STEPS * N + 5000 + 1000
    assert op['d2h_bytes'] == 0
    assert ex['d2h_bytes'] <= pe['d2h_bytes']
    # without the records, nothing would come back (the program reads nothing)
    assert speedup(without_libio(t, tmp_path), str(model))['bounds']['exact']['d2h_bytes'] == 0


# 2048 wide: a call that compresses a row group writes more than the 4096-byte buffer
# (two flushes in one call, of the same bytes), and libjpeg's pool blocks are large:
# no bytes of them are assumed read (a narrow image's are: they come back with the
# call, before libjpeg's own fwrite, and the two figures overlap).
W = 2048


# cjpeg: the compressed bytes leave through libjpeg's own fwrite of its destination
# buffer inside the calls: each of them, exactly once, is a library's I/O, and the exact
# figure moves all of them back, besides what it moved before (assumed reads).  The JPEG is the same as without the wrapper.
@pytest.mark.skipif(not shutil.which('cjpeg') or not os.path.exists('/usr/include/jpeglib.h'),
                    reason='needs libjpeg-turbo-progs and libjpeg-dev')
@pytest.mark.parametrize('height', [32, 64])
def test_cjpeg_compressed_bytes_come_back(tmp_path, height):
    width = W
    t, out = cjpeg_traced(tmp_path, width, height)
    size = os.path.getsize(out)
    assert libio_bytes(t + '.flow') == size
    model = os.path.join(MODELS, 'example-gpu-jpeg-compute.csv')
    j = speedup(t, model)
    ex, pe = j['bounds']['exact'], j['bounds']['pessimistic']
    before = speedup(without_libio(t, tmp_path), model)['bounds']['exact']
    assert ex['d2h_bytes'] - before['d2h_bytes'] == size
    assert pe['h2d_bytes'] >= ex['h2d_bytes'] >= height * width * 3   # (every row moves in)
    # (not exact <= pessimistic here: a call that fills the buffer twice writes it twice,
    # flushed twice, but the flow has its bytes once: the pessimistic figure moves them
    # back once; doc/residency.md)


def job_wrapped(tmp_path, flow):
    """libjob, jobapp and a wrapper of libjob with job.defs, FLOW and std.diff:
    (app, wrapper)."""
    make('bin/dyl-speedup')
    lib, h = c_library(tmp_path, 'job', os.path.join(IO, 'job.h'), os.path.join(IO, 'libjob.c'))
    app = build_c(tmp_path, os.path.join(IO, 'jobapp.c'), 'jobapp', f'-I{tmp_path}', lib,
                  f'-Wl,-rpath,{tmp_path}')
    return app, wrap(tmp_path, '--lib', lib, '--header', h, '--defs',
                     os.path.join(IO, 'job.defs'), '-g', flow, '-g', 'std.diff')


# Outputs a --defs postfix declares (dyl_flow_writes) are watched as the charge's are:
# jobapp reads one double in the middle of job_run's output (a pointer in a struct: only
# job.defs says it is written) after each call: that page comes back each step.
def test_defs_outputs_are_watched(tmp_path):
    app, w = job_wrapped(tmp_path, 'std.flow:host_reads=on')
    r, t = run_both([app, str(STEPS)], w, tmp_path)
    model = tmp_path / 'k.csv'
    model.write_text('func,work,t_ns\njob_run,0,100\njob_run,1000000,100\n')
    j = speedup(t, str(model))
    ex, pe = j['bounds']['exact'], j['bounds']['pessimistic']
    assert (ex['d2h_bytes'], ex['d2h_transfers']) == (STEPS * 4096, STEPS)
    assert pe['d2h_bytes'] == STEPS * N


# A --defs look made in a prefix (job.defs' job_sum: the program's writes to what j->out
# points to): its HOST events belong to the call about to be made.  The block (32 KiB)
# moves in whole at the first call, then the 1 KiB the program rewrote before each later
# call: one transfer a call.  (They went to the call before, ahead of its accesses: the
# last rewrite never moved, 1 KiB short, and each was charged a call early.)
def test_defs_prefix_look_is_the_next_calls(tmp_path):
    app, w = job_wrapped(tmp_path, 'std.flow')
    steps = 5
    run_both([app, str(steps), 'sum'], w, tmp_path)
    t = os.path.join(str(tmp_path), 'trace.csv')
    model = tmp_path / 'k.csv'
    model.write_text('func,work,t_ns\njob_sum,0,100\njob_sum,1000000,100\n')
    j = speedup(t, str(model))
    op = j['bounds']['optimistic']
    assert (op['h2d_bytes'], op['h2d_transfers']) == (32768 + (steps - 1) * 1024, steps)


# --- the records by hand (test_residency.py's helpers) ------------------------------------

# Two calls write y (80 B) and each sends it out itself (how 2 at the next seq): the
# bytes come back after each call, and the second call's own write keeps them on the
# device after its I/O, so the program's read after it (how 0) moves them a third time.
# A how above 2 is bad input: one line, exit 2.
def test_library_io_records(tmp_path):
    calls = [('gemv', 1000, 1000, 100), ('gemv', 3000, 1000, 100)]
    recs = [ff.obj(0, ff.HEAP, 80), ff.access(0, 0, 0, 80, True), host_read(1, 0, 0, 80, how=2),
            ff.access(1, 0, 0, 80, True), host_read(2, 0, 0, 80, how=2), host_read(2, 0, 0, 80)]
    t, k, link = files(tmp_path, calls, recs, F_DIFF | F_HOST_READS, models=GEMV)
    r = predict(t, k, link)
    assert r['residency_mode'] == 'exact'
    assert figure(r)[2:] == (3 * 80, 3)
    recs[2] = host_read(1, 0, 0, 80, how=3)
    t, k, link = files(tmp_path, calls, recs, F_DIFF | F_HOST_READS, models=GEMV)
    bad = sp(t, k, link, check=False)
    assert bad.returncode == 2 and bad.stderr.count('\n') == 1 and 't.csv.flow' in bad.stderr
