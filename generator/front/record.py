"""dyl record: build (or reuse) a wrapper of the program's libraries, run the program
under it unchanged, and leave a record folder (traces, flow files, record.json)."""
import json
import os
import signal
import sys
import time

from . import libs as libsmod
from . import wrapcache
from .options import Problem, take

HELP = """\
usage: dyl record [--lib LIB]... [-f PATTERN]... [-g MICROGEN]... [-o DIR] [--no-flow]
                  [-q] [--] PROGRAM [ARGS]

Runs PROGRAM unchanged under a wrapper of its libraries and leaves DIR (default
./dyl.data): one trace per process (trace.PID.csv), their flow files (.flow), and
record.json (what was run, with which libraries and options, and its exit status).
Then `dyl report DIR --device NAME` tells how much faster it would run.

  dyl record -- ./app 2000             an ELF program: the libraries it links that
                                       have a shipped profile (BLAS, LAPACK, FFTW,
                                       zlib, libjpeg, OpenSSL...)
  dyl record python3 examples/numpy_power.py 2000 50
                                       a script or interpreter (python3, sh -c...):
                                       every installed library with a profile
  dyl record --lib libz.so.1 -f 'deflate*' -o gz.data pigz -k big.file
  dyl report gz.data --device nvidia-h100-pcie --html gz.html

The wrapper is built once (bin/dyliberator, a few seconds) and kept in
$XDG_CACHE_HOME/dyliberator (~/.cache/dyliberator), keyed by each library's build
ID and path, the options and the tool's own sources; the next record reuses it.

options:
  --lib LIB      a library to wrap: a path or a soname (repeatable); default: as above.
                 The generator applies the library's profile (work sizes, bytes); a
                 library without one gets -g std.regions (bytes from its buffers)
  -f PATTERN     functions to wrap, shell wildcards, '!PATTERN' excludes (repeatable;
                 as dyliberator -f); default: a profiled library's profile functions,
                 all of another
  -g MICROGEN    add a micro-generator, NAME[:k=v,...] (repeatable; dyliberator
                 --list-microgens lists them)
  -o DIR         the record folder (default ./dyl.data); an existing DIR is replaced
                 only if it holds a record.json
  --no-flow      leave out the data flow (on by default: -g std.flow:host_reads=on
                 -g std.diff: which call or the program made each byte a call reads,
                 and which outputs the program reads; the report's transfers and plan)
  -q, --quiet    print errors only
  --version      print the version

Exit status: PROGRAM's (killed by signal N: 128+N); 2 bad usage, a folder that is not a
record, a wrapper that cannot be built; 127 PROGRAM not found.  PROGRAM's stdout and
stderr are its own; dyl's words go to stderr, each line starting 'dyl record:'.
"""

SPAWN_DEFAULTS = (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE,
                  signal.SIGXFSZ)


def say(opts, text):
    if not opts['quiet']:
        sys.stderr.write(f'dyl record: {text}\n')
        sys.stderr.flush()


def parse(argv):
    """The options of ARGV ({'lib', 'f', 'g', 'out', 'flow', 'quiet', 'command'}), or
    'help' / 'version'.  Problem on bad usage."""
    opts = {'lib': [], 'f': [], 'g': [], 'out': 'dyl.data', 'flow': True, 'quiet': False}
    takes = {'--lib': 'lib', '-f': 'f', '-g': 'g', '-o': 'out'}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == '--':
            i += 1
            break
        if not a.startswith('-') or a == '-':
            break
        name, eq, val = a.partition('=') if a.startswith('--') else (a[:2], '', a[2:])
        if name in takes:
            i = take(opts, takes[name], name, argv, i, val if eq or val else None)
        elif a in ('-h', '--help'):
            return 'help'
        elif a == '--version':
            return 'version'
        elif a == '--no-flow':
            opts['flow'] = False
        elif a in ('-q', '--quiet'):
            opts['quiet'] = True
        else:
            raise Problem(f"unknown option '{a}' (see --help)")
        i += 1
    opts['command'] = argv[i:]
    if not opts['command']:
        raise Problem('no PROGRAM to run (see --help)')
    return opts


def _library(name, path, profs):
    """The record of one library: as named, its real path, build ID, profiles."""
    try:
        e = libsmod.elfnote.read(path)
    except OSError as err:
        raise Problem(f'{name}: {err.strerror}') from None
    if e is None:
        raise Problem(f'{name}: {path} is no ELF library')
    real = os.path.realpath(path)
    found = libsmod.matching(profs, [name, os.path.basename(path), os.path.basename(real)])
    return {'name': name, 'path': real, 'build_id': e['build_id'],
            'profiles': [p['name'] for p in found]}


def _resolve(name):
    """A --lib's path: itself if it names a file, else as the dynamic linker finds it."""
    if '/' in name or os.path.exists(name):
        if not os.path.exists(name):
            raise Problem(f'--lib {name}: no such file')
        return name
    found = libsmod.installed(lambda soname, p: soname == name)
    if name not in found:
        raise Problem(f'--lib {name}: not found by the dynamic linker (ldconfig -p; give a path)')
    return found[name]


def choose(opts, program_path, profs):
    """The libraries to wrap ([library]) and why, as one line for stderr."""
    if opts['lib']:
        return [_library(n, _resolve(n), profs) for n in opts['lib']], None
    k = libsmod.kind(program_path)
    chosen = {}
    if k == 'elf':
        chosen = libsmod.with_profiles(libsmod.closure(program_path), profs)
        why = 'the libraries it links that have a profile'
    if not chosen:
        globs = [g for p in profs for g in p['libs']]
        import fnmatch
        keep = lambda soname, p: any(fnmatch.fnmatchcase(soname, g) for g in globs)
        chosen = libsmod.with_profiles(libsmod.installed(keep), profs)
        why = {'elf': 'it links no library with a profile, so every installed library '
                      'that has one (loaded at run time, perhaps)',
               'script': 'a script: every installed library that has a profile',
               'runner': 'it starts others or loads libraries at run time: every '
                         'installed library that has a profile'}.get(
            k, 'every installed library that has a profile')
    if not chosen:
        raise Problem('no library to wrap: none with a profile found (microgens/profiles/); '
                      'name one with --lib LIB')
    return [_library(n, p, profs) for n, p in chosen.items()], why


def choose_cached(root, opts, program_path):
    """choose()'s answer, kept in the cache while the program, the
    libraries, the dynamic linker's cache (/etc/ld.so.cache), LD_LIBRARY_PATH and the
    profiles stay as they were: a record with a cached wrapper runs no ldd nor ldconfig."""
    folder = os.path.join(root, 'microgens', 'profiles')
    try:
        tomls = sorted(os.path.join(folder, n, 'profile.toml') for n in os.listdir(folder))
    except OSError:
        tomls = []
    what = {'lib': opts['lib'], 'program': os.path.realpath(program_path),
            'ids': [wrapcache.file_id(p) for p in [program_path, '/etc/ld.so.cache'] + tomls],
            'env': os.environ.get('LD_LIBRARY_PATH'), 'version': version(root)}
    kept = wrapcache.remembered(what)
    if kept and [wrapcache.file_id(lib['path']) for lib in kept['libraries']] == kept.get('ids'):
        return kept['libraries'], kept['why']
    profs = libsmod.profiles(folder)
    libraries, why = choose(opts, program_path, profs)
    wrapcache.remember(what, {'libraries': libraries, 'why': why,
                              'ids': [wrapcache.file_id(lib['path']) for lib in libraries]})
    return libraries, why


def wrapper_options(opts, libraries):
    """The generator's -f and -g for LIBRARIES: the user's -f (without one, the generator
    wraps of each profiled library its profile's functions); std.regions when a library
    has no profile (bytes from the buffers); unless --no-flow, std.flow with host reads
    and std.diff: without them the program's own writes between calls go unseen, and a
    buffer it refills (cjpeg's rows) would move to the device once, not each time."""
    g = list(opts['g'])
    if any(not lib['profiles'] for lib in libraries) and 'std.regions' not in g:
        g.append('std.regions')
    if opts['flow'] and not any(x.split(':')[0] == 'std.flow' for x in g):
        g.append('std.flow:host_reads=on')
    if opts['flow'] and not any(x.split(':')[0] == 'std.diff' for x in g):
        g.append('std.diff')
    return {'f': list(opts['f']), 'g': g}


def check(out):
    """Problem when OUT exists and is no record folder (one holding record.json)."""
    if os.path.lexists(out) and (os.path.islink(out) or not os.path.isdir(out) or
                                 not os.path.isfile(os.path.join(out, 'record.json'))):
        raise Problem(f'{out} exists and is no record folder (no record.json): '
                      'give another -o DIR, or remove it')


def prepare(out):
    """Makes the record folder OUT empty: new, or an old record removed."""
    check(out)
    if os.path.lexists(out):
        import shutil
        shutil.rmtree(out)
    os.makedirs(out)


def build(root, bindir, libraries, wopts, opts):
    """The wrapper (its wrapper.json metadata): from the cache, else built now."""
    def make(out):
        import subprocess
        cmd = [os.path.join(bindir, 'dyliberator'), '-q', '-o', out]
        for lib in libraries:
            cmd += ['--lib', lib['path']]
        for pat in wopts['f']:
            cmd += ['-f', pat]
        for g in wopts['g']:
            cmd += ['-g', g]
        say(opts, 'building the wrapper (once; it is cached): ' + ' '.join(cmd[1:]))
        return subprocess.run(cmd, stdout=sys.stderr).returncode == 0

    k = wrapcache.key(libraries, wopts, root, version(root))
    try:
        meta, built = wrapcache.get(k, make, {'libraries': libraries, 'options': wopts,
                                              'version': version(root)})
    except (OSError, RuntimeError) as e:
        raise Problem(f'building the wrapper failed: {e}') from None
    if not built:
        say(opts, f'the wrapper is cached ({meta["wrapper"]})')
    return meta


def run(command, path, env):
    """Runs COMMAND (PATH its program) with ENV, its stdio ours; its exit status as a
    shell gives it (128+N when killed by signal N), and N or None.  SIGINT and SIGQUIT
    (the terminal's, sent to the program too) are ignored here meanwhile; SIGTERM and
    SIGHUP are passed on.  OSError when it cannot be started."""
    child, old = {}, {}
    for sig in (signal.SIGINT, signal.SIGQUIT):
        old[sig] = signal.signal(sig, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP):   # set before the spawn: none is lost
        old[sig] = signal.signal(sig, lambda s, _: child and os.kill(child['pid'], s))
    try:
        child['pid'] = os.posix_spawn(path, command, env, setsigdef=SPAWN_DEFAULTS)
        _, status = os.waitpid(child['pid'], 0)
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)
    code = os.waitstatus_to_exitcode(status)
    return (128 - code, -code) if code < 0 else (code, None)


def trace_names(folder):
    """The traces in a record FOLDER: trace.PID.csv, and trace.PID.csv.PID2 where a
    program exec'd in process PID recorded calls too (DYL_TRACE's rule)."""
    return sorted(n for n in os.listdir(folder) if n.startswith('trace.') and
                  not n.endswith(('.flow', '.tmp', '.json', '.html')))


def version(root):
    try:
        with open(os.path.join(root, 'VERSION')) as f:
            return f.read().strip()
    except OSError:
        return 'unknown'


def _now():
    """The time now: UTC in ISO 8601, and seconds since the epoch."""
    t = time.time()
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(t)), round(t, 3)


def write_record(out, rec):
    tmp = os.path.join(out, 'record.json.tmp')
    with open(tmp, 'w') as f:
        json.dump(rec, f, indent=1)
        f.write('\n')
    os.replace(tmp, os.path.join(out, 'record.json'))


def main(root, bindir, opts):
    """Builds or finds the wrapper, runs the program, writes record.json; the exit
    status."""
    program = opts['command'][0]
    path = libsmod.which(program)
    if path is None:
        say(dict(opts, quiet=False), f'{program}: command not found')
        return 127
    out = os.path.abspath(opts['out'])
    check(out)
    libraries, why = choose_cached(root, opts, path)
    if why:
        say(opts, f'wrapping {", ".join(lib["name"] for lib in libraries)} ({why})')
    wopts = wrapper_options(opts, libraries)
    meta = build(root, bindir, libraries, wopts, opts)
    prepare(out)
    env = dict(os.environ)
    env['LD_PRELOAD'] = ':'.join(x for x in (env.get('LD_PRELOAD'), meta['wrapper']) if x)
    env['DYL_TRACE'] = os.path.join(out, 'trace.%p.csv')
    rec = {'version': version(root), 'command': opts['command'], 'program': path,
           'cwd': os.getcwd(), 'start': _now(), 'end': None, 'exit_status': None,
           'signal': None,
           'libraries': libraries, 'options': wopts, 'user_options': {
               'lib': opts['lib'], 'f': opts['f'], 'g': opts['g'], 'flow': opts['flow']},
           'profiles': sorted({n for lib in libraries for n in lib['profiles']}),
           'wrapper': meta['wrapper'], 'cache_key': meta['key']}
    write_record(out, rec)
    try:
        status, sig = run(opts['command'], path, env)
    except OSError as e:
        say(dict(opts, quiet=False), f'{program}: {e.strerror}')
        status, sig = 126, None
    traces = trace_names(out)
    rec.update(end=_now(), exit_status=status, traces=traces, signal=sig)
    write_record(out, rec)
    rel = os.path.relpath(out)
    say(opts, f'{len(traces)} trace{"s" if len(traces) != 1 else ""} in {rel}/'
              f' (exit status {status}); next: dyl report {rel} --device nvidia-h100-pcie')
    return status
