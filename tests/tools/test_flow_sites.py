"""std.flow's allocation sites named offline (issue 33, issue 38): the process writes
return addresses and its module table, nothing more; dyl-flow names them from the files
(speedup/lib/flow/flow_syms.c, libdw, each address looked up once).

tests/apps/flow_sites.c (-g) over the reference BLAS: its sites carry the file and line
of their /* SITE TAG */ marks, and the process loads no debuginfod client.  A program
gone by the time the tool runs (deleted, or rebuilt: another build ID), or a library
unlinked while the process ran, keeps the names the process could give, object+0xoff,
and those offsets are the object's own: addr2line on a copy finds the marked lines."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from dyltest import REF_BLAS, ROOT, TEST_APPS, build_c, make, run_both, wrap
from test_flow_dhat import marks     # TAG -> 'flow_sites.c:LINE'
from test_flow_real import dyl_flow, rows

sys.path.insert(0, os.path.join(ROOT, 'microgens', 'std.flow'))
import flowread  # noqa: E402

APP = os.path.join(TEST_APPS, 'flow_sites.c')


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    make('bin/dyl-flow')
    d = tmp_path_factory.mktemp('sites')
    w = wrap(d, '--lib', REF_BLAS, '--header', os.path.join(ROOT, 'examples', 'blas.h'),
             '-g', 'std.flow')
    return d, w


def program(d, name, *defs):
    return build_c(d, APP, name, *defs, REF_BLAS, f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')


def mine(trace, name):
    """{site: blocks} of the heap objects whose innermost frame is the program's"""
    out = {}
    for r in rows(dyl_flow(trace, '--objects')):
        if r['kind'] == 'heap' and r['site'].split(' <- ')[0].startswith(name):
            out[r['site']] = out.get(r['site'], 0) + int(r['blocks'])
    return out


def test_sites_named_by_line(built):
    d, w = built
    app = program(d, 'flow_sites')
    _, trace = run_both([app, '12'], w, d, trace='named.csv')
    with open(trace + '.flow', 'rb') as f:
        assert b'flow_sites.c' not in f.read()      # no name is made in the process
    # LD_DEBUG=files lists every object the loader maps, exit included: naming at exit
    # started libdw's debuginfod client (libcurl, libssh2: openssl crashed, issue 33).
    # (libdw itself is loaded here during the run: dasum_'s scalars are stack pointers,
    # bounded by their variables, regions/stackvars.c; microgens/std.flow's
    # test_no_library_loaded_to_name_sites runs a program that passes none.)
    env = dict(os.environ, LD_PRELOAD=w, DYL_TRACE=str(d / 'debug.csv'), LD_DEBUG='files')
    r = subprocess.run([app, '12'], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    files = re.findall(r'file=(\S+)', r.stderr)
    assert any('libblas' in f for f in files), files
    assert not [f for f in files if re.search(r'debuginfod|curl|ssh', f)], files
    m = marks()
    at = lambda tag: m[tag] + ')'
    # the frames above main (the C library's start) are left out
    sites = {**mine(trace, 'main'), **mine(trace, 'make')}
    want = {f'main ({at("LOOP")}': 12, f'main ({at("CALLOC")}': 1,
            f'make ({at("HELPER")} <- main ({at("FIRST")}': 1,
            f'make ({at("HELPER")} <- main ({at("SECOND")}': 1, f'main ({at("ALIGNED")}': 1}
    assert sites == want


def raw_sites(trace, name):
    """{(offset of each of NAME's frames): blocks}; NAME's frames all object+0xoff"""
    out = {}
    for site, n in mine(trace, name + '+0x').items():
        frames = [f for f in site.split(' <- ') if f.startswith(name + '+')]
        assert all(re.fullmatch(re.escape(name) + r'\+0x[0-9a-f]+', f) for f in frames), site
        key = tuple(int(f.split('+0x')[1], 16) for f in frames)
        out[key] = out.get(key, 0) + n
    return out


def lines(exe, offsets):
    """addr2line's file:line of each return address (the call is the byte before)"""
    r = subprocess.run(['addr2line', '-e', exe, *[hex(o - 1) for o in offsets]],
                       capture_output=True, text=True, check=True)
    return tuple(os.path.basename(x.split(' ')[0]) for x in r.stdout.splitlines())


@pytest.mark.parametrize('how', ['deleted', 'rebuilt'])
def test_program_gone_keeps_raw_names(built, how):
    """The program's file gone or replaced after the run: object+0xoff, exit 0; the
    offsets are the run's program's (addr2line on a copy of it finds the marks)"""
    d, w = built
    name = f'sites_{how}'
    app = program(d, name)
    keep = shutil.copy(app, os.path.join(str(d), name + '.kept'))
    _, trace = run_both([app, '12'], w, d, trace=f'{how}.csv')
    if how == 'deleted':
        os.unlink(app)
    else:   # another build: another build ID, other offsets
        program(d, name, '-fno-omit-frame-pointer')
    got = {lines(keep, k): n for k, n in raw_sites(trace, name).items()}
    at = marks()
    assert got == {(at['LOOP'],): 12, (at['CALLOC'],): 1, (at['HELPER'], at['FIRST']): 1,
                   (at['HELPER'], at['SECOND']): 1, (at['ALIGNED'],): 1}


@pytest.mark.skipif(shutil.which('ltrace') is None, reason='needs ltrace')
def test_each_address_looked_up_once(built):
    """dwfl_module_addrinfo reads a module's whole symbol table each call: the tool calls
    it once an address (flow_syms.c's memo), not once a frame.  The helper's frame is in
    two sites, and libc's start in many: fewer calls than frames."""
    d, w = built
    app = program(d, 'flow_once')
    _, trace = run_both([app, '12'], w, d, trace='once.csv')
    _, recs = flowread.read(trace + '.flow')     # the tool's names: frames up to main
    frames = [pc - 1 for r in recs if r['type'] == 'SITE'
              for pc, name in zip(r['pcs'], r['text'].split(' <- ')) if not name.startswith('0x')]
    _, recs = flowread.read(trace + '.flow', names=False)   # every stack object's own ip
    frames += [r['addr'] for r in recs if r['type'] == 'OBJECT' and r['kind'] == 'static']
    frames += [r['ip'] - 1 for r in recs if r['type'] == 'OBJECT' and r['kind'] == 'stack' and r['ip']]
    out = str(d / 'ltrace.txt')
    subprocess.run(['ltrace', '-c', '-o', out, '-e', 'dwfl_module_addrinfo',
                    os.path.join(ROOT, 'bin', 'dyl-flow'), '--objects', trace],
                   capture_output=True, check=True, timeout=300)
    calls = re.search(r'(\d+) dwfl_module_addrinfo', open(out).read())
    assert len(set(frames)) < len(frames)
    assert int(calls.group(1)) == len(set(frames))


LIB_AL = '''#include <stdlib.h>
__attribute__((noinline)) double *al(int n)
{
	double *p = malloc(n * sizeof(double));
	for (int i = 0; i < n; i++)
		p[i] = i;
	return p;
}
'''
APP_AL = '''#include <stdio.h>
#include <unistd.h>
double *al(int n);
double dasum_(const int *n, const double *x, const int *incx);
int main(int argc, char **argv)
{
	int n = 100, one = 1;
	unlink(argv[1]);	/* the library's file gone while the process runs */
	double *p = al(n);
	printf("%g\\n", dasum_(&n, p, &one));
	return 0;
}
'''


def test_library_deleted_during_the_run(built):
    """A temporary library unlinked while the process runs: the loader's name for it is
    'PATH (deleted)'; the tool cannot open it and keeps 'libal.so (deleted)+0xoff'."""
    d, w = built
    lib, src = os.path.join(str(d), 'libal.so'), os.path.join(str(d), 'libal.c')
    with open(src, 'w') as f:
        f.write(LIB_AL)
    subprocess.run(['cc', '-O2', '-g', '-fPIC', '-shared', '-o', lib, src], check=True)
    keep = shutil.copy(lib, lib + '.kept')
    app = build_c(d, APP_AL, 'app_al', lib, f'-Wl,-rpath,{d}', REF_BLAS,
                  f'-Wl,-rpath,{os.path.dirname(REF_BLAS)}')
    env = dict(os.environ, LD_PRELOAD=w, DYL_TRACE=str(d / 'al.csv'))
    r = subprocess.run([app, lib], capture_output=True, text=True, env=env, timeout=120)
    assert (r.returncode, r.stdout) == (0, '4950\n'), r.stderr[-2000:]
    (site,) = [s for s in mine(str(d / 'al.csv'), 'libal.so')]
    inner, caller = site.split(' <- ')
    m = re.fullmatch(r'libal\.so \(deleted\)\+0x([0-9a-f]+)', inner)
    assert m and caller == 'main (app_al.c:9)', site
    assert lines(keep, [int(m.group(1), 16)]) == ('libal.c:4',)
