"""Helpers shared by the scenario tests: build a tiny app, generate a wrapper, run the
app with and without it, compare the outputs, read the trace."""
import contextlib
import csv
import fcntl
import io
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DYLIBERATOR = os.path.join(ROOT, 'bin', 'dyliberator')
EXAMPLES = os.path.join(ROOT, 'examples')
TEST_APPS = os.path.join(ROOT, 'tests', 'apps')
REF_BLAS = '/usr/lib/x86_64-linux-gnu/blas/libblas.so.3'
REF_LAPACK = '/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3'
DEBIAN_PY = '/usr/bin/python3'


def has_scipy_and_lapack():
    """Debian's python3 has scipy (python3-scipy), and the reference LAPACK is there."""
    return os.path.exists(REF_LAPACK) and subprocess.run(
        [DEBIAN_PY, '-c', 'import scipy.linalg'], capture_output=True).returncode == 0


TIMEOUT = 300  # seconds for any one command of a test


@contextlib.contextmanager
def root_make_lock(cmd):
    """Holds build/.make.lock while CMD, a make in the project's root, runs: pytest-xdist's
    workers would otherwise build the same file at once (make test -> -n auto)."""
    if cmd[:1] != ['make'] or ROOT not in cmd:
        yield
        return
    os.makedirs(os.path.join(ROOT, 'build'), exist_ok=True)
    with open(os.path.join(ROOT, 'build', '.make.lock'), 'w') as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def run(cmd, check=True, **kw):
    """Runs CMD (a list), returns CompletedProcess with text output."""
    kw.setdefault('timeout', TIMEOUT)
    with root_make_lock(cmd):
        r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        raise AssertionError(f'{cmd} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}')
    return r


def make(*targets):
    """Builds TARGETS of the project's Makefile (bin/dyl-speedup...) before a module's tests."""
    run(['make', '-s', '-C', ROOT, *targets])


def dyliberator(*args, cwd=None, check=True):
    """bin/dyliberator -q ARGS; without the library profiles (microgens/profiles/) unless
    ARGS name --profile: a test's wrapper has the --defs and -f it gives, and no more."""
    profile = [] if '--profile' in args else ['--profile', 'none']
    return run([DYLIBERATOR, '-q', *profile, *args], cwd=cwd, check=check)


def wrap(tmp_path, *args, name='wrap.so'):
    """Generates and builds a wrapper in TMP_PATH; returns its path."""
    out = os.path.join(str(tmp_path), name)
    dyliberator(*args, '-o', out, cwd=str(tmp_path))
    return out


def build_c(tmp_path, source, name, *flags):
    """Compiles SOURCE (a path, or C text) into TMP_PATH/NAME."""
    if '\n' in source:
        src = os.path.join(str(tmp_path), name + '.c')
        with open(src, 'w') as f:
            f.write(source)
    else:
        src = source
    exe = os.path.join(str(tmp_path), name)
    run(['cc', '-O2', '-g', '-o', exe, src, *flags])
    return exe


def run_both(cmd, wrapper, tmp_path, env=None, trace='trace.csv', stdin=None):
    """Runs CMD plain and with WRAPPER preloaded; asserts identical stdout, stderr and
    exit status; returns (CompletedProcess of the wrapped run, trace path)."""
    base = dict(os.environ, **(env or {}))
    base.pop('LD_PRELOAD', None)
    trace_path = os.path.join(str(tmp_path), trace)
    # a hang (a deadlock in the runtime, say) fails the test instead of stalling CI
    plain = subprocess.run(cmd, capture_output=True, env=base, cwd=str(tmp_path), input=stdin,
                           timeout=TIMEOUT)
    wenv = dict(base, LD_PRELOAD=wrapper, DYL_TRACE=trace_path)
    wrapped = subprocess.run(cmd, capture_output=True, env=wenv, cwd=str(tmp_path), input=stdin,
                             timeout=TIMEOUT)
    assert wrapped.returncode == plain.returncode, (plain, wrapped)
    assert wrapped.stdout == plain.stdout, 'stdout differs under the wrapper'
    assert wrapped.stderr == plain.stderr, f'stderr differs: {wrapped.stderr[-2000:]!r}'
    return wrapped, trace_path


class Trace:
    """A parsed trace: .rows (dicts, values as str), .meta (key -> value)."""

    def __init__(self, path):
        self.path = path
        self.meta, lines = {}, []
        with open(path, newline='') as f:
            for line in f:
                if line.startswith('#'):
                    k, _, v = line[1:].strip().partition('=')
                    self.meta[k.strip()] = v
                else:
                    lines.append(line)
        self.rows = list(csv.DictReader(io.StringIO(''.join(lines))))
        self.columns = lines[0].strip().split(',') if lines else []

    def funcs(self):
        return [r['func'] for r in self.rows]

    def count(self, func):
        return sum(1 for r in self.rows if r['func'] == func)

    def by_seq(self):
        return sorted(self.rows, key=lambda r: int(r['seq']))


def c_library(tmp_path, name, header, source):
    """Builds lib<NAME>.so in TMP_PATH from SOURCE and HEADER: each a path (the source
    includes "NAME.h" itself) or C text; the header is copied to TMP_PATH/NAME.h.
    Returns (library path, header path)."""
    d = str(tmp_path)
    h = os.path.join(d, f'{name}.h')
    if '\n' not in header:
        with open(header) as f:
            header = f.read()
    with open(h, 'w') as f:
        f.write(header)
    if '\n' in source:
        src = os.path.join(d, f'lib{name}.c')
        with open(src, 'w') as f:
            f.write(f'#include "{name}.h"\n' + source)
    else:
        src = source
    lib = os.path.join(d, f'lib{name}.so')
    run(['cc', '-O2', '-g', '-shared', '-fPIC', f'-Wl,-soname,lib{name}.so', '-o', lib, src])
    return lib, h


def c_app(tmp_path, name, source, lib):
    """Builds an app from SOURCE (a path, or C text) linked against LIB (found through its
    rpath)."""
    d = os.path.dirname(lib)
    return build_c(tmp_path, source, name, f'-I{d}', lib, f'-Wl,-rpath,{d}')


def app_with_and_without_debug_info(tmp_path, name, header, source, app):
    """lib<NAME>.so from C (paths or text, as c_library), and APP linked against it twice: built with -g
    and stripped (-s).  Returns (library, header, {'g': path, 'stripped': path})."""
    lib, h = c_library(tmp_path, name, header, source)
    d = os.path.dirname(lib)
    flags = [f'-I{d}', lib, f'-Wl,-rpath,{d}']
    return lib, h, {'g': build_c(tmp_path, app, 'app_g', *flags),
                    'stripped': build_c(tmp_path, app, 'app_s', '-s', *flags)}


def list_verdicts(out):
    """dyliberator --list output -> {'wrap'|'skip'|'none': {name: rest of the line}}."""
    kinds = {'wrap': {}, 'skip': {}, 'none': {}}
    for line in out.splitlines():
        kind, _, rest = line.partition(' ')
        if kind in kinds:
            name, _, why = rest.strip().partition(' ')
            kinds[kind][name] = why.strip()
    return kinds


def lib_path(soname):
    """SONAME's file as ldconfig knows it (independently of the generator's lookup)."""
    out = run(['/sbin/ldconfig', '-p']).stdout
    for line in out.splitlines():
        m = re.match(r'\s*(\S+) \(([^)]*)\) => (\S+)', line)
        if m and m.group(1) == soname and 'x86-64' in m.group(2):
            return m.group(3)
    raise AssertionError(f'{soname} not found by ldconfig')


def readelf_dynsyms(path):
    """name -> (type, section index, version, default?) of the defined dynamic symbols,
    read with readelf (independently of the generator's own ELF reader)."""
    syms = {}
    for line in run(['readelf', '--dyn-syms', '-W', path]).stdout.splitlines():
        f = line.split()
        if len(f) < 8 or not f[0].endswith(':') or f[6] == 'UND':
            continue
        name, ver, default = f[7], None, True
        if '@@' in name:
            name, ver = name.split('@@')
        elif '@' in name:
            name, ver = name.split('@')
            default = False
        syms.setdefault(name, (f[3], f[6], ver, default))
    return syms


# --- nesting: which call made which, from the rows' time spans -------------------------

def span(r):
    s = int(r['t_start_ns'])
    return s, s + int(r['t_ns'])


def inside(inner, outer):
    a, b = span(inner)
    c, e = span(outer)
    return inner['tid'] == outer['tid'] and c <= a and b <= e


def parents(tr):
    """seq -> the row of the call that made it (None at depth 0), from the time spans: each
    row must lie inside exactly the open call one level up on its thread."""
    rows = sorted(tr.rows, key=lambda r: (r['tid'], int(r['t_start_ns']), int(r['depth'])))
    out, stack, tid = {}, [], None
    for r in rows:
        if r['tid'] != tid:
            stack, tid = [], r['tid']
        while stack and not inside(r, stack[-1]):
            stack.pop()
        depth = int(r['depth'])
        if depth == 0:
            assert not stack, (r, stack[-1])
            out[r['seq']] = None
        else:
            assert stack and int(stack[-1]['depth']) == depth - 1, (r, stack[-1:])
            out[r['seq']] = stack[-1]
        stack.append(r)
    return out


def parent_of(tr, row):
    """The row of the call that made ROW (the whole trace's nesting is checked once)."""
    if not hasattr(tr, 'parent_map'):
        tr.parent_map = parents(tr)
    return tr.parent_map[row['seq']]


def write_text(path, text):
    """Writes TEXT to PATH; returns PATH."""
    with open(path, 'w') as f:
        f.write(text)
    return path


def write_ppm(path, width, height):
    """A deterministic RGB test image (binary PPM) at PATH, for cjpeg."""
    pixels = bytes((x * 7 + y) % 256 for y in range(height) for x in range(width * 3))
    with open(path, 'wb') as f:
        f.write(b'P6\n%d %d\n255\n' % (width, height) + pixels)


def pieces_build(tmp_path):
    """libpieces.so and pieces_app (tests/apps: calls given a buffer and its length, one
    big block handed over piece by piece) built in TMP_PATH; returns (library, header,
    app)."""
    d = str(tmp_path)
    lib = build_c(d, os.path.join(TEST_APPS, 'libpieces.c'), 'libpieces.so', '-shared', '-fPIC',
                  '-Wl,-soname,libpieces.so', f'-I{TEST_APPS}')
    app = build_c(d, os.path.join(TEST_APPS, 'pieces_app.c'), 'pieces_app', f'-I{TEST_APPS}', lib,
                  f'-Wl,-rpath,{d}')
    return lib, os.path.join(TEST_APPS, 'pieces.h'), app
