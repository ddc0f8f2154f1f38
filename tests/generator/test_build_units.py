"""A wrapper of many functions is built as units compiled in parallel (wrap.h, wrap.c,
wrap_NNN.c); dyliberator rewrites only the units whose text changed, so a rebuild after a
change of --defs or options compiles only what changed; the parse of the headers is
kept in OUT.d/headers.json and parsed again when a header changes."""
import json
import os

from dyltest import ROOT, Trace, build_c, c_library, run, run_both, DYLIBERATOR

N = 600   # functions: two units, of 512 and 88 wrappers (generator/emit.py UNIT_SIZE)
ENV = dict(os.environ, CFLAGS='-O0')   # (what is compiled is counted here, not timed)


def many(tmp_path, n=N):
    header = ''.join(f'int f{i}(int x);\n' for i in range(n))
    source = ''.join(f'int f{i}(int x) {{ return x + {i}; }}\n' for i in range(n))
    return c_library(tmp_path, 'many', header, source)


def gen(tmp_path, lib, h, *args, env=ENV):
    out = os.path.join(str(tmp_path), 'w.so')
    r = run([DYLIBERATOR, '--lib', lib, '--header', h, '-o', out, *args], cwd=str(tmp_path), env=env)
    return out, os.path.join(str(tmp_path), 'w.d'), r


def stamps(d, ext):
    return {n: os.stat(os.path.join(d, n)).st_mtime_ns for n in os.listdir(d) if n.endswith(ext)}


def changed(before, after):
    return sorted(n for n in after if before.get(n) != after[n])


def unit_of(d, name):
    """The unit that holds NAME's wrapper."""
    units = [n for n in os.listdir(d) if n.startswith('wrap_') and n.endswith('.c')
             and f'({name})(' in open(os.path.join(d, n)).read()]
    assert len(units) == 1, units
    return units[0]


def defs(tmp_path, code):
    p = os.path.join(str(tmp_path), 'w.defs')
    with open(p, 'w') as f:
        f.write(f'libmany*::f300::postfix {{ {code} }}\n')
    return p


def test_units_built_and_traced(tmp_path):
    lib, h = many(tmp_path)
    so, d, _ = gen(tmp_path, lib, h)
    assert sorted(stamps(d, '.c')) == ['wrap.c', 'wrap_001.c', 'wrap_002.c']
    assert os.path.exists(os.path.join(d, 'wrap.h'))
    app = build_c(tmp_path, os.path.join(ROOT, 'tests', 'apps', 'units_app.c'), 'app', lib,
                  f'-Wl,-rpath,{tmp_path}')
    r, tp = run_both([app], so, tmp_path)
    t = Trace(tp)
    assert [t.count(f) for f in ('f0', 'f300', 'f599')] == [3, 3, 3]
    assert t.columns[:9] == ['seq', 'tid', 'func', 't_start_ns', 't_ns', 'in_bytes', 'out_bytes',
                             'work', 'depth']


def test_units_carry_what_every_wrapper_compiles_in(tmp_path):
    """wrap.h includes runtime/include/dyl_wrap.h: the exec and _exit trampolines that
    write the trace out first, and the ABI check (once a same-named include guard hid it,
    and a shell's trace came out empty)."""
    lib, h = many(tmp_path)
    so, _, _ = gen(tmp_path, lib, h)
    syms = run(['nm', '-D', so]).stdout.split('\n')
    defined = {l.split()[-1] for l in syms if len(l.split()) == 3 and l.split()[1] in 'TW'}
    undefined = {l.split()[-1] for l in syms if len(l.split()) == 2 and l.split()[0] == 'U'}
    assert {'execve', '_exit', '_Exit'} <= defined
    assert 'dyl_abi_6' in undefined


def test_units_without_the_library_headers(tmp_path):
    """A unit whose wrappers take and return only C's own types, pointers and enums is
    compiled without the library's headers (DYL_NO_LIB_HEADERS: a pointer to a struct is
    declared void *, an enum as its integer type, the same call); a unit with a struct
    returned by value includes them.  Both trace their calls."""
    header = ('struct opaque;\nenum color { RED, GREEN };\nstruct pair { int a, b; };\n'
              'int f1(struct opaque *p, enum color c);\nstruct pair g_pair(int x);\n'
              + ''.join(f'int f{i}(int x);\n' for i in range(N) if i != 1))
    source = ('int f1(struct opaque *p, enum color c) { return p ? 1 : (int)c; }\n'
              'struct pair g_pair(int x) { struct pair r = { x, x }; return r; }\n'
              + ''.join(f'int f{i}(int x) {{ return x + {i}; }}\n' for i in range(N) if i != 1))
    lib, h = c_library(tmp_path, 'many', header, source)
    so, d, _ = gen(tmp_path, lib, h)
    first, second = (open(os.path.join(d, n)).read() for n in ('wrap_001.c', 'wrap_002.c'))
    assert '#define DYL_NO_LIB_HEADERS' in first and '(f1)(void *p, unsigned int c)' in first
    assert 'DYL_NO_LIB_HEADERS' not in second and '(g_pair)(int x)' in second   # (names sort)
    app = build_c(tmp_path, os.path.join(ROOT, 'tests', 'apps', 'units_app.c'), 'app', lib,
                  f'-Wl,-rpath,{tmp_path}')
    r, tp = run_both([app], so, tmp_path)
    assert [Trace(tp).count(f) for f in ('f0', 'f300', 'f599')] == [3, 3, 3]


def test_same_options_rewrite_and_compile_nothing(tmp_path):
    lib, h = many(tmp_path)
    _, d, _ = gen(tmp_path, lib, h)
    src, obj = stamps(d, ('.c', '.h')), stamps(d, '.o')
    _, _, r = gen(tmp_path, lib, h)
    assert changed(src, stamps(d, ('.c', '.h'))) == []
    assert changed(obj, stamps(d, '.o')) == []
    assert '0 changed' in r.stderr


def test_defs_change_compiles_one_unit(tmp_path):
    lib, h = many(tmp_path)
    p = defs(tmp_path, 'work_size = 1;')
    _, d, _ = gen(tmp_path, lib, h, '--defs', p)
    obj = stamps(d, '.o')
    defs(tmp_path, 'work_size = 2;')
    so, _, _ = gen(tmp_path, lib, h, '--defs', p)
    assert changed(obj, stamps(d, '.o')) == [unit_of(d, 'f300')[:-2] + '.o']
    app = build_c(tmp_path, os.path.join(ROOT, 'tests', 'apps', 'units_app.c'), 'app', lib,
                  f'-Wl,-rpath,{tmp_path}')
    _, tp = run_both([app], so, tmp_path)
    assert {r['work'] for r in Trace(tp).rows if r['func'] == 'f300'} == {'2'}


def test_option_change_compiles_the_main_unit_alone(tmp_path):
    """An option's value that the wrappers read is defined in the main unit (DYL_CONFIG,
    a micro-generator's config part): changing clock= or deref= compiles wrap.c alone,
    and the wrappers then time by the thread's CPU clock."""
    lib, h = many(tmp_path)
    _, d, _ = gen(tmp_path, lib, h, '-g', 'std.args')
    obj = stamps(d, '.o')
    so, _, _ = gen(tmp_path, lib, h, '-g', 'std.args:deref=none', '-g', 'std.time:clock=thread')
    assert changed(obj, stamps(d, '.o')) == ['wrap.o']
    app = build_c(tmp_path, os.path.join(ROOT, 'tests', 'apps', 'units_app.c'), 'app', lib,
                  f'-Wl,-rpath,{tmp_path}')
    _, tp = run_both([app], so, tmp_path)
    t = Trace(tp)
    assert t.meta['time_clock'] == 'thread-cputime'
    assert sorted(r['args'] for r in t.rows if r['func'] == 'f300') == ['x=0', 'x=1', 'x=2']


def test_flags_change_compiles_every_unit(tmp_path):
    lib, h = many(tmp_path)
    _, d, _ = gen(tmp_path, lib, h)
    obj = stamps(d, '.o')
    gen(tmp_path, lib, h, env=dict(ENV, CFLAGS='-O0 -DDYL_TEST_FLAG'))
    assert changed(obj, stamps(d, '.o')) == sorted(obj)


def test_header_change_parses_again(tmp_path):
    lib, h = many(tmp_path, 300)
    _, d, _ = gen(tmp_path, lib, h, '--no-build')
    cache = json.load(open(os.path.join(d, 'headers.json')))
    assert cache['result']['protos']['f5']['params'][0]['type'] == 'int'
    with open(h) as f:
        text = f.read()
    with open(h, 'w') as f:   # the same library, the same names: a parameter's type changed
        f.write(text.replace('int f5(int x);', 'int f5(long x);'))
    _, d, _ = gen(tmp_path, lib, h, '--no-build')
    assert '(f5)(long x)' in open(os.path.join(d, unit_of(d, 'f5'))).read()


def test_a_user_microgen_without_split_gets_one_unit(tmp_path):
    lib, h = many(tmp_path)
    mg = tmp_path / 'mine' / 'my.mark'
    os.makedirs(mg)
    (mg / 'microgen.toml').write_text('summary = "a static counter"\nrequires = ["std.trace"]\n')
    (mg / 'template.c.j2').write_text(
        '{% macro file(w, p) %}static int my_calls;{% endmacro %}\n'
        '{% macro prefix(f, p) %}my_calls++;{% endmacro %}\n')
    gen(tmp_path, lib, h, '--no-build')   # split first: its units go when one is made
    _, d, _ = gen(tmp_path, lib, h, '-M', str(tmp_path / 'mine'), '-g', 'my.mark', '--no-build')
    assert sorted(stamps(d, '.c')) == ['wrap.c'] and not os.path.exists(os.path.join(d, 'wrap.h'))


def test_units_with_every_kind_of_shared_code(tmp_path):
    """std.regions (malloc defined once: in the main unit), std.faults and std.papi (data
    in wrap.h that every unit shares): linked, and the calls of every unit traced."""
    lib, h = many(tmp_path)
    so, d, _ = gen(tmp_path, lib, h, '-g', 'std.regions', '-g', 'std.faults', '-g', 'std.args')
    assert len(stamps(d, '.o')) == 3
    app = build_c(tmp_path, os.path.join(ROOT, 'tests', 'apps', 'units_app.c'), 'app', lib,
                  f'-Wl,-rpath,{tmp_path}')
    _, tp = run_both([app], so, tmp_path)
    t = Trace(tp)
    assert [t.count(f) for f in ('f0', 'f300', 'f599')] == [3, 3, 3]
    assert {r['args'] for r in t.rows if r['func'] == 'f300'} == {'x=0', 'x=1', 'x=2'}
    assert {(r['in_bytes'], r['out_bytes']) for r in t.rows} == {('4', '4')}
    assert 'faults' in t.columns


def test_library_change_read_again(tmp_path):
    """OUT.d/libraries.json keeps the read of the library until the file changes."""
    lib, h = many(tmp_path, 300)
    gen(tmp_path, lib, h, '--no-build')
    _, d, _ = gen(tmp_path, lib, h, '--no-build')   # (the second run reads the cache)
    assert os.path.exists(os.path.join(d, 'libraries.json'))
    lib, h = many(tmp_path, 301)   # the same paths, one function more
    _, d, _ = gen(tmp_path, lib, h, '--no-build')
    assert unit_of(d, 'f300')


def test_quiet_or_not_compiles_nothing(tmp_path):
    """Options that change no code (-q) rewrite the Makefile's comment, no unit."""
    lib, h = many(tmp_path)
    _, d, _ = gen(tmp_path, lib, h)
    obj = stamps(d, '.o')
    gen(tmp_path, lib, h, '-q')
    assert changed(obj, stamps(d, '.o')) == []


def test_caches_not_written_again_when_unchanged(tmp_path):
    """A wrapper generated again from its caches writes neither of them (libcrypto: 0.7 s
    of CPU was spent writing libraries.json again)."""
    lib, h = many(tmp_path, 300)
    _, d, _ = gen(tmp_path, lib, h, '--no-build')
    before = stamps(d, '.json')
    assert sorted(before) == ['headers.json', 'libraries.json']
    gen(tmp_path, lib, h, '--no-build')
    assert changed(before, stamps(d, '.json')) == []


def test_split_wrapper_built_at_O0_one_unit_at_O2(tmp_path):
    """Units at -O0 -g (the compile time of a whole library; no slower per call:
    bench/build/percall_opt.sh); one unit at -O2 -g (its frames are what std.diff sees in
    make accuracy, whose wrappers are all one unit)."""
    lib, h = many(tmp_path)
    _, d, _ = gen(tmp_path, lib, h, '--no-build')
    assert 'CFLAGS ?= -O0 -g\n' in open(os.path.join(d, 'Makefile')).read()
    lib, h = many(tmp_path, 10)
    _, d, _ = gen(tmp_path, lib, h, '--no-build')
    assert 'CFLAGS ?= -O2 -g\n' in open(os.path.join(d, 'Makefile')).read()


def test_defs_change_runs_the_compiler_once_and_links(tmp_path):
    """The compiler runs of a rebuild after a --defs change, counted (CC logs its command
    lines): one compile, of the unit that holds the function, and the link."""
    lib, h = many(tmp_path)
    log = os.path.join(str(tmp_path), 'cc.log')
    env = dict(ENV, CC=os.path.join(ROOT, 'tests', 'generator', 'logcc.sh'), LOGCC=log)
    p = defs(tmp_path, 'work_size = 1;')
    _, d, _ = gen(tmp_path, lib, h, '--defs', p, env=env)
    assert sum(' -c ' in l for l in open(log)) == 3   # wrap.c and two units
    os.unlink(log)
    defs(tmp_path, 'work_size = 2;')
    gen(tmp_path, lib, h, '--defs', p, env=env)
    runs = open(log).read().splitlines()
    assert [l.split()[-1] for l in runs if ' -c ' in l] == [unit_of(d, 'f300')]
    assert len(runs) == 2 and ' -shared ' in runs[1]


def test_between_split_and_unit_size_two_units(tmp_path):
    """300 functions (more than SPLIT_ABOVE, fewer than UNIT_SIZE): the main unit and one
    unit of wrappers, compiled in parallel at -O0, not one unit at -O2."""
    lib, h = many(tmp_path, 300)
    _, d, _ = gen(tmp_path, lib, h, '--no-build')
    assert sorted(stamps(d, '.c')) == ['wrap.c', 'wrap_001.c']


def test_dpkg_asked_once_then_kept(tmp_path):
    """The headers of a library found through dpkg (-S, then -L): asked by the first
    generation, then kept in OUT.d/packages.json while dpkg's status file is unchanged
    (dpkg on PATH logs its command lines: tests/generator/logdpkg/dpkg)."""
    log = os.path.join(str(tmp_path), 'dpkg.log')
    env = dict(ENV, PATH=os.path.join(ROOT, 'tests', 'generator', 'logdpkg') + ':' + os.environ['PATH'],
               LOGDPKG=log)
    out = os.path.join(str(tmp_path), 'z.so')
    for _ in range(2):
        run([DYLIBERATOR, '--lib', 'libz.so.1', '-o', out, '--no-build'], cwd=str(tmp_path), env=env)
    asked = open(log).read().split('\n')
    assert [a.split()[0] for a in asked if a] == ['-S', '-L']
    assert '#include "/usr/include/zlib.h"' in open(os.path.join(str(tmp_path), 'z.d', 'wrap.c')).read()


def test_units_share_the_steps(tmp_path):
    """Each unit's wrappers call the steps they share (runtime/include/dyl_wcall.h):
    compiled once a unit, local to it; the wrappers' own code names no runtime call."""
    lib, h = many(tmp_path)
    so, d, _ = gen(tmp_path, lib, h)
    for unit in ('wrap_001', 'wrap_002'):
        syms = run(['nm', os.path.join(d, unit + '.o')]).stdout.split('\n')
        steps = ('dyl_wbegin', 'dyl_wend', 'dyl_wopen', 'dyl_wstart', 'dyl_wstop', 'dyl_wclose')
        local = sorted(s.split()[-1] for s in syms if ' t ' in s and s.split()[-1] in steps)
        assert local == ['dyl_wbegin', 'dyl_wend']
        undefined = {s.split()[-1] for s in syms if ' U ' in s}
        assert {'dyl_enter', 'dyl_leave'} <= undefined   # (called from the steps)
    text = open(os.path.join(d, 'wrap_001.c')).read()
    body = text[text.index('DYL_EXPORT int (f0)'):text.index('DYL_EXPORT int (f1)')]
    assert 'dyl_enter(' not in body and 'dyl_wbegin(' in body and body.count('dyl_fn(x)') == 1
