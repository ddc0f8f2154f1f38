"""std.flow:host_reads=on: the program's reads of a call's outputs (HOST_READ, TRACE.flow
type 7, doc/specs/flow.md), on hrapp.c's scenarios: the pages it reads and only those;
nothing when it never reads an output or only hands it to the next call; write(2),
fwrite and read(2) on a protected buffer (recorded, and the bytes right); its own SIGSEGV
handler for its own fault (sigaction and signal); its own fault with no handler (it dies
of it); outputs that cannot be protected (assumed read); two threads; a fork; one buffer
filled by two calls, an output read after a call that only read it, a block cut in many
ranges (what a call opens is watched again after it); the program's own mprotect (a
write barrier, a guard page); an exec in a child that recorded nothing.  Every run's
output, status and files are compared with the same run without the wrapper."""
import json
import os
import signal
import struct
import subprocess
import sys

import pytest

from dyltest import ROOT, Trace, build_c, c_library, dyliberator, make, run_both, wrap
import flowread

HERE = os.path.dirname(os.path.abspath(__file__))
C_FILES = os.path.join(HERE, 'apps')
PAGE = 4096
N = 65536          # doubles in hrapp.c's big blocks
SIZE = N * 8


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('hostreads')
    lib, h = c_library(d, 'hr', os.path.join(C_FILES, 'hr.h'), os.path.join(C_FILES, 'libhr.c'))
    app = build_c(d, os.path.join(C_FILES, 'hrapp.c'), 'hrapp', f'-I{d}', lib, f'-Wl,-rpath,{d}',
                  '-lpthread')
    # the same program fortified: read(2) of a block of known size is __read_chk
    build_c(d, os.path.join(C_FILES, 'hrapp.c'), 'hrapp_fortified', '-D_FORTIFY_SOURCE=2', f'-I{d}',
            lib, f'-Wl,-rpath,{d}', '-lpthread')
    w = wrap(d, '--lib', lib, '--header', h, '-g', 'std.flow:host_reads=on')
    return d, app, w


def scenario(built, what, *args, wrapper=None):
    """(stdout, rows by seq, head, records, big blocks' OBJECT records by obj_id)"""
    d, app, w = built
    r, tp = run_both([app, what, *args], wrapper or w, d, trace=f'{what}.csv')
    t = Trace(tp)
    head, recs = flowread.read(tp + '.flow')
    big = {x['obj_id']: x for x in recs if x['type'] == 'OBJECT' and x['size'] == SIZE}
    return r.stdout.decode(), t.by_seq(), head, recs, big


def host_reads(recs, objs=None):
    return [(x['seq'], x['obj_id'], x['lo'], x['hi'], x['how']) for x in recs
            if x['type'] == 'HOST_READ' and (objs is None or x['obj_id'] in objs)]


def base_of(out):
    """where hrapp's block starts in its page (its 'base=' line)"""
    return int(out.split('base=')[1].split()[0])


def page_of(base, off):
    """the page holding byte OFF of a block starting BASE bytes into a page, as offsets
    in the block (clipped to it)"""
    lo = (base + off) // PAGE * PAGE - base
    return max(lo, 0), min(lo + PAGE, SIZE)


def test_reads_of_two_pages(built):
    out, rows, head, recs, big = scenario(built, 'read')
    assert head['flags'] & 8
    assert [r['func'] for r in rows] == ['hr_fill', 'hr_tick']
    (a,) = big
    b = base_of(out)
    # hr_fill (seq 0) wrote it; the program read a[3*512] and a[5*512+100] before seq 1
    assert host_reads(recs) == [(1, a, *page_of(b, 3 * 512 * 8), 'seen'),
                                (1, a, *page_of(b, (5 * 512 + 100) * 8), 'seen')]
    # ordered before that seq's accesses, after the call that wrote it
    i = next(i for i, x in enumerate(recs) if x['type'] == 'HOST_READ')
    assert all(x.get('seq', 0) <= 1 for x in recs[:i])


def test_never_read(built):
    out, rows, head, recs, big = scenario(built, 'never')
    assert head['flags'] & 8 and len(big) == 1
    assert host_reads(recs) == []


def test_passed_to_the_next_call_only(built):
    out, rows, head, recs, big = scenario(built, 'pass')
    assert [r['func'] for r in rows] == ['hr_fill', 'hr_sum', 'hr_tick']
    (a,) = big
    assert (1, a, 'R', 0, SIZE) in [(x['seq'], x['obj_id'], x['rw'], x['lo'], x['hi'])
                                    for x in recs if x['type'] == 'ACCESS']
    assert host_reads(recs) == []


def test_read_inside_the_next_call(built):
    """the next call reaches the output through a struct (not an argument's region, not
    lifted before it): the fault is the library's, inside the call: no host read"""
    out, rows, head, recs, big = scenario(built, 'pass-vec')
    assert [r['func'] for r in rows] == ['hr_fill', 'hr_sum_vec', 'hr_tick']
    assert len(big) == 1
    assert host_reads(recs) == []


def test_arguments_unprotected_before_the_call(built):
    """the next call gives its argument to the kernel with a raw read(2): no fault, no
    interposer: its region must be lifted before the call"""
    out, rows, head, recs, big = scenario(built, 'load')
    assert f'loaded {SIZE}' in out
    assert host_reads(recs) == []


def test_write_fwrite_read_on_protected_pages(built):
    d = built[0]
    out, rows, head, recs, big = scenario(built, 'io', str(d / 'w1.bin'), str(d / 'w2.bin'))
    assert 'read 524288, a[5]=12' in out
    (a,) = big
    # write(2) before seq 1, fwrite before seq 2, read(2) into it before seq 3: all of it
    assert host_reads(recs) == [(1, a, 0, SIZE, 'seen'), (2, a, 0, SIZE, 'seen'),
                                (3, a, 0, SIZE, 'seen')]
    # the files are the wrapped run's (run_both runs it last)
    assert (d / 'w1.bin').read_bytes() == b''.join(struct.pack('<d', 7 + i) for i in range(N))
    assert (d / 'w2.bin').read_bytes() == b''.join(struct.pack('<d', 9 + i) for i in range(N))


def test_fortified_read(built):
    """__read_chk (a -D_FORTIFY_SOURCE program) reaches the C library's internal read,
    past read's interposer: it is interposed too"""
    d, app, w = built
    (d / 'w3.bin').write_bytes(b''.join(struct.pack('<d', 7 + i) for i in range(N)))
    fort = str(d / 'hrapp_fortified')
    r, tp = run_both([fort, 'read-chk', str(d / 'w3.bin')], w, d, trace='chk.csv')
    assert b'read 524288, a[5]=12' in r.stdout
    head, recs = flowread.read(tp + '.flow')
    (a,) = [x['obj_id'] for x in recs if x['type'] == 'OBJECT' and x['size'] == SIZE]
    assert host_reads(recs) == [(1, a, 0, SIZE, 'seen')]


@pytest.mark.parametrize('how', ['handler', 'handler-signal', 'handler-bsd', 'handler-sysv',
                                 'handler-sigset'])
def test_own_handler_sees_its_own_fault_only(built, how):
    out, rows, head, recs, big = scenario(built, how)
    assert 'caught its own fault' in out and 'handled=1' in out
    (a,) = big
    assert host_reads(recs) == [(1, a, *page_of(base_of(out), 10 * 512 * 8), 'seen')]


def test_other_system_calls_on_protected_pages(built):
    """open, openat, creat, fopen of a path a call wrote; getrandom, vmsplice, preadv2,
    getdents64 on pages a call wrote; system's command and posix_spawn's argument a call
    wrote; an exec whose argument a call wrote: each works as without the wrapper (the
    kernel would fail them with EFAULT), and each is recorded as the program's read of
    those pages before the next call"""
    out, rows, head, recs, big = scenario(built, 'sys')
    for what in ('open', 'openat', 'creat', 'fopen', 'getrandom', 'vmsplice', 'preadv2',
                 'getdents64', 'system', 'posix_spawn'):
        assert f'{what} ok' in out
    assert 'vmspliced same' in out and 'preadv2 read 12: sys-out.txt' in out
    assert 'open-bad Bad address' in out
    assert 'by-system\nsystem ok\nsys-out.txt\nposix_spawn ok' in out
    assert 'sys-out.txt\nchild status 0' in out
    (a,) = big
    b = base_of(out)
    funcs = [r['func'] for r in rows]
    assert funcs == ['hr_load'] * 4 + ['hr_fill'] * 4 + ['hr_load'] * 2 + ['hr_tick']
    # the path's page (the block's first) before the next call; the pages of a[k * 512]
    # (k = 4, 6, 8, 10: the kernel's part: a page, or two where it crosses)
    def pages(off, n):
        lo, _ = page_of(b, off)
        return lo, page_of(b, off + n - 1)[1]
    assert host_reads(recs, big) == [
        (1, a, *pages(0, 1), 'seen'), (2, a, *pages(0, 1), 'seen'), (3, a, *pages(0, 1), 'seen'),
        (4, a, *pages(0, 1), 'seen'), (5, a, *pages(4 * 4096, 64), 'seen'),
        (6, a, *pages(6 * 4096, 4096), 'seen'), (7, a, *pages(8 * 4096, 12), 'seen'),
        (8, a, *pages(10 * 4096, 4096), 'seen'), (9, a, *pages(0, 1), 'seen'),
        (10, a, *pages(0, 1), 'seen')]


def test_own_fault_without_handler_kills(built):
    d, app, w = built
    r, tp = run_both([app, 'die'], w, d, trace='die.csv')
    assert r.returncode == -signal.SIGSEGV
    assert b'survived' not in r.stdout


def test_adjacent_blocks(built):
    """two blocks mapped side by side, their protected ranges touching: each read is
    its own block's"""
    out, rows, head, recs, big = scenario(built, 'adjacent')
    # the pair hr_fill wrote (seq 1, 2), of the blocks hrapp took until one pair touched
    fills = {x['seq']: x['obj_id'] for x in recs if x['type'] == 'ACCESS' and x['obj_id'] in big}
    a, b = fills[1], fills[2]
    # (the second right below the first: 512 KiB, its header and a page)
    assert big[b]['addr'] + SIZE + PAGE == big[a]['addr']
    ba, bb = (int(x.split()[0]) for x in out.split('base=')[1:3])
    assert host_reads(recs) == [(3, a, *page_of(ba, 4 * 512 * 8), 'seen'),
                                (3, b, *page_of(bb, 6 * 512 * 8), 'seen')]


def test_thread_blocking_every_signal(built):
    """a fault raised while SIGSEGV is blocked kills: it is never blocked"""
    out, rows, head, recs, big = scenario(built, 'blocked')
    (a,) = big
    assert host_reads(recs) == [(1, a, *page_of(base_of(out), 7 * 512 * 8), 'seen')]


def test_unprotectable_outputs_are_assumed_read(built):
    out, rows, head, recs, big = scenario(built, 'assumed')
    objs = {x['obj_id']: x for x in recs if x['type'] == 'OBJECT'}
    got = [(s, objs[o]['kind'], lo, hi, how) for s, o, lo, hi, how in host_reads(recs)]
    # the stack array (written by seq 0), the small block (seq 1): each once, right after
    assert got == [(1, 'stack', 0, 512 * 8, 'assumed'), (2, 'heap', 0, 800, 'assumed')]


def test_two_threads(built):
    out, rows, head, recs, big = scenario(built, 'threads')
    assert 'threads 1 1' in out
    # (which thread's block glibc maps by itself depends on the order of the frees: the
    # other comes from a heap, its edges recorded as assumed reads)
    got = [r for r in host_reads(recs, big) if r[4] == 'seen']
    assert len(got) == 2 and {r[1] for r in got} == set(big)
    for seq, obj, lo, hi, how in got:
        # read by the thread that filled it after its fill, at the latest before its own
        # next call (hr_tick); the other thread's call may start between
        (fill,) = [x['seq'] for x in recs if x['type'] == 'ACCESS' and x['obj_id'] == obj]
        tid = rows[fill]['tid']
        (tick,) = [int(r['seq']) for r in rows if r['tid'] == tid and r['func'] == 'hr_tick']
        assert fill < seq <= tick
        # the page of a[512 * k] (k = 1, 2: the value it filled with)
        base = big[obj]['addr'] % PAGE
        assert (lo, hi) in (page_of(base, 512 * 8), page_of(base, 2 * 512 * 8))


def test_thread_that_never_calls_again(built, tmp_path):
    """A second thread reads all of hr_fill's output (seq 0) and ends without a call of
    its own; the main thread, having joined it, fills again (seq 1), reads all, ticks
    (seq 2).  The second thread's read belongs before seq 1 (the first call to start
    after it), not at the run's end (seq 3): with hr_fill accelerated, the block comes
    back twice (exact d2h 2 x 512 KiB), not once."""
    out, rows, head, recs, big = scenario(built, 'late-reader')
    assert f'late {N * 1 + N * (N - 1) / 2:.1f} {N * 2 + N * (N - 1) / 2:.1f}' in out
    assert [r['func'] for r in rows] == ['hr_fill', 'hr_fill', 'hr_tick']
    a = min(big)    # (a read placed after the block's free would make it a second object)
    assert host_reads(recs) == [(1, a, 0, SIZE, 'seen'), (2, a, 0, SIZE, 'seen')]
    assert len(big) == 1
    make('bin/dyl-speedup')
    d = built[0]
    (tmp_path / 'k.csv').write_text('func,work,t_ns\nhr_fill,0,100\nhr_fill,1000000,100\n')
    (tmp_path / 'link.csv').write_text('func,work,t_ns\n@h2d,0,1000\n@h2d,1000000,1001000\n'
                                       '@d2h,0,2000\n@d2h,1000000,2002000\n')
    r = subprocess.run([os.path.join(ROOT, 'bin', 'dyl-speedup'), '--json', str(d / 'late-reader.csv'),
                        str(tmp_path / 'k.csv'), str(tmp_path / 'link.csv')],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    p = json.loads(r.stdout)
    assert p['residency_mode'] == 'exact'
    assert (p['d2h_bytes'], p['d2h_transfers']) == (2 * SIZE, 2)
    assert p['d2h_ns'] == 2 * 2000 + 2 * 2 * SIZE


def test_fork(built):
    d = built[0]
    out, rows, head, recs, big = scenario(built, 'fork')
    (a,) = big
    b = base_of(out)
    assert host_reads(recs) == [(1, a, *page_of(b, (2 * 512 + 1) * 8), 'seen')]
    children = [f for f in os.listdir(d) if f.startswith('fork.csv.') and f.endswith('.flow')
                and f != 'fork.csv.flow']
    assert len(children) == 1
    chead, crecs = flowread.read(str(d / children[0]))
    assert chead['flags'] & 8
    # the child's own first call is its seq 0; it read page 1 (its copy, still protected)
    # (the block is the parent's: an object of the child's file at its first mention)
    assert [(s, lo, hi, how) for s, _, lo, hi, how in host_reads(crecs)] == \
        [(0, *page_of(b, (512 + 1) * 8), 'seen')]


LIBC_SOME = os.path.join(C_FILES, 'libc_some.h')
LIBC_PICK = ['hr_*', 'read', 'write', 'sigaction', 'getrandom', 'close', 'strlen']
PICK = [a for p in LIBC_PICK for a in ('-f', p)]


def test_libc_wrapper_leaves_the_interposed_out(built):
    """Wrapping the C library with host_reads=on: read, write, sigaction, getrandom are
    left out (dyl_hostio.h's interposers would be hidden by their wrappers), with the
    reason and a note; close and strlen are wrapped; without host_reads, all are."""
    def listed(gen):
        out = dyliberator('--lib', 'libc.so.6', '--header', LIBC_SOME, *PICK, '-g', gen,
                          '--list').stdout
        return out, {line.split()[1]: line.split(None, 2)[2] for line in out.splitlines()
                     if line.startswith(('wrap ', 'skip ')) and line.split()[1] in LIBC_PICK}
    out, got = listed('std.flow:host_reads=on')
    for name in ('sigaction', 'getrandom'):
        assert got[name].startswith('std.flow:host_reads=on interposes it itself'), name
    # (read, write and close are the runtime's own: its process events, doc/jobs.md)
    for name in ('read', 'write'):
        assert got[name].startswith('the runtime interposes it itself'), name
    assert 'std.flow:host_reads=on: 2 functions not wrapped' in out
    for name in ('close', 'strlen'):
        assert not got[name].startswith('std.flow:host_reads=on'), name
    out, got = listed('std.flow')
    assert not any(v.startswith('std.flow:host_reads=on') for v in got.values())
    assert 'functions not wrapped' not in out


def test_libc_wrapped_too(built):
    """The program's write(2), fwrite and read(2) on protected pages, with the C library
    wrapped as well: they work and are recorded as with the library's
    wrapper alone"""
    d = built[0]
    w = wrap(d, '--lib', str(d / 'libhr.so'), '--lib', 'libc.so.6', '--header', str(d / 'hr.h'),
             '--header', LIBC_SOME, *PICK, '-g', 'std.flow:host_reads=on',
             name='wrap_libc.so')
    out, rows, head, recs, big = scenario(built, 'io', str(d / 'w1.bin'), str(d / 'w2.bin'),
                                          wrapper=w)
    assert 'read 524288, a[5]=12' in out
    (a,) = big
    calls = [r['func'] for r in rows]
    # (close, read and write are the runtime's own: doc/jobs.md)
    assert 'close' not in calls and 'write' not in calls and 'read' not in calls
    fills = [int(r['seq']) for r in rows if r['func'].startswith('hr_')]
    # write(2) before the second hr_ call, fwrite before the third, read(2) before the
    # fourth (close calls come between: a read is before the first call after it)
    assert [(lo, hi, how) for _, _, lo, hi, how in host_reads(recs, big)] == [(0, SIZE, 'seen')] * 3
    for (seq, *_), after in zip(host_reads(recs, big), fills):
        assert after < seq


def test_interposed_names_are_one_list(built):
    """What host_reads=on adds to a wrapper's exported functions is exactly
    DYL_HOSTIO_NAMES (and the lookup dyl_hostio_next): the list the generator leaves out
    is the list the header defines"""
    d = built[0]
    off = wrap(d, '--lib', str(d / 'libhr.so'), '--header', str(d / 'hr.h'), '-g', 'std.flow',
               name='wrap_names_off.so')

    def exported(so):
        out = subprocess.run(['nm', '-D', '--defined-only', so], capture_output=True, text=True,
                             check=True).stdout
        return {line.split()[-1].split('@')[0] for line in out.splitlines() if line.strip()}
    added = exported(built[2]) - exported(off)
    sys.path.insert(0, ROOT)
    from generator import hostio, select
    # (read, write, readv, writev and the spawns every wrapper exports: dyl_procs.h's)
    assert added == ((hostio.interposed(os.path.join(ROOT, 'runtime', 'include'))
                      - select.RUNTIME_OWNED) | {'dyl_hostio_next'})


def test_off_by_default(built):
    d, app, _ = built
    w = wrap(d, '--lib', str(d / 'libhr.so'), '--header', str(d / 'hr.h'), '-g', 'std.flow',
             name='wrap_off.so')
    out, rows, head, recs, big = scenario(built, 'read', wrapper=w)
    assert not head['flags'] & 8
    assert host_reads(recs) == []


# --- several calls, one buffer; the program's own protections; exec (issue 33) ---------

def whole_pages(base, lo, hi):
    """[LO, HI) of a block at BASE in its page, widened to whole pages (clipped)"""
    return page_of(base, lo)[0], page_of(base, hi - 1)[1]


def test_one_buffer_filled_by_two_calls(built):
    """hr_fill writes 1000 doubles, a second hr_fill the 2000 after them (the block is its
    argument: lifted before it runs), then write(2) of all 3000: every page the two
    wrote is read, the first call's too"""
    out, rows, head, recs, big = scenario(built, 'shared')
    assert 'wrote 24000' in out
    (a,) = big
    assert host_reads(recs) == [(2, a, *whole_pages(base_of(out), 0, 24000), 'seen')]


@pytest.fixture(scope='module')
def defs_wrapper(built):
    d = built[0]
    return wrap(d, '--lib', str(d / 'libhr.so'), '--header', str(d / 'hr.h'), '--defs',
                os.path.join(C_FILES, 'hr.defs'), '-g', 'std.flow:host_reads=on',
                name='wrap_defs.so')


def test_one_buffer_filled_through_a_struct(built, defs_wrapper):
    """The same through a struct (hr.defs names the output, as zlib.defs does
    deflate's): the second call's own fault on the page it shares with the first's
    output opens the first's pages, which are watched again after it"""
    out, rows, head, recs, big = scenario(built, 'shared-struct', wrapper=defs_wrapper)
    assert 'wrote 24000' in out
    (a,) = big
    # (the struct on the stack, which the calls write, is assumed read after each)
    assert host_reads(recs, big) == [(2, a, *whole_pages(base_of(out), 0, 24000), 'seen')]


def test_read_after_a_call_that_only_read(built):
    """hr_sum only reads hr_fill's output: the program's read after it is still of
    bytes hr_fill wrote"""
    out, rows, head, recs, big = scenario(built, 'read-after-read')
    assert [r['func'] for r in rows] == ['hr_fill', 'hr_sum', 'hr_tick']
    (a,) = big
    assert host_reads(recs) == [(2, a, *page_of(base_of(out), 3 * 512 * 8), 'seen')]


def test_many_ranges_lent_to_one_call(built):
    """The program reads every other page of hr_fill's output (64 ranges of it stay
    watched), hr_sum reads it all, then the program reads a double on page 127 (the
    last range): that read is seen after hr_sum (a call opens all of a block's ranges
    however many, and they are watched again after it)"""
    out, rows, head, recs, big = scenario(built, 'scattered')
    (a,) = big
    got = host_reads(recs, big)
    b = base_of(out)
    assert [r for r in got if r[0] == 1] == [(1, a, *page_of(b, k * PAGE), 'seen')
                                             for k in range(0, SIZE // PAGE, 2)]
    assert [r for r in got if r[0] != 1] == [(2, a, *page_of(b, SIZE - PAGE + 8), 'seen')]


def test_programs_own_protections(built):
    """The program makes a call's output read-only (its handler counts one write fault a
    page and opens it) and its last page a guard (PROT_NONE, caught): the same counts
    as without the wrapper (run_both), and its reads of the block are recorded"""
    out, rows, head, recs, big = scenario(built, 'own-protect')
    assert 'barrier faults 16 guard faults 1' in out and 'guard opened' not in out
    objs = {x['obj_id']: x for x in recs if x['type'] == 'OBJECT' and x['size'] == 17 * PAGE}
    (a,) = objs
    assert host_reads(recs) == [(1, a, 0, 16 * PAGE, 'seen')]


def test_exec_in_a_child_that_recorded_nothing(built):
    """a forked child that makes no call execs with an argument its parent's call wrote:
    the exec works (the kernel would fail it with EFAULT on a protected page)"""
    out, rows, head, recs, big = scenario(built, 'exec-unrecorded')
    assert 'sys-out.txt\nchild status 0' in out and 'Bad address' not in out
