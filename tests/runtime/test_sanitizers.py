"""The runtime under AddressSanitizer + UndefinedBehaviorSanitizer and under
ThreadSanitizer.

libdylrt.so is built from runtime/*.c twice into temporary directories, once with
-fsanitize=address,undefined and once with -fsanitize=thread (same soname), and so is
the wrapper of tests/apps/libtiny (generated with std.args too, so that the args buffers
are exercised).  The scenarios of tests/apps/tinyapp.c (threads, an exit while threads
still call, fork, exec, signals whose handlers make wrapped calls, nesting, errno,
longjmp, an unwritable trace, a full disk, a filter) run with

    LD_PRELOAD="<libasan.so or libtsan.so> <wrap.so>"  LD_LIBRARY_PATH=<sanitized runtime>

(the wrapper is linked against the sanitized runtime, so its DT_RUNPATH points there
too; the fixture checks that the sanitized copy is the one initialised and that it
needs the sanitizer's library).  The program (itself not instrumented) must print the
same as its plain run, exit the same, and no sanitizer may report anything.

Known reports (bugs in runtime/*.c found by these tests, KNOWN below) are tolerated in
the scenario tests, so that any *new* report still fails them; each also has a
strict-xfail test on a deterministic reproduction: it fails (with KnownBug only; any
other failure is a real one) while the bug is there and turns into an XPASS, itself a
failure, once it is fixed: the cue to drop it from KNOWN."""
import glob
import os
import re
import shutil
import subprocess

import pytest

import dyltest
from dyltest import ROOT, Trace

APPS = os.path.join(ROOT, 'tests', 'apps')
RUNTIME = os.path.join(ROOT, 'runtime')
CC = os.environ.get('CC', 'cc')
TIMEOUT = 60            # seconds for one sanitized run (TSan is 5-15x slower)

SAN_FLAGS = {
    'asan': ['-fsanitize=address,undefined', '-fno-omit-frame-pointer', '-g', '-O1'],
    'tsan': ['-fsanitize=thread', '-fno-omit-frame-pointer', '-g', '-O1'],
}
SAN_LIB = {'asan': 'libasan.so', 'tsan': 'libtsan.so'}
SAN_ENV = {
    # Leak checking stays on: the runtime's per-thread buffers are mmap'ed (LeakSanitizer
    # does not track mmap) and its process state is static, so no leak report is expected.
    'asan': {'ASAN_OPTIONS': 'detect_leaks=1:abort_on_error=0',
             'UBSAN_OPTIONS': 'halt_on_error=1:print_stacktrace=1'},
    # halt_on_error=0 (not 1): a known report (KNOWN) must not end the program early, so
    # that its output can still be compared and any further report is seen too.
    'tsan': {'TSAN_OPTIONS': 'halt_on_error=0 exitcode=66 second_deadlock_stack=1 history_size=7'},
}
TSAN_EXIT = 66
MARKERS = ('ERROR: AddressSanitizer', 'ERROR: LeakSanitizer', 'runtime error:',
           'UndefinedBehaviorSanitizer', 'WARNING: ThreadSanitizer', 'ThreadSanitizer:',
           'FATAL: ')


# --- known reports -------------------------------------------------------------------

def _tops(rep):
    """The functions making the racing accesses (the #0 frames of the access stacks,
    not those of the thread and mutex creation stacks)."""
    return set(re.findall(r'^\s*(?:Previous )?(?:atomic )?(?:read|write) of size \d+ at .*\n'
                          r'\s*#0 (\S+)', rep, re.M | re.I))


# name -> (what the bug is, predicate on one report's text)
# Races these tests found and that are fixed (atomics for the filter verdict cached in
# each struct dyl_func, for dyl_out.fd and for dyl_out.disabled): no longer tolerated, so
# any report of them fails the scenario tests; each keeps its reproduction below.
FIXED = {
    'resolve-in-handler': (
        "resolve.c dyl_resolve: the first call of a wrapped function made from a signal "
        "handler resolved it there, with dlopen/dlsym/dladdr (malloc, the loader lock): "
        "not async-signal-safe (fixed: the wrapper's constructor resolves them all)",
        lambda rep: 'signal-unsafe call inside of a signal' in rep and 'dyl_resolve' in rep),
    'func-state-race': (
        "runtime.c dyl_enter: f->state (the DYL_FILTER verdict cached in the wrapper's "
        "struct dyl_func) is read and written by every thread with plain accesses",
        lambda rep: 'data race' in rep and "Location is global 'dyl_func_" in rep
        and _tops(rep) == {'dyl_enter'}),
    'trace-fd-race': (
        "trace.c: dyl_out.fd is read with __atomic_load_n outside dyl_out.io "
        "(dyl_trace_claim, dyl_trace_footer) but written with a plain store under it "
        "(open_trace_as, dyl_trace_drop_unused, dyl_trace_reset_after_fork)",
        # the writer's stack may be lost to TSan's bounded history in long runs
        lambda rep: 'data race' in rep and "Location is global 'dyl_out'" in rep
        and re.search(r'atomic read of size 4 .*\n\s*#0 dyl_trace_(claim|footer) ', rep, re.I)
        and _tops(rep) <= {'dyl_trace_claim', 'dyl_trace_footer', 'open_trace_as',
                           'dyl_trace_drop_unused'}
        and (bool(_tops(rep) & {'open_trace_as', 'dyl_trace_drop_unused'})
             or '[failed to restore the stack]' in rep)),
    'disabled-race': (
        "runtime.c dyl_enter and trace.c dyl_trace_claim read dyl_out.disabled with plain "
        "loads outside dyl_out.io while open_trace_as and write_all set it under the lock "
        "(an unwritable trace or a full disk with several threads calling)",
        lambda rep: 'data race' in rep and "Location is global 'dyl_out'" in rep
        and re.search(r'^\s*(Previous )?read of size 4 .*\n\s*#0 (dyl_enter|dyl_trace_claim) ',
                      rep, re.M | re.I)
        and _tops(rep) <= {'dyl_enter', 'dyl_trace_claim', 'open_trace_as', 'write_all'}
        and (bool(_tops(rep) & {'open_trace_as', 'write_all'})
             or '[failed to restore the stack]' in rep)),
}

# name -> (what the bug is, predicate on one report's text): tolerated, each pinned by
# a strict xfail on a reproduction
KNOWN = {}


def reports(stderr):
    """The sanitizer reports in STDERR, one text each."""
    blocks = re.split(r'^==================$', stderr, flags=re.M)
    found = [b for b in blocks if 'WARNING: ThreadSanitizer' in b]
    rest = '\n'.join(b for b in blocks if 'WARNING: ThreadSanitizer' not in b)
    # ASan/UBSan/LSan (and anything else) reports: one per marker line
    found += [line for line in rest.splitlines() if any(m in line for m in MARKERS)
              and not line.startswith('ThreadSanitizer: reported')]
    return found


def classify(stderr):
    """(known: {key: count}, unknown: [report text])"""
    known, unknown = {}, []
    for rep in reports(stderr):
        key = next((k for k, (_, pred) in KNOWN.items() if pred(rep)), None)
        if key:
            known[key] = known.get(key, 0) + 1
        else:
            unknown.append(rep)
    return known, unknown


# --- builds --------------------------------------------------------------------------

class Build:
    """One sanitizer's runtime, wrapper and the environment to run under it."""


def _sanitizer_lib(name):
    p = subprocess.run([CC, f'-print-file-name={name}'], capture_output=True,
                       text=True).stdout.strip()
    return p if os.path.isabs(p) and os.path.exists(p) else None


@pytest.fixture(scope='module')
def apps(tmp_path_factory):
    """The plain library and program (shared by both sanitizers: only the runtime and
    the wrapper are instrumented; the program is the user's, untouched)."""
    d = str(tmp_path_factory.mktemp('apps'))
    t = Build()
    t.dir = d
    t.lib = dyltest.build_c(d, os.path.join(APPS, 'libtiny.c'), 'libtiny.so', '-fPIC',
                            '-shared', '-Wl,-soname,libtiny.so')
    link = ['-I' + APPS, '-L' + d, '-ltiny', '-Wl,-rpath,' + d]
    src = lambda name: os.path.join(APPS, name)  # noqa: E731
    t.app = dyltest.build_c(d, src('tinyapp.c'), 'tinyapp', *link, '-lpthread')
    t.mod = dyltest.build_c(d, src('tinymod.c'), 'libtinymod.so', '-fPIC', '-shared', *link)
    t.dl = dyltest.build_c(d, src('tinydl.c'), 'tinydl', '-ldl')
    dyltest.build_c(d, src('tinyctor.c'), 'libtinyctor.so', '-fPIC', '-shared', *link)
    t.ctorapp = dyltest.build_c(d, src('ctorapp.c'), 'ctorapp', *link, '-ltinyctor')
    return t


def _build(san, apps, tmp_path_factory):
    lib = _sanitizer_lib(SAN_LIB[san])
    if not lib:
        pytest.skip(f'{CC} has no {SAN_LIB[san]} (cc -print-file-name={SAN_LIB[san]})')
    d = str(tmp_path_factory.mktemp(san))
    b = Build()
    b.san, b.dir, b.preload_lib = san, d, lib
    flags = SAN_FLAGS[san]
    # the Makefile's RT_SRC: the core, each feature's folder and format/ (start.c orders start-up)
    srcs = sorted(glob.glob(os.path.join(RUNTIME, '*.c')) + glob.glob(os.path.join(RUNTIME, '*', '*.c')),
                  key=os.path.basename)
    b.runtime = os.path.join(d, 'libdylrt.so')
    dyltest.run([CC, *flags, '-Wall', '-Wextra', '-Wno-unused-parameter', '-std=gnu11',
                 '-fPIC', '-shared', '-fvisibility=hidden', '-I' + os.path.join(RUNTIME, 'include'),
                 '-I' + RUNTIME, '-I' + os.path.join(RUNTIME, 'format'),
                 '-Wl,-soname,libdylrt.so', '-o', b.runtime, *srcs, '-ldl', '-lpthread'])
    # the wrapper: generated, then built by its own Makefile with the sanitizer's flags,
    # linked against the sanitized runtime
    b.wrap = os.path.join(d, 'wrap.so')
    dyltest.dyliberator('--lib', apps.lib, '--header', os.path.join(APPS, 'tiny.h'),
                        '-g', 'std.args', '-g', 'std.regions', '-o', b.wrap, '--no-build', cwd=d)
    dyltest.run(['make', '-s', '-C', os.path.join(d, 'wrap.d'), f'CC={CC}',
                 'CFLAGS=' + ' '.join(flags), f'DYL_RUNTIME={d}'])
    b.prefix = []
    b.env = dict(SAN_ENV[san], LD_LIBRARY_PATH=d, LD_PRELOAD=f'{lib} {b.wrap}')
    # TSan needs its fixed memory layout; with more ASLR entropy than it was built for
    # (vm.mmap_rnd_bits > 28 with GCC 12's TSan) it stops with "FATAL: ThreadSanitizer:
    # unexpected memory mapping".  Then try without ASLR (setarch -R), else skip.
    probe = _run(b, [apps.app, 'calls', '3'], d, extra={'LD_DEBUG': 'libs'})
    if _cannot_start(probe) and shutil.which('setarch'):
        b.prefix = ['setarch', os.uname().machine, '-R']
        probe = _run(b, [apps.app, 'calls', '3'], d, extra={'LD_DEBUG': 'libs'})
    if _cannot_start(probe):
        pytest.skip(f'{san} cannot start a preloaded program here (also tried setarch -R): '
                    + ' | '.join(l for l in probe.stderr.splitlines()
                                 if 'FATAL' in l or 'ERROR' in l or 'Sanitizer' in l)[-600:])
    assert probe.returncode == 0, probe.stderr[-3000:]
    # the sanitized copy of the runtime is the one the wrapper got
    assert f'calling init: {b.runtime}' in probe.stderr, probe.stderr[-3000:]
    needed = dyltest.run(['readelf', '-d', b.runtime]).stdout
    assert SAN_LIB[san] in needed, needed
    return b


def _cannot_start(r):
    """The sanitizer's runtime itself failed to start (shadow memory, layout), as
    opposed to a report about the program."""
    return r.returncode != 0 and any(m in r.stderr for m in (
        'FATAL: ThreadSanitizer', 'FATAL: AddressSanitizer', 'unexpected memory mapping',
        'Shadow memory range interleaves', 'failed to allocate', 'does not come first',
        'incompatible ASan runtimes', 'not supported'))


@pytest.fixture(scope='module')
def asan(apps, tmp_path_factory):
    return _build('asan', apps, tmp_path_factory)


@pytest.fixture(scope='module')
def tsan(apps, tmp_path_factory):
    return _build('tsan', apps, tmp_path_factory)


def _clean_env():
    env = dict(os.environ)
    for k in ('LD_PRELOAD', 'LD_LIBRARY_PATH', 'DYL_TRACE', 'DYL_FILTER', 'DYL_OFF',
              'ASAN_OPTIONS', 'UBSAN_OPTIONS', 'TSAN_OPTIONS', 'LSAN_OPTIONS'):
        env.pop(k, None)
    return env


def _run(b, cmd, cwd, extra=None):
    env = dict(_clean_env(), **b.env, **(extra or {}))
    return subprocess.run(b.prefix + cmd, capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=TIMEOUT)


# --- the scenarios -------------------------------------------------------------------

# name -> (command, extra environment): in the command '{app}' and the like are the
# programs of the apps fixture, '{tmp}' the run's directory, '{n}' CALLS[sanitizer]
SCENARIOS = {
    'threads': (['{app}', 'threads', '8', '{n}'], {}),
    'threads-32': (['{app}', 'threads', '32', '2000'], {}),
    'exit-running': (['{app}', 'exit-running', '8', '3000'], {}),
    'fork-exit': (['{app}', 'fork', '50', '70', '30', 'exit'], {}),
    'fork-_exit': (['{app}', 'fork', '10', '123', '5', '_exit'], {}),
    'fork-exec': (['{app}', 'fork', '50', '70', '30', 'exec'], {}),
    'exec': (['{app}', 'exec', '40', '25'], {}),
    'exec-fail': (['{app}', 'exec-fail', '40', '25'], {}),
    '_exit': (['{app}', '_exit', '77'], {}),
    'orphan': (['{app}', 'orphan', '20', '30'], {}),
    'signals': (['{app}', 'signals', '200', '50', '200', '{tmp}/handler_calls'], {}),
    'nest': (['{app}', 'nest', '2000'], {}),
    'errno': (['{app}', 'errno', '20000'], {}),
    'longjmp': (['{app}', 'longjmp', '200'], {}),
    'filter': (['{app}', 'nest', '500'], {'DYL_FILTER': 'tiny_*,!tiny_inner'}),
    'off': (['{app}', 'threads', '4', '1000'], {'DYL_OFF': '1'}),
    'unwritable': (['{app}', 'fork', '3000', '4', '5', 'exit'],
                   {'DYL_TRACE': '/nonexistent/dir/t.csv'}),
    'full-disk': (['{app}', 'errno', '20000'], {'DYL_TRACE': '/dev/full'}),
    'unwritable-threads': (['{app}', 'threads', '8', '2000'],
                           {'DYL_TRACE': '/nonexistent/dir/t.csv'}),
    'full-disk-threads': (['{app}', 'threads', '8', '2000'], {'DYL_TRACE': '/dev/full'}),
    'dlopen-local': (['{dl}', '{mod}', '2000'], {}),
    'before-ctor': (['{ctorapp}'], {}),
    'sh-launcher': (['/bin/sh', '-c', '"$0" calls 40; "$0" threads 2 100', '{app}'], {}),
}
CALLS = {'asan': 100000, 'tsan': 20000}   # per thread, 'threads'


def run_scenario(b, apps, tmp_path, name):
    """Runs scenario NAME plain and under B; asserts the same stdout and exit status and
    no unknown sanitizer report; returns (sanitized run, known reports)."""
    args, extra = SCENARIOS[name]
    subst = {'{app}': apps.app, '{dl}': apps.dl, '{mod}': apps.mod,
             '{ctorapp}': apps.ctorapp, '{n}': str(CALLS[b.san])}

    def fill(a):
        a = subst.get(a, a)
        return a.replace('{tmp}', str(tmp_path))
    cmd = [fill(a) for a in args]
    extra = dict({'DYL_TRACE': str(tmp_path / 'trace.csv')}, **extra)
    plain = subprocess.run(cmd, capture_output=True, text=True, cwd=str(tmp_path),
                           env=_clean_env(), timeout=TIMEOUT)
    r = _run(b, cmd, str(tmp_path), extra)
    known, unknown = classify(r.stderr)
    assert not unknown, f'{b.san} report(s) in {name}:\n' + '\n'.join(unknown)[-6000:]
    assert r.stdout == plain.stdout, f'stdout differs under {b.san}:\n{r.stderr[-3000:]}'
    # with a (known) report TSan ends a program that returns normally with its exitcode
    expected = {plain.returncode, TSAN_EXIT} if known else {plain.returncode}
    assert r.returncode in expected, (plain.returncode, r.returncode, r.stderr[-3000:])
    return r, known


@pytest.mark.parametrize('san', ['asan', 'tsan'])
def test_region_table_storm(san, apps, tmp_path, request):
    """The region table (regions.c, charge.c, stackframe.c, statics.c) under 8 threads
    adding, finding and deleting blocks and charging heap, stack and static pointers and
    the main thread's stack (the list of stacks read while workers join and leave it).
    (In the scenarios above the sanitizer's own malloc comes first, so the wrapper's
    allocator interposers are not what the program calls.)"""
    b = request.getfixturevalue(san)
    exe = dyltest.build_c(str(tmp_path), os.path.join(APPS, 'regions_storm.c'), 'storm',
                          '-I' + os.path.join(RUNTIME, 'include'), '-L' + b.dir, '-ldylrt',
                          '-lpthread')
    env = dict(_clean_env(), **SAN_ENV[b.san], LD_LIBRARY_PATH=b.dir, LD_PRELOAD=b.preload_lib)
    r = subprocess.run(b.prefix + [exe, '300' if b.san == 'tsan' else '2000'], capture_output=True,
                       text=True, env=env, timeout=TIMEOUT, cwd=str(tmp_path))
    assert not reports(r.stderr), r.stderr[-3000:]
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split()[0] == 'ok' and r.stdout.split()[2] == 'unwound', r.stdout


def check_work(b, tmp_path, name):
    """The sanitized runtime did its work (a few scenarios checked)."""
    if name == 'threads':
        tr = Trace(str(tmp_path / 'trace.csv'))
        assert len(tr.rows) == 8 * CALLS[b.san]
        assert len({r['seq'] for r in tr.rows}) == len(tr.rows)
    if name == 'signals':       # the handlers did make wrapped calls
        assert int((tmp_path / 'handler_calls').read_text()) > 0
        assert Trace(str(tmp_path / 'trace.csv')).count('tiny_add') > 200 * 50


@pytest.mark.parametrize('name', list(SCENARIOS))
def test_asan_ubsan(asan, apps, tmp_path, name):
    r, known = run_scenario(asan, apps, tmp_path, name)
    assert not known
    check_work(asan, tmp_path, name)


@pytest.mark.parametrize('name', list(SCENARIOS))
def test_tsan(tsan, apps, tmp_path, name):
    r, known = run_scenario(tsan, apps, tmp_path, name)
    if known:
        print(f'known reports in {name}: {known}')
    check_work(tsan, tmp_path, name)


# --- the known bugs, one strict xfail each ---------------------------------------------

# Deterministic reproductions (the scenarios above show them only now and then).
#  race: the main thread makes the process's first call (it claims the trace: dyl_out.fd
#    and the function's state are written); a second thread, created before and released
#    by a flag TSan cannot see (the program is not instrumented), then makes its first
#    call: nothing orders its reads after those writes.
#  handler: the first call of tiny_add is made by a signal handler.
REPRO = os.path.join(APPS, 'tinyrepro.c')


@pytest.fixture(scope='module')
def repro(apps):
    return dyltest.build_c(apps.dir, REPRO, 'repro', '-I' + APPS, '-L' + apps.dir, '-ltiny',
                           '-Wl,-rpath,' + apps.dir, '-lpthread')


class KnownBug(Exception):
    """A KNOWN report was seen: what the strict xfails expect, and nothing else."""


def _seen(b, app, tmp_path, key, mode, trace=None):
    """Runs the reproduction (its output checked, no unknown report); KEY's report, or
    None."""
    r = _run(b, [app, mode], str(tmp_path), {'DYL_TRACE': trace or str(tmp_path / 'trace.csv')})
    plain = subprocess.run([app, mode], capture_output=True, text=True, env=_clean_env(),
                           timeout=TIMEOUT)
    assert r.stdout == plain.stdout
    known, unknown = classify(r.stderr)
    assert not unknown, '\n'.join(unknown)
    return next((rep for rep in reports(r.stderr) if {**FIXED, **KNOWN}[key][1](rep)), None)


def test_repro_runs_clean_under_asan(asan, repro, tmp_path):
    for mode, trace in (('race', None), ('handler', None), ('race', '/nonexistent/dir/t.csv')):
        assert _seen(asan, repro, tmp_path, 'func-state-race', mode, trace) is None


def test_tsan_no_race_on_func_state(tsan, repro, tmp_path):
    assert _seen(tsan, repro, tmp_path, 'func-state-race', 'race') is None


def test_tsan_no_race_on_trace_fd(tsan, repro, tmp_path):
    assert _seen(tsan, repro, tmp_path, 'trace-fd-race', 'race') is None


def test_tsan_no_race_on_disabled(tsan, repro, tmp_path):
    assert _seen(tsan, repro, tmp_path, 'disabled-race', 'race', '/nonexistent/dir/t.csv') is None


def test_tsan_first_call_in_a_signal_handler(tsan, repro, tmp_path):
    """The wrapper's constructor resolved every original (dyl_resolve_all): a first call
    from a signal handler runs no dlopen/dlsym/malloc there."""
    assert _seen(tsan, repro, tmp_path, 'resolve-in-handler', 'handler') is None


# --- the C tools over the fuzz corpus and bad inputs ----------------------------------

# bin/dyl-trace, dyl-speedup and dyl-model built with ASan + UBSan: every file of the
# fuzz corpus (tests/fuzz/corpus/: spools, traces, models, two damaged spools) and bad
# inputs made from them (cut short, emptied, bytes flipped, a trace without rows, a
# directory, no file) through each command.  A bad input gives exit 2 (1: nothing to
# do); never a sanitizer report.  Leak checking is off: the tools are one-shot
# processes that leave their memory to exit() on error paths.
TOOL_ENV = {'ASAN_OPTIONS': 'detect_leaks=0:abort_on_error=0:exitcode=66',
            'UBSAN_OPTIONS': 'halt_on_error=1:print_stacktrace=1:exitcode=66'}
CORPUS = os.path.join(ROOT, 'tests', 'fuzz', 'corpus')


@pytest.fixture(scope='module')
def tools(tmp_path_factory):
    if not _sanitizer_lib('libasan.so'):
        pytest.skip(f'{CC} has no libasan.so')
    d = str(tmp_path_factory.mktemp('tools'))
    def make_says(target):  # the sources and include flags, as the Makefile has them
        return dyltest.run(['make', '-s', '-C', ROOT, target]).stdout.split()
    flags = [*SAN_FLAGS['asan'], '-std=gnu11',
             *('-I' + os.path.join(ROOT, f[2:]) for f in make_says('tool-inc'))]
    for name in ('dyl-trace', 'dyl-speedup', 'dyl-model'):
        srcs = [os.path.join(ROOT, f) for f in make_says('tool-src-' + name)]
        dyltest.run([CC, *flags, '-o', os.path.join(d, name), *srcs, *make_says('tool-libs')],
                    cwd=d)
    return d


def bad_inputs(d):
    """{name: path}: the corpus, and bad inputs made from it in D."""
    files = {f'{kind}/{f}': os.path.join(CORPUS, kind, f)
             for kind in ('spool', 'trace', 'model') for f in os.listdir(os.path.join(CORPUS, kind))}
    made = {}
    for name, path in list(files.items()):
        data = open(path, 'rb').read()
        made[name + ':half'] = data[:len(data) // 2]
        flipped = bytearray(data)
        rnd = __import__('random').Random(name)
        for _ in range(8):
            flipped[rnd.randrange(len(flipped))] = rnd.randrange(256)
        made[name + ':flipped'] = bytes(flipped)
    made['empty'] = b''
    made['nul'] = b'\0' * 4096
    made['spool-magic-only'] = b'DYLSPOOL'
    # a trace that ends in its pid, its last byte the last of a page (mapped: no NUL after)
    made['ends-in-pid'] = b'# dyliberator trace 1\n# pid=' + b'7' * (4096 - 28)
    made['not-utf8-func'] = open(os.path.join(CORPUS, 'trace', 'nest.csv'), 'rb').read() \
        .replace(b'tiny_add', b'tiny_\xff\x1b[31m')
    for name, data in made.items():
        path = os.path.join(d, name.replace('/', '-').replace(':', '-'))
        with open(path, 'wb') as f:
            f.write(data)
        files[name] = path
    files['directory'] = d
    files['missing'] = os.path.join(d, 'no-such-file')
    return files


# command name -> argv after the tool ({f}: the input; {model}, {trace}: a good one; {out})
TOOL_RUNS = {
    'trace-cat': ['dyl-trace', '{f}'],
    'trace-summary': ['dyl-trace', 'summary', '{f}', '{trace}'],
    'trace-summary-json': ['dyl-trace', 'summary', '--json', '{f}'],
    'trace-chrome': ['dyl-trace', 'chrome', '{f}', '-o', '{out}'],
    'trace-diff': ['dyl-trace', 'diff', '--json', '{f}', '{trace}', '--func', 'd*'],
    'trace-chrome-filtered': ['dyl-trace', 'chrome', '{f}', '--time-range', '1us,1s', '-o', '{out}'],
    'speedup-trace': ['dyl-speedup', '{f}', '{model}'],
    'speedup-model': ['dyl-speedup', '{trace}', '{f}'],
    'model': ['dyl-model', '{f}'],
    'model-bytes': ['dyl-model', '{f}', '--bytes', '--all-depths'],
}


@pytest.mark.parametrize('run', list(TOOL_RUNS))
def test_tools_under_asan_ubsan(tools, tmp_path, run):
    inputs = bad_inputs(str(tmp_path))
    subst = {'{model}': os.path.join(CORPUS, 'model', 'lu-model.csv'),
             '{trace}': os.path.join(CORPUS, 'trace', 'lu-trace.csv'),
             '{out}': str(tmp_path / 'out.json')}
    env = dict(_clean_env(), **TOOL_ENV)
    wrong = []
    for name, path in sorted(inputs.items()):
        argv = [subst.get(a, a).replace('{f}', path) for a in TOOL_RUNS[run]]
        argv[0] = os.path.join(tools, argv[0])
        r = subprocess.run(argv, capture_output=True, env=env, timeout=TIMEOUT, cwd=str(tmp_path))
        err = r.stderr.decode(errors='replace')
        if reports(err) or r.returncode not in (0, 1, 2):
            wrong.append(f'{name}: exit {r.returncode}\n{err[-2500:]}')
    assert not wrong, f'{len(wrong)} of {len(inputs)} inputs:\n' + '\n'.join(wrong)[-8000:]
