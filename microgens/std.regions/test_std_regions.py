"""std.regions: bytes in and out from the regions pointer arguments point into (the fast
method), on real code: heap blocks of every allocator function, mappings, a stack array
in a caller's frame, static objects sized by their symbols (the program's, a library's,
a stripped one's, a library gone from disk), a string literal, another thread's stack,
pointer arrays, const vs non-const, --defs winning, threads, signals and fork; then
reference BLAS, OpenSSL and libjpeg with unchanged output."""
import os
import pytest

from dyltest import EXAMPLES, REF_BLAS, Trace, build_c, c_library, run_both, wrap, write_ppm

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'apps')
HEADER = os.path.join(C_FILES, 'regs.h')
SOURCE = os.path.join(C_FILES, 'libregs.c')
# Static objects in libraries that are not the wrapped one: libstat.so keeps its .symtab
# (its static arrays are local symbols, there only), libstats.so is stripped (.dynsym
# only); libstat2.so is libstat.so with another size of stat_priv (a "new version").
STAT_SOURCE = os.path.join(C_FILES, 'libstat.c')
STATS_SOURCE = os.path.join(C_FILES, 'libstats.c')
# Each scenario prints its name and the sizes the trace must show, so that the test
# compares the trace with what the program itself knows (its allocation sizes).
APP = os.path.join(C_FILES, 'app.c')


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('regions')
    lib, h = c_library(d, 'regs', HEADER, SOURCE)
    stat = build_c(d, STAT_SOURCE, 'libstat.so', '-DPRIV=24', '-shared', '-fPIC')
    build_c(d, STAT_SOURCE, 'libstat2.so', '-DPRIV=200', '-shared', '-fPIC')
    build_c(d, STATS_SOURCE, 'libstats.so', '-shared', '-fPIC', '-s')
    app = build_c(d, APP, 'app', f'-I{d}', lib, stat, str(d / 'libstats.so'),
                  f'-Wl,-rpath,{d}', '-lpthread', '-ldl')
    # the regions' extents are what these scenarios are about: every pointer to its
    # region's end, as before lengths (their n would bound x: test_std_regions_lengths.py)
    w = wrap(d, '--lib', lib, '--header', h, '-g', 'std.regions:lengths=off')
    return d, lib, h, app, w


def run_scenario(built, what, trace=None, extra=()):
    d, _, _, app, w = built
    r, tp = run_both([app, what, *extra], w, d, trace=trace or f'{what}.csv')
    t = Trace(tp)
    assert t.meta['regions_heap'] == 'tracked'
    return [int(x) for x in r.stdout.split()], t.by_seq()


def test_heap_blocks_of_every_allocator(built):
    want, rows = run_scenario(built, 'heap')
    fills = [r for r in rows if r['func'] == 'fill']
    # fill(double *y, int n, double v): y is output; 4 + 8 bytes of scalars are input
    assert [int(r['out_bytes']) for r in fills] == want
    assert all(int(r['in_bytes']) == 12 for r in fills)
    assert all(int(r['work']) == int(r['in_bytes']) + int(r['out_bytes']) for r in fills)


def test_heap_tracked_behind_a_canonical_plt_entry(built):
    # A program built without PIE that takes malloc's address holds a canonical PLT entry
    # for it: dlsym(RTLD_DEFAULT, "malloc") is the program's, yet its calls reach the
    # wrapper's malloc.  The trace says the heap is tracked, and the block's size shows.
    d, lib, _, _, w = built
    app = build_c(d, os.path.join(C_FILES, 'nopie.c'), 'nopie', f'-I{d}', '-no-pie', '-fno-pie',
                  lib, f'-Wl,-rpath,{d}')
    r, tp = run_both([app], w, d, trace='nopie.csv')
    t = Trace(tp)
    assert t.meta['regions_heap'] == 'tracked'
    assert [int(x['out_bytes']) for x in t.rows if x['func'] == 'fill'] == [8000]


def test_mappings(built):
    want, rows = run_scenario(built, 'mmap')
    assert [int(r['out_bytes']) for r in rows if r['func'] == 'fill'] == want


def test_stack_array_charged_by_its_frame(built):
    _, rows = run_scenario(built, 'stack')
    (row,) = rows
    # The array's frame also holds the padding that keeps the stack 16-byte aligned, and
    # above its data the registers the function saved and its return address, which are
    # not charged (they are no data of the program's): 60 and a few bytes.  The whole
    # stack would be kilobytes.
    assert 60 <= int(row['out_bytes']) <= 60 + 12, row


def test_static_array(built):
    want, rows = run_scenario(built, 'static')
    # the array (in .bss) is charged to its own end: its symbol's size, not what the
    # linker put after it
    assert [int(r['out_bytes']) for r in rows] == want


def facts(d):
    """name -> value, from the facts.txt the last run wrote (then removed)."""
    p = d / 'facts.txt'
    out = {k: int(v) for k, v in (line.split() for line in p.read_text().splitlines())}
    p.unlink()
    return out


def test_static_objects_sized_by_symbols(built):
    # the program's .data and .rodata arrays (local symbols: its .symtab), followed by
    # other objects; a library's global (.dynsym) and static (.symtab) arrays; a stripped
    # library's global one (.dynsym only); each from its start and from its middle
    want, rows = run_scenario(built, 'statics')
    fills = [int(r['out_bytes']) for r in rows if r['func'] == 'fill']
    sums = [int(r['in_bytes']) for r in rows if r['func'] == 'sum']
    assert fills == want[:3] + want[5:], rows
    assert sums == want[3:5], rows
    assert all(int(r['in_bytes']) == 12 for r in rows if r['func'] == 'fill')


def _literal_bound(exe, vaddr):
    """Where the fast method should stop for a pointer at VADDR in no object of EXE: the
    next object above it, else the end of its section (pyelftools); and the end of its
    segment, and its section's name."""
    from elftools.elf.elffile import ELFFile
    with open(exe, 'rb') as f:
        elf = ELFFile(f)
        sec = next(s for s in elf.iter_sections()
                   if s['sh_flags'] & 2 and s['sh_addr'] <= vaddr < s['sh_addr'] + s['sh_size'])
        end = sec['sh_addr'] + sec['sh_size']
        for tab in ('.symtab', '.dynsym'):
            t = elf.get_section_by_name(tab)
            for sym in (t.iter_symbols() if t else ()):
                if sym['st_info']['type'] in ('STT_OBJECT', 'STT_COMMON') and \
                        sym['st_shndx'] != 'SHN_UNDEF':
                    v = sym['st_value']
                    assert not (v <= vaddr < v + sym['st_size']), sym.name
                    if vaddr < v < end:
                        end = v
        seg = next(s for s in elf.iter_segments()
                   if s['p_type'] == 'PT_LOAD' and s['p_vaddr'] <= vaddr < s['p_vaddr'] + s['p_memsz'])
        return end, seg['p_vaddr'] + seg['p_memsz'], sec.name


def _symbol(exe, name):
    from elftools.elf.elffile import ELFFile
    with open(exe, 'rb') as f:
        return ELFFile(f).get_section_by_name('.symtab').get_symbol_by_name(name)[0]['st_value']


def test_string_literal_charged_its_string_other_nameless_data_to_the_next_object(built):
    d, _, _, app, _ = built
    _, rows = run_scenario(built, 'literal')
    # a char pointer into nameless read-only data: a string literal, charged up to its NUL
    # (not the literals after it); a double pointer there: to the next object above it
    # or the end of its section.  Its address in the file: table's, plus the distance the
    # program saw.
    word = _symbol(app, 'table') + facts(d)['literal_from_table']
    end, seg_end, sec = _literal_bound(app, word)
    assert sec.startswith('.rodata'), sec
    got = [int(r['in_bytes']) for r in rows]
    assert got == [2, end - word + 4, 2], (got, end - word, seg_end - word)
    assert end - word > len('nameless') + 1   # more literals follow it
    assert end < seg_end    # the segment's end, charged before, is further


def test_static_objects_of_libraries_gone_from_disk(built):
    d = built[0]
    _, rows = run_scenario(built, 'gone', extra=[str(d / 'libstat.so'), str(d / 'libstat2.so')])
    got = [int(r['out_bytes']) for r in rows]
    # the global array from .dynsym in memory, exact; the static one is in no symbol
    # read (the file is not the one loaded): charged to the next global object or the
    # segment's end, at least its own size, but never with the size the replacing file's
    # .symtab gives it (1600)
    assert got[0] == 320 and got[2] == 320, got
    assert got[1] >= 192 and got[3] >= 192 and 1600 not in got, got


def test_other_threads_stacks(built):
    d = built[0]
    want, rows = run_scenario(built, 'stackthread')
    f = facts(d)
    got = [int(r['out_bytes']) for r in rows if r['func'] == 'fill']
    # the main thread's array, charged by a worker: up to the top of main's frames
    # (__libc_stack_end), not its argv and environment above; from its middle too
    to_end = f['main_to_frames_end']
    assert to_end > want[0]
    assert got[:2] == [to_end, to_end - 80], (got, to_end)
    # lender: its first charge (64), then the borrower's charge of its stack array: up to
    # its outermost frame, below its thread descriptor and TLS (8 KiB of libdylrt's)
    assert got[2] == 64
    assert want[2] <= got[3] <= want[2] + 1024 and got[3] < f['lender_to_stack_end'] - 4096, (got, f)
    # short_lived's own charge (its frame), then its stack once it ended: nothing
    assert 64 <= got[4] <= 64 + 64 and got[5] == want[3], got


def test_const_is_input_and_one_region_counts_once(built):
    want, rows = run_scenario(built, 'classes')
    assert [int(r['in_bytes']) for r in rows] == want
    # out: the non-const buffers, and the long both() returns (8 bytes)
    assert [int(r['out_bytes']) for r in rows] == [240 + 8, 240 + 8, 800 - 480 + 8]


def test_pointer_arrays_are_followed(built):
    want, rows = run_scenario(built, 'ptrarray')
    assert [int(r['func'] == 'rows') for r in rows] == [1, 0, 1]
    # (rows and bump return an int: 4 bytes out)
    assert int(rows[0]['in_bytes']) == want[0] and int(rows[0]['out_bytes']) == 4
    # bump(char **): non-const, so the array and the rows it reaches are output
    assert int(rows[1]['out_bytes']) == want[0] - 4 + 4 and int(rows[1]['in_bytes']) == 4
    assert int(rows[2]['in_bytes']) == want[1]


def test_threads_storm(built):
    _, rows = run_scenario(built, 'threads')
    assert len({r['tid'] for r in rows}) == 8 and len(rows) == 8 * 5000 * 2
    # every call saw its own block, exactly (n bytes out for fill, n + 4 in for sum)
    for r in rows:
        if r['func'] == 'fill':
            assert int(r['in_bytes']) == 12 and int(r['out_bytes']) % 8 == 0 and int(r['out_bytes']) >= 8
        else:
            assert int(r['out_bytes']) == 8 and (int(r['in_bytes']) - 4) % 8 == 0  # sum's long


def test_signal_handler_calls_during_malloc(built):
    _, rows = run_scenario(built, 'signals')
    # a handler that interrupted its thread inside the region table gets no estimate
    # (an empty field, not a wrong one); the others get the buffer's 128 bytes + n
    assert rows and all(r['in_bytes'] in ('', '132') for r in rows)
    assert any(r['in_bytes'] == '132' for r in rows), len(rows)


def test_fork_child_tracks_its_own_blocks(built):
    d = built[0]
    _, rows = run_scenario(built, 'fork', trace='fork.csv')
    assert [int(r['out_bytes']) for r in rows] == [1200]
    child = [f for f in os.listdir(d) if f.startswith('fork.csv.')]
    assert len(child) == 1
    assert [int(r['out_bytes']) for r in Trace(os.path.join(d, child[0])).by_seq()] == [2400, 1200]


def test_defs_win_over_the_estimate(built):
    d, lib, h, app, _ = built
    (d / 'fill.defs').write_text('libregs*::fill::postfix { input_size = 8 * (int64_t)n; work_size = n; }\n')
    w = wrap(d, '--lib', lib, '--header', h, '-g', 'std.regions:lengths=off', '--defs', str(d / 'fill.defs'),
             name='defs.so')
    r, tp = run_both([app, 'heap'], w, d, trace='defs.csv')
    rows = Trace(tp).by_seq()
    fills = [x for x in rows if x['func'] == 'fill']
    assert [int(x['out_bytes']) for x in fills] == [int(v) for v in r.stdout.split()]
    assert [int(x['in_bytes']) for x in fills] == [8] * 9 + [0]
    assert [int(x['work']) for x in fills] == [1] * 9 + [0]
    text = open(os.path.join(d, 'defs.d', 'wrap.c')).read()
    # the estimate runs before the clock starts; the user's code after it stopped
    body = text[text.index('DYL_EXPORT void (fill)'):]
    assert body.index('dyl_regions_charge') < body.index('dyl_wstart(')   # (dyl_wcall.h)
    assert body.index('dyl_wstop(&dyl_call') < body.index('input_size != DYL_NONE')


# --- real libraries -----------------------------------------------------------------

BLAS_APP = os.path.join(C_FILES, 'gemm.c')


def test_blas_dgemm_exact_bytes(tmp_path):
    app = build_c(tmp_path, BLAS_APP, 'gemm', f'-I{EXAMPLES}', REF_BLAS,
                  f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')   # not the libblas.so.3 alternative
    w = wrap(tmp_path, '--lib', REF_BLAS, '--header', os.path.join(EXAMPLES, 'blas.h'),
             '-f', 'dgemm_', '-f', 'ddot_', '-g', 'std.regions')
    m, n, k = 37, 23, 51
    r, tp = run_both([app, str(m), str(n), str(k)], w, tmp_path)
    ssize = int(r.stdout.split()[2])
    gemm, dot = Trace(tp).by_seq()
    # A and B (const) and the scalars block in, plus the two hidden lengths by value
    assert int(gemm['in_bytes']) == 8 * (m * k + k * n) + ssize + 2 * 8
    assert int(gemm['out_bytes']) == 8 * m * n   # C: non-const, so output only
    # ddot_: x and y to their blocks' ends; n in the scalars block (from its k field, at
    # offset 12); incx on main's stack frame: charged to that frame's end, a few dozen bytes
    base = 8 * (m * k + k * n) + (ssize - 12)
    assert base < int(dot['in_bytes']) <= base + 256
    assert int(dot['out_bytes']) == 8            # the double ddot_ returns


def test_matmul_mix_unchanged_and_c_exact(tmp_path):
    app = build_c(tmp_path, os.path.join(EXAMPLES, 'apps', 'matmul_mix.c'), 'matmul_mix',
                  REF_BLAS, f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')
    w = wrap(tmp_path, '--lib', REF_BLAS, '--header', os.path.join(EXAMPLES, 'blas.h'),
             '-f', 'dgemm_', '-g', 'std.regions')
    _, tp = run_both([app, '40', '64'], w, tmp_path)
    rows = Trace(tp).by_seq()
    sizes = [16 + i % 4 * 8 for i in range(40)] + [64] * 3
    assert [int(r['out_bytes']) for r in rows] == [8 * s * s for s in sizes]
    assert all(int(r['in_bytes']) > 16 * s * s for r, s in zip(rows, sizes))
    # with --defs, the exact sizes of blas.defs win
    wd = wrap(tmp_path, '--lib', REF_BLAS, '--header', os.path.join(EXAMPLES, 'blas.h'),
              '-f', 'dgemm_', '-g', 'std.regions', '--defs', os.path.join(EXAMPLES, 'blas.defs'),
              name='defs.so')
    _, tp = run_both([app, '40', '64'], wd, tmp_path, trace='defs.csv')
    rows = Trace(tp).by_seq()
    assert [int(r['in_bytes']) for r in rows] == [24 * s * s for s in sizes]
    assert [int(r['work']) for r in rows] == [2 * s ** 3 for s in sizes]


@pytest.mark.skipif(not os.path.exists('/usr/include/openssl/evp.h'), reason='needs libssl-dev')
def test_openssl_evp_unchanged_and_input_exact(tmp_path):
    app = build_c(tmp_path, os.path.join(EXAMPLES, 'apps', 'evp_encrypt.c'), 'evp', '-lcrypto')
    w = wrap(tmp_path, '--lib', 'libcrypto.so.3', '--app', app, '-f', 'EVP_EncryptUpdate',
             '-g', 'std.regions')
    _, tp = run_both([app, '6', '4096', '2'], w, tmp_path)
    rows = Trace(tp).by_seq()
    assert len(rows) == 12
    # EVP_EncryptUpdate(ctx, out, &outl, in, inl): IN is a heap block of exactly SIZE
    # bytes, inl an int by value
    assert all(int(r['in_bytes']) == 4096 + 4 for r in rows)
    assert all(int(r['out_bytes']) > 4096 for r in rows)


@pytest.mark.skipif(not (os.path.exists('/usr/bin/cjpeg') and os.path.exists('/usr/bin/djpeg')),
                    reason='needs libjpeg-turbo-progs')
def test_cjpeg_djpeg_unchanged_rows_followed(tmp_path):
    w = wrap(tmp_path, '--lib', 'libjpeg.so.62', '--app', '/usr/bin/cjpeg', '--app', '/usr/bin/djpeg',
             '-f', 'jpeg_write_scanlines', '-f', 'jpeg_read_scanlines', '-g', 'std.regions')
    width, height = 64, 48
    write_ppm(tmp_path / 'in.ppm', width, height)
    r, tp = run_both(['/usr/bin/cjpeg', '-quality', '80', 'in.ppm'], w, tmp_path, trace='c.csv')
    (tmp_path / 'out.jpg').write_bytes(r.stdout)
    rows = Trace(tp).by_seq()
    assert rows
    # jpeg_write_scanlines(cinfo, JSAMPARRAY scanlines, n): the row pointers are followed
    # to the rows: at least one row of width * 3 bytes each call (non-const: output)
    assert all(int(x['out_bytes']) >= width * 3 for x in rows)
    _, tp = run_both(['/usr/bin/djpeg', 'out.jpg'], w, tmp_path, trace='d.csv')
    rows = Trace(tp).by_seq()
    assert rows and all(int(x['out_bytes']) >= width * 3 for x in rows)
