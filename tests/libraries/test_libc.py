"""Wrapping the C library itself: every call the runtime makes on its own (its clock,
its locks, its writes, the lookups of originals) would land in a wrapper.  Programs
must run unchanged, and only their own calls be recorded."""

import os
import pytest

from dyltest import Trace, build_c, run_both, wrap

HEADERS = ['stdio.h', 'stdlib.h', 'string.h', 'signal.h', 'unistd.h', 'pthread.h', 'time.h']


@pytest.fixture(scope='module')
def libc_wrapper(tmp_path_factory):
    d = tmp_path_factory.mktemp('libc')
    args = ['--lib', 'libc.so.6']
    for h in HEADERS:
        args += ['--header', f'/usr/include/{h}']
    return d, wrap(d, *args)


@pytest.mark.parametrize('cmd', [
    ['/bin/ls', '-l', '/usr/include/stdio.h', '/usr'],
    ['/usr/bin/sort', '/etc/passwd'],
    ['/bin/sh', '-c', 'echo one; echo two | tr a-z A-Z'],
    ['/usr/bin/python3', '-c', 'import json, threading; t = threading.Thread(target=print, args=(json.dumps([1, 2]),)); t.start(); t.join()'],
], ids=['ls', 'sort', 'sh', 'python-threads'])
def test_programs_unchanged(libc_wrapper, cmd):
    d, w = libc_wrapper
    _, tp = run_both(cmd, w, d, trace=f'{cmd[0].split("/")[-1]}.csv')
    t = Trace(tp)
    assert t.rows, 'the program makes libc calls: some must be recorded'
    assert 'total_ns' in t.meta


KNOWN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'libc_known.c')


def test_only_the_programs_calls_are_recorded(libc_wrapper):
    """An app whose libc calls are known: the runtime's own clock reads, locks, signal
    masks and writes (which also land in libc's wrappers) are never in the trace."""
    d, w = libc_wrapper
    app = build_c(d, KNOWN, 'known', '-fno-builtin')
    _, tp = run_both([app], w, d, trace='known.csv')
    counts = {}
    for f in Trace(tp).funcs():
        counts[f] = counts.get(f, 0) + 1
    # glibc's stdlib.h turns atoi into a call of strtol
    atoi = 'strtol' if 'strtol' in counts else 'atoi'
    assert counts == {'strlen': 1000, atoi: 1, 'printf': 1}, counts


def test_allocator_and_dl_are_left_alone(libc_wrapper):
    d, w = libc_wrapper
    from dyltest import dyliberator
    out = dyliberator('--lib', 'libc.so.6', '--header', '/usr/include/stdlib.h', '--header',
                      '/usr/include/dlfcn.h', '--list', cwd=str(d)).stdout
    lines = {l.split()[1]: l for l in out.splitlines() if l.startswith(('wrap ', 'skip '))}
    for f in ('malloc', 'free', 'realloc', 'dlsym', 'dlopen'):
        assert lines[f].startswith('skip') and 'forwarding core uses it' in lines[f], lines[f]
    assert lines['qsort'].startswith('wrap')


def test_whole_libc_with_its_own_headers(tmp_path):
    """No --header: the headers are libc6-dev's (found through its libc.so linker
    script, glibc's internal bits/ headers left out), not every header that mentions
    a libc function (C++, LLVM, valgrind...); the ~1600-function wrapper runs programs
    unchanged."""
    from dyltest import dyliberator
    listing = dyliberator('--lib', 'libc.so.6', '--list', cwd=str(tmp_path))
    for foreign in ('c++/', 'llvm', 'valgrind', '/bits/'):
        assert foreign not in listing.stderr + listing.stdout.split('\nwrap ')[0], foreign
    wrapped = [l for l in listing.stdout.splitlines() if l.startswith('wrap ')]
    assert len(wrapped) > 1000
    assert any(l.startswith('skip __errno_location ') for l in listing.stdout.splitlines())
    w = wrap(tmp_path, '--lib', 'libc.so.6')
    for i, cmd in enumerate([['/bin/ls', '-l', '/usr'],
                             ['/usr/bin/python3', '-c', 'import hashlib; print(hashlib.sha256(b"x" * 10**6).hexdigest())']]):
        _, tp = run_both(cmd, w, tmp_path, trace=f'whole{i}.csv')
        assert Trace(tp).rows
