"""dyliberator's command line: read the library, choose the functions, generate, build."""
import argparse
import functools
import os
import re
import shlex
import stat as stmod
import subprocess
import sys
import time

from . import defs as defsmod
from . import cache, elf, emit, headers, hostio, microgen, profiles, select
from . import text as textmod

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNTIME_LIB_DIR = os.path.join(ROOT, 'build')
RUNTIME_INCLUDE = os.path.join(ROOT, 'runtime', 'include')
STD_MICROGENS = os.path.join(ROOT, 'microgens')
PROFILES = os.path.join(STD_MICROGENS, 'profiles')
EXAMPLES = os.path.join(ROOT, 'examples')

DESCRIPTION = """\
Generate and build a wrapper library that records every call into LIB.

Preload the wrapper into any unmodified program; it writes one trace row per call
(time, bytes in and out, work size) to ./trace.csv, or to $DYL_TRACE:

  dyliberator --lib libcrypto.so.3     # profile openssl-evp: the EVP calls' bytes, work
  LD_PRELOAD=./wrap.so openssl dgst -sha256 big.file
  dyl-speedup trace.csv model.csv

A model is keyed on each call's work size.  For the libraries with a profile
(--list-profiles: BLAS, LAPACK, FFTW, zlib, libjpeg, OpenSSL's EVP) it comes with no
option: the profile adds its header, its --defs blocks (exact bytes in and out, work
in flops or bytes) and, without -f, wraps only the functions it covers (dyliberator
says which profile it applied; --profile none turns them off).  Otherwise --defs
gives it (examples/*.defs), -g std.regions estimates it from the buffers the call is
given; without either the trace has times only and dyl-speedup can predict nothing.

The wrapper is built from micro-generators, small templates that each add code
around the forwarded call.  The default set is std.time + std.trace; -g adds more
(with their prerequisites), --no-default keeps only the forwarding core.
"""

EPILOG = """\
examples:
  dyliberator --lib libblas.so.3 --header examples/blas.h -f 'd*'
      Fortran BLAS through a header of Fortran prototypes; only the d* routines.
  dyliberator --lib libjpeg.so.62 --app /usr/bin/cjpeg --list
      What would be wrapped of what cjpeg imports, and why the rest is not.
  dyliberator --lib libcrypto.so.3 -g std.args -g std.time:clock=thread -o crypto.so
  dyliberator --lib libblas.so.3 --header examples/blas.h --defs examples/blas.defs
      Exact bytes in and out of dgemm_ from user C expressions (see --defs).
  dyliberator --lib /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 --header examples/blas.h \\
      -f dgemm_ -g std.redirect:lib=libopenblas.so.0 -o alt.so
      The calls go to OpenBLAS's dgemm_ and are traced: dyl-model makes a model of them.
      --list-microgens says what std.redirect does when a function or LIB is missing.
  dyliberator --lib libblas.so.3 --header examples/blas.h -f dgemm_ -g std.diff
      Bytes in and out of each call from what changed in its buffers (the full method:
      it keeps a copy of every buffer it sees, as much memory again, and of the newest
      256 freed heap blocks it saw, 64 MiB at most); -g std.regions is
      the fast method (pointer to the end of its heap block, no copy).
  dyliberator --lib libz.so.1 --profile ./mine --list
      A library profile of your own: a folder with a profile.toml (--list-profiles
      shows the shipped ones; microgens/profiles/README.md says how to write one).
  dyliberator --lib libcrypto.so.3 -f 'EVP_*Update' -g std.diff --list
      Which pointers an integer after them bounds (lengths: in/inl): EVP_DecryptUpdate
      given a piece of a buffer is charged the piece, not the rest of the buffer;
      -g std.diff:lengths=off (or std.regions:lengths=off) charges to the region's end.
  A relative examples/... or models/... path that is not in the current folder is
  read from dyliberator's own copy (the checkout, or where make install put it).

--defs FILE holds user C code, in the paper's form:
  libblas*::dgemm_::postfix { output_size = (int64_t)*m * *n * sizeof(double); }
  The code sees the arguments by their prototype names (and, in postfix code, the
  return value as dyl_result) and may set input_size, output_size and work_size
  (int64_t); locations are prefix and postfix.  A compiler error names FILE:LINE.

environment of the wrapped program:
  DYL_TRACE=PATH      trace file (%p: the pid); default ./trace.csv.  The first process
                      to record a call takes PATH; others (forked children, exec'd
                      programs, a second run) write PATH.<pid>.  An existing PATH is
                      replaced only when its writer ended before this process started.
                      Never written through a symlink or into another user's file.
  DYL_FILTER=PATS     record only these functions: comma-separated wildcards, !PAT
                      excludes (e.g. 'EVP_*,!EVP_MD_*').
  DYL_OFF=1           forward every call without recording.
  DYL_PAPI_EVENTS=A+B PAPI events for std.papi, overriding its events= parameter.
  DYL_DIFF_WATCH=0    std.diff compares whole buffers instead of watching written
                      pages (userfaultfd); the trace's '# diff=' line says which ran.
  DYL_DEBUG_DIR=DIR   where std.regions and std.diff look for separate debug files
                      by build ID (DIR/.build-id/xx/...debug); default /usr/lib/debug.

files written: OUT.so and OUT.d/ (wrap.c, Makefile: `make -C OUT.d` rebuilds).  A wrapper
  of more than 256 functions is built as units in parallel (wrap.h, wrap.c, wrap_NNN.c
  of 512 wrappers);
  dyliberator run again rewrites only the files whose text changed, and make compiles
  only those (a change of one --defs block: one unit), at -O0 (one unit: -O2; CFLAGS=
  overrides).  OUT.d/headers.json keeps the parse of the headers until one changes.
  OUT.d/ must be new, or yours and writable by nobody else (else dyliberator refuses:
  another user's folder could hold a GNUmakefile); OUT.so is replaced by a rename.

the trace names the file each wrapped library resolved to ('# library=SONAME PATH');
the wrapper warns once when it is not the file it was generated from (a soname such as
liblapack.so.3 may be OpenBLAS's file, by update-alternatives or LD_LIBRARY_PATH).
"""


class UsageProblem(Exception):
    pass


def version():
    """The one version string: the file VERSION at the top (installed beside generator/)."""
    try:
        with open(os.path.join(ROOT, 'VERSION')) as f:
            return f.read().strip()
    except OSError:
        return 'unknown'


def shipped(path):
    """PATH, or for a relative examples/... or models/... path not found here, the copy
    dyliberator ships (beside generator/: the checkout or the install), so that --help's
    examples work from any folder (the C tools do the same: runtime/format/read/input.c)."""
    if path.startswith(('examples/', 'models/')) and not os.path.exists(path):
        ours = os.path.join(ROOT, path)
        if os.path.exists(ours):
            return ours
    return path


class _Parser(argparse.ArgumentParser):
    """argparse with the tools' wording: one line, "unknown option '--foo' (see
    dyliberator --help)", exit 2 (speedup/lib/util/cli.c says it for the C tools)."""

    def error(self, message):
        unknown = 'unrecognized arguments: '
        if message.startswith(unknown):
            arg = message[len(unknown):].split(' ')[0]
            message = f"{'unknown option' if arg.startswith('-') else 'unexpected argument'} '{arg}'"
        self.exit(2, f'{self.prog}: {message} (see {self.prog} --help)\n')


def _parser():
    ap = _Parser(prog='dyliberator', description=DESCRIPTION, epilog=EPILOG,
                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--version', action='version', version=f'%(prog)s (dyliberator) {version()}',
                    help='print the version and exit')
    ap.add_argument('--lib', action='append', default=[], metavar='LIB',
                    help='the library to wrap: a path, or a soname found as the dynamic linker '
                         'finds it (repeatable: one wrapper for several libraries)')
    ap.add_argument('--header', action='append', default=[], metavar='H',
                    help='header with the prototypes (repeatable); default: the headers of the '
                         "library's Debian -dev package, else those under the include "
                         'directories that declare its functions')
    ap.add_argument('-I', dest='include_dirs', action='append', default=[], metavar='DIR',
                    help='include directory for parsing and building (repeatable)')
    ap.add_argument('--app', action='append', default=[], metavar='EXE',
                    help='wrap only what EXE imports from LIB (repeatable)')
    ap.add_argument('-f', dest='patterns', action='append', default=[], metavar='PATTERN',
                    help="functions to wrap, as shell wildcards; '!PATTERN' excludes "
                         '(repeatable; the last match wins)')
    ap.add_argument('-g', dest='gens', action='append', default=[], metavar='NAME[:k=v,...]',
                    help='add a micro-generator, with parameters (repeatable); '
                         '--list-microgens shows them all')
    ap.add_argument('--no-default', action='store_true',
                    help='start from the forwarding core alone, not std.time + std.trace')
    ap.add_argument('--defs', action='append', default=[], metavar='FILE',
                    help='user C code to insert: library::function::location { code }')
    ap.add_argument('-M', '--microgens', dest='microgen_dirs', action='append', default=[],
                    metavar='DIR', help='more micro-generator folders (repeatable; also '
                    '$DYL_MICROGEN_PATH, colon-separated); a NAME found there replaces ours')
    ap.add_argument('-o', dest='out', default='./wrap.so', metavar='OUT.so',
                    help='the wrapper to build (default ./wrap.so); sources go to OUT.d/')
    ap.add_argument('--no-build', action='store_true', help='generate OUT.d/ only')
    ap.add_argument('--list', action='store_true',
                    help='print what would be wrapped, what is skipped and why; write nothing')
    ap.add_argument('--list-microgens', action='store_true',
                    help='print the micro-generators, their prerequisites and parameters')
    ap.add_argument('--profile', action='append', default=[], metavar='auto|none|NAME',
                    help='library profiles to apply (repeatable): auto (the default; none '
                         'with --no-default) applies each profile whose libraries match a --lib; '
                         'none applies none; NAME '
                         '(or a folder with a profile.toml) that one.  A --defs block of yours '
                         "for a function replaces the profile's blocks for it")
    ap.add_argument('--list-profiles', action='store_true',
                    help='print the library profiles: libraries, functions, summary, sources')
    ap.add_argument('-q', '--quiet', action='store_true', help='print errors only')
    return ap


def _microgen_dirs(args):
    extra = [d for d in os.environ.get('DYL_MICROGEN_PATH', '').split(':') if d]
    return [STD_MICROGENS] + extra + args.microgen_dirs


def _list_microgens(available):
    for name in sorted(available):
        mg = available[name]
        mark = ' (default)' if name in microgen.DEFAULT_SET else ' (core)' if name in microgen.CORE else ''
        print(f'{name}{mark}\n    {mg.summary}')
        if mg.requires:
            print(f'    requires: {", ".join(mg.requires)}')
        if mg.replaces:
            print(f'    replaces: {", ".join(mg.replaces)}')
        for p in mg.params.values():
            choices = f' [{"|".join(p.choices)}]' if p.choices else ''
            value = p.default if p.default is not None else '(required)'
            print(f'    {p.name}={value}{choices}  {p.help}')


def _requested(args, have_defs):
    req = [] if args.no_default else [(n, {}) for n in microgen.DEFAULT_SET]
    req += [microgen.parse_spec(g) for g in args.gens]
    if have_defs:
        req.append(('std.defs', {}))
    return req


def _print_list(sel, libs, declared_only, notes):
    for lib in libs:
        n_w = sum(1 for c in sel.wrapped if c.lib is lib)
        n_s = sum(1 for s in sel.skipped if s[1] == (lib.soname or lib.path))
        print(f'# {lib.soname or "-"} ({lib.path}): {n_w} wrapped, {n_s} skipped')
    for note in notes:
        print(f'# {note}')
    width = max([len(c.name) for c in sel.wrapped] + [len(s[0]) for s in sel.skipped] + [8])
    for c in sel.wrapped:
        extra = ('  ' + '; '.join(c.notes)) if c.notes else ''
        print(f'wrap {c.name:<{width}}  {os.path.basename(c.proto.file)}:{c.proto.line}{extra}')
    for name, _, reason in sel.skipped:
        print(f'skip {name:<{width}}  {reason}')
    for name, where in declared_only:
        print(f'none {name:<{width}}  declared at {where} but not exported by the library '
              '(a macro rename, or a sibling library\'s function)')
    reasons = {}
    for _, _, r in sel.skipped:
        reasons[r] = reasons.get(r, 0) + 1
    if reasons:
        print('# skipped, by reason:')
        for r, n in sorted(reasons.items(), key=lambda x: -x[1]):
            print(f'#   {n:6d}  {r}')


def run(argv):
    """dyliberator ARGV: OUT.d/ generated and OUT.so built; the exit status.  Problems
    are raised (UsageProblem and each module's own): main prints them."""
    args = _parser().parse_args(argv)
    args.header, args.defs = [shipped(h) for h in args.header], [shipped(d) for d in args.defs]
    t0 = time.monotonic()
    say = (lambda *a: None) if args.quiet else (lambda *a: print('dyliberator:', *a, file=sys.stderr))

    available = microgen.discover(_microgen_dirs(args))
    known_profiles = profiles.discover([PROFILES])
    if args.list_microgens or args.list_profiles:
        _list_microgens(available) if args.list_microgens else print(profiles.listing(known_profiles))
        return 0
    if not args.lib:
        raise UsageProblem('--lib LIB is required (try --help)')
    out = os.path.abspath(args.out)
    out_dir = (out[:-3] if out.endswith('.so') else out) + '.d'
    # what a wrapper built again reads again (the libraries, the parse of the headers) is
    # kept in OUT.d/: read only from a folder that is already there and only this user
    # can write, as _own_folder accepts
    cache_dir = None if args.list or not os.path.isdir(out_dir) or _folder_problem(out_dir) else out_dir
    libs = [elf.read_library_cached(elf.find_library(name), cache_dir) for name in args.lib]
    definitions = defsmod.load(args.defs)
    applied, defs_of = _apply_profiles(known_profiles, args, libs, definitions, say)
    gens = microgen.compose(available, _requested(args, bool(definitions or defs_of.args[0])))
    gens = microgen.resolve_library_params(
        gens, lambda name: elf.read_library(elf.find_library(name)), elf.ElfProblem,
        wrapped_paths=[lib.path for lib in libs])

    dpkg = headers.DpkgMemo(cache_dir)
    (protos, macros, usable, notes, declared), save_parse = _parse_headers(args, libs, dpkg, cache_dir,
                                                                           applied)
    for n in notes:
        say(n)
    sel = select.select(libs, protos, args.patterns, _imports(args), declared)
    profiles.restrict(sel, applied, args.patterns)
    notes = _leave_out_hostio(sel, gens, notes, args.list, say)

    active = {mg.name for mg, _ in gens}
    libviews = {id(lib): emit.LibView(f'dyl_lib_{i}', lib.soname, lib.path, lib.build_id)
                for i, lib in enumerate(libs)}
    functions = [emit.function_view(c, libviews[id(c.lib)], macros, defs_of(c), active)
                 for c in sel.wrapped]
    _warn_defs(definitions, sel, libs, (applied, defs_of, args.list), say)
    renderer = emit.Renderer(gens)
    for c, f in zip(sel.wrapped, functions):
        f.gen_notes = renderer.notes(f)
        c.notes = f.notes = c.notes + f.gen_notes   # std.redirect: where calls go

    if args.list:
        _print_list(sel, libs, sel.declared_only, notes)
        return 0
    _check_something_wrapped(sel, args.patterns, say)
    _check_out(out)
    _own_folder(out_dir)

    def save_caches():
        """The reads of the headers and libraries, for the next run: written while make
        compiles (libcrypto's: 0.3 s of the generator's own time)."""
        save_parse(out_dir)
        dpkg.save(out_dir)
        elf.save_libraries(out_dir, libs)
    w = {
        'c_name': 'wrap.c', 'dir_name': os.path.basename(out_dir), 'out_name': os.path.basename(out),
        'command': 'dyliberator ' + ' '.join(shlex.quote(a) for a in argv),
        'libs': list(libviews.values()), 'headers': usable,
        'active': active, 'active_list': [mg.name for mg, _ in gens], 'functions': functions,
        'runtime_lib_dir': RUNTIME_LIB_DIR, 'runtime_include': RUNTIME_INCLUDE,
        'include_dirs': [os.path.abspath(d) for d in args.include_dirs], 'link': _link(gens),
    }
    written = _write_changed(out_dir, _render(renderer, w, save_caches))
    t_gen = time.monotonic() - t0
    say(f'{len(functions)} functions wrapped, {len(sel.skipped)} skipped (--list says why); '
        f'generated {out_dir}/ in {t_gen:.1f} s ({len(w["units"])} units, {written} changed)')
    if args.no_build:
        save_caches()
        return 0
    _make(out, out_dir, save_caches)
    say(f'built {out} in {time.monotonic() - t0 - t_gen:.1f} s')
    return 0


def _apply_profiles(known, args, libs, user_defs, say):
    """The profiles --profile applies to LIBS, each said: (applied, defs_of), defs_of(c) the
    --defs blocks of function C, the user's or the profiles' (defs_of.args[0]).  With
    --no-default (the forwarding core alone), only the profiles named."""
    specs = args.profile or (['none'] if args.no_default else ['auto'])
    applied = profiles.choose(known, specs, libs, say)
    for prof, plibs in applied:
        say(f'profile {prof.name} applied to {", ".join(lib.soname or lib.path for lib in plibs)} '
            f'({prof.folder}; --profile none turns it off)')
    profile_defs = [(d, {id(lib) for lib in plibs})
                    for prof, plibs in applied for d in defsmod.load(prof.defs)]
    return applied, functools.partial(profiles.definitions, profile_defs, user_defs)


def _parse_headers(args, libs, dpkg, cache_dir, applied=()):
    """The prototypes of what the libraries export, from --header or the headers found
    for each library, and the headers of the profiles APPLIED:
    ((protos, macros, usable, notes, declared), save_parse)."""
    wanted = set()
    for lib in libs:
        wanted |= set(lib.exports)
    hdrs = [os.path.abspath(h) for h in args.header]
    if not hdrs:
        for given, lib in zip(args.lib, libs):
            _refuse_cplusplus(given, lib)
        for lib in libs:
            hdrs += [h for h in headers.find_headers(lib.path, lib.exports,
                                                     args.include_dirs + headers.INCLUDE_DIRS,
                                                     memo=dpkg)
                     if h not in hdrs]
    # the profiles' headers first: their defs use their argument names, and the first
    # header that declares a function gives its prototype (cblas_f77.h names caxpy_'s n N)
    mine = [h for prof, _ in applied for h in prof.headers]
    hdrs = list(dict.fromkeys(mine + hdrs))
    if not hdrs:
        raise UsageProblem(_no_headers(args.lib))
    for d in args.include_dirs:
        headers.check_include_dir(d)
    clang_args = [f'-I{d}' for d in args.include_dirs]
    return headers.parse_headers_cached(cache_dir, hdrs, clang_args, wanted=wanted)


def _imports(args):
    """What the --app programs import (None: no --app, everything may be wrapped)."""
    if not args.app:
        return None
    imports = set()
    for app in args.app:
        imports |= elf.read_imports(app)
    return imports


def _leave_out_hostio(sel, gens, notes, listing, say):
    """With std.flow:host_reads=on, the functions the runtime interposes move out of
    SEL.wrapped: NOTES with the note that says so (--list prints it with the notes;
    otherwise it is said now)."""
    hostio_note = hostio.leave_out(sel, gens, RUNTIME_INCLUDE)   # (host_reads' own)
    if hostio_note:
        notes = list(notes) + [hostio_note]
        if not listing:
            say(hostio_note)
    return notes


def _warn_unused_defs(definitions, sel, libs, say):
    """A --defs entry for a function the library exports but -f left out is expected (one
    defs file for several wrappers); one that names nothing exported is a mistake."""
    by_tag = {lib.soname or lib.path: lib for lib in libs}
    unselected = [(name, by_tag[tag]) for name, tag, why in sel.skipped
                  if why == 'not selected by -f' and tag in by_tag]
    for d in definitions:
        if any(d.applies(c.lib.soname, c.lib.path, c.name) for c in sel.wrapped):
            continue
        if not any(d.applies(lib.soname, lib.path, name) for name, lib in unselected):
            say(f'{d.file}:{d.line}: warning: {d.library}::{d.function}::{d.location} matches '
                'no wrapped function (--list shows what is wrapped); its code is not used')


def _warn_defs(definitions, sel, libs, profiled, say):
    """_warn_unused_defs, and, PROFILED being (applied, defs_of, listing), the wrapped
    functions of a profiled library that no --defs block gives a work size: their calls
    are traced with an empty work column (dyl-speedup keeps their measured time)."""
    _warn_unused_defs(definitions, sel, libs, say)
    applied, defs_of, listing = profiled
    if listing:
        return
    for prof, names in profiles.without_work(applied, sel, defs_of):
        if names:
            shown = ', '.join(names[:8]) + (f' and {len(names) - 8} more' if len(names) > 8 else '')
            say(f'profile {prof.name}: no work size for {len(names)} of the wrapped functions '
                f'({shown}): their calls are traced with an empty work column, and dyl-speedup '
                'keeps their measured time')


def _check_something_wrapped(sel, patterns, say):
    """Refuses a wrapper of nothing; warns of the -f patterns that match nothing."""
    hints = select.pattern_hints([c.name for c in sel.wrapped] + [s[0] for s in sel.skipped],
                                 patterns)
    if not sel.wrapped:
        raise UsageProblem('nothing to wrap: ' + ''.join(f'{h}; ' for h in hints) +
                           '--list shows every function and why it is skipped')
    for hint in hints:
        say(f'warning: {hint}')


def _link(gens):
    """The micro-generators' link flags, each once, in their order."""
    link = []
    for mg, _ in gens:
        link += [l for l in mg.link if l not in link]
    return link


def _render(renderer, w, save_caches):
    """The files of OUT.d/ ({name: text}) from the view W; sets W's units and cflags."""
    try:
        files = renderer.render(w, jobs=_jobs())
    except microgen.MicrogenProblem:
        save_caches()   # (the next try, with the template fixed, parses nothing again)
        raise
    w['units'] = [n for n in files if n.endswith('.c')]
    w['cflags'] = DEFAULT_CFLAGS if len(w['units']) == 1 else SPLIT_CFLAGS
    try:
        files['Makefile'] = emit.makefile(w)
    except ValueError as e:   # (make_value: where dyliberator is installed)
        raise UsageProblem(f'the runtime\'s folders ({ROOT}) cannot be named in a Makefile: {e}') from None
    # what the user named, as data: to the compiler alone (@FILE), and the wrapper's
    # name to the shell that copies it there (the Makefile holds none of them)
    files['compile.rsp'] = emit.rsp([f'-I{d}' for d in w['include_dirs']])
    files['link.rsp'] = emit.rsp(w['link'])
    files['out.name'] = w['out_name']
    return files


def _make(out, out_dir, save_caches):
    """Builds OUT with make in OUT_DIR, saving the caches while it compiles."""
    if not os.path.exists(os.path.join(RUNTIME_LIB_DIR, 'libdylrt.so')):
        save_caches()
        raise UsageProblem(f'the runtime is not built ({RUNTIME_LIB_DIR}/libdylrt.so): run make in {ROOT}')
    # the Makefile named (GNU make would prefer a GNUmakefile or makefile beside it), and
    # no makefiles or flags from the environment (MAKEFILES is read before ours)
    env = {k: v for k, v in os.environ.items() if k not in MAKE_ENV}
    with subprocess.Popen(['make', '-s', f'-j{_jobs()}', '-f', os.path.join(out_dir, 'Makefile'),
                           '-C', out_dir], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=env) as make:
        try:
            save_caches()
        finally:
            stdout, stderr = make.communicate()
    r = subprocess.CompletedProcess(make.args, make.returncode, stdout, stderr)
    if r.returncode != 0:
        print('\n'.join(_compiler_lines(r.stderr or r.stdout)), file=sys.stderr)
        raise UsageProblem(f'building {out} failed (the compiler said the above); '
                           f'sources in {out_dir}/')


def _refuse_cplusplus(given, lib):
    """A C++ library's functions have mangled names (_ZN...) and no C prototypes: the
    header search would parse C++ headers as C.  Its C API can still be wrapped with
    --header naming a C header of it."""
    funcs = [n for n, e in lib.exports.items() if e.kind in ('func', 'ifunc')]
    mangled = sum(1 for n in funcs if n.startswith('_Z'))
    if funcs and mangled * 2 > len(funcs):
        raise UsageProblem(f'{given} ({lib.path}) is a C++ library ({mangled} of {len(funcs)} '
                           'exported functions have C++ mangled names): dyliberator wraps C '
                           'functions; give a C header of its extern "C" functions with --header')


def _no_headers(given_libs):
    """Where each library resolved to, and what to try: a header shipped in examples/,
    and a word on alternatives (liblapack.so.3 may be OpenBLAS's file)."""
    parts, hints = [], []
    for given in given_libs:
        try:
            found = elf.find_library(given)
        except elf.ElfProblem:
            found = given
        real = os.path.realpath(found)
        chain = found if real == found else f'{found} -> {real}'
        parts.append(f'{given} ({chain})')
        stem = re.sub(r'^lib|\.so.*$', '', os.path.basename(given))
        if os.path.isfile(os.path.join(EXAMPLES, f'{stem}.h')):
            hints.append(f'--header {os.path.join(EXAMPLES, stem + ".h")}')
        link, seen = found, 0
        while os.path.islink(link) and seen < 20:
            target = os.path.join(os.path.dirname(link), os.readlink(link))
            if target.startswith('/etc/alternatives/'):
                hints.append(f'the file {found} resolves to is chosen by update-alternatives '
                             f'(update-alternatives --display {os.path.basename(target)}): it may '
                             'be another implementation than the one named, e.g. OpenBLAS')
                break
            link, seen = target, seen + 1
    hint = '; '.join(hints) if hints else 'give the prototypes with --header H'
    return f'no headers found for {", ".join(parts)}: {hint}'


MAKE_ENV = ('MAKEFILES', 'MAKEFLAGS', 'MFLAGS', 'GNUMAKEFLAGS', 'MAKELEVEL')


def _check_out(out):
    """OUT.so is replaced by a rename (the Makefile's mv -T), never written through: a symlink there
    is replaced, not followed.  Anything else that is not a regular file (a folder, a FIFO,
    a device such as /dev/null) is refused: it is not a wrapper to replace."""
    try:
        st = os.lstat(out)
    except FileNotFoundError:
        return
    except OSError as e:
        raise UsageProblem(f'{out}: {e.strerror}') from None
    if stmod.S_ISLNK(st.st_mode):
        return
    what = textmod.kind(st.st_mode)
    if what:
        raise UsageProblem(f'{out} is {what}: -o names the wrapper file to write '
                           '(a regular file, or a name not yet taken)')


def _own_folder(path):
    """Create PATH, or accept it only if this user owns it and nobody else can write it
    (another user's folder may hold a GNUmakefile, or change wrap.c before it is built).
    A symlink is followed only if this user owns it too."""
    try:
        os.mkdir(path, 0o755)
        return
    except FileExistsError:
        pass
    except OSError as e:
        raise UsageProblem(f'cannot create {path}/: {e.strerror}') from None
    problem = _folder_problem(path)
    if problem:
        raise UsageProblem(problem)


def _folder_problem(path):
    """Why dyliberator may not build in the existing PATH (None: it may)."""
    me = os.geteuid()
    try:
        st = os.lstat(path)
        if os.path.islink(path):
            if st.st_uid != me:
                return (f'refusing to build in {path}/: it is a symlink owned by '
                        f'uid {st.st_uid}, not by you (remove it, or choose another -o)')
            st = os.stat(path)
    except OSError as e:
        return f'cannot use {path}/: {e.strerror}'
    if not stmod.S_ISDIR(st.st_mode):
        return f'refusing to build in {path}/: it exists and is not a folder'
    if st.st_uid != me:
        return (f'refusing to build in {path}/: it is owned by uid {st.st_uid}, not by you '
                '(its files could run commands as you; remove it, or choose another -o)')
    if st.st_mode & 0o022:
        return (f'refusing to build in {path}/: others can write to it (mode '
                f'{stmod.S_IMODE(st.st_mode):o}; chmod go-w it, or choose another -o)')
    return None


_DIAG = re.compile(r'\S.*?:\d+:(\d+:)? (fatal error|error|warning|note):')
# collect2: error: ld returned 1; /usr/bin/ld: cannot find -lpapi (an error, untyped)
_TOOL = re.compile(r'(?:\S+:()? (fatal error|error|warning): |\S*\bld: )')
_CONTEXT = re.compile(r'(In file included from|\s+from |\S+: In function|\S+: At top level)')


def _compiler_lines(text, cap=40):
    """The compiler's output, errors first: a build that failed on one error may print
    hundreds of warnings before it.  A diagnostic keeps its context lines (In file
    included from, In function) and what follows it (the source line, the caret)."""
    blocks, context = [], []
    for line in text.strip().split('\n'):
        m = _DIAG.match(line) or _TOOL.match(line)
        if m is None and _CONTEXT.match(line):
            context.append(line)   # belongs to the next diagnostic
        elif (m and m.group(2) != 'note') or not blocks:
            blocks.append((m is not None and m.group(2) != 'warning', context + [line]))
            context = []
        else:
            blocks[-1][1].extend(context + [line])
            context = []
    if context:
        blocks.append((False, context))
    out = [x for err, b in blocks if err for x in b] + [x for err, b in blocks if not err for x in b]
    if len(out) > cap:
        n_err = sum(1 for x in out if re.search(r':\d+: (fatal )?error:', x))
        out = out[:cap] + [f'... ({len(out) - cap} more lines, {n_err} error(s) in all)']
    return out


# A wrapper of one unit is built at -O2, as it always was: its frames' sizes are part of
# what std.diff sees on the stack (make accuracy's figures: all its wrappers are one
# unit).  A wrapper of many units is built at -O0: the same cost per call as -O2 and -O1
# (bench/build/percall_opt.sh: the loop; the cost is the runtime's dyl_enter and
# dyl_leave, out of line), a third of -O1's compile time, and that is where the time
# of a whole-library wrapper goes.
DEFAULT_CFLAGS = '-O2 -g'
SPLIT_CFLAGS = '-O0 -g'
_UNIT = re.compile(r'wrap_\d{3}\.(c|o|dep)$')


def _jobs():
    """make -j: the CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _write_changed(out_dir, files):
    """Writes FILES ({name: text}) into OUT_DIR, each only if its text differs from what is
    there: an unchanged unit keeps its time stamp, and make does not compile it again.
    Units of an earlier, larger wrapper (wrap_NNN.c, their objects, wrap.h) are removed.
    Returns how many files were written."""
    n = 0
    for name, text in files.items():
        path = os.path.join(out_dir, name)
        data = text.encode('utf-8', 'surrogateescape')
        try:
            if textmod.read_regular(path, None) == data:
                continue
        except (OSError, ValueError):
            pass
        _write(path, text)
        n += 1
    for name in os.listdir(out_dir):
        m = _UNIT.match(name)
        if (m and name[:-len(m.group(1))] + 'c' not in files) or (name == 'wrap.h' and name not in files):
            os.unlink(os.path.join(out_dir, name))
    return n


def _write(path, text):
    # (surrogateescape: a path's bytes that are not UTF-8, in a comment, stay its bytes)
    cache.replace(path, text.encode('utf-8', 'surrogateescape'))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        return run(argv)
    except (UsageProblem, elf.ElfProblem, headers.HeaderProblem, defsmod.DefsProblem,
            microgen.MicrogenProblem, profiles.ProfileProblem) as e:
        # (a path may hold a newline or bytes that are not UTF-8: still one line)
        print(f'dyliberator: {textmod.shown(str(e))}', file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `dyliberator --list | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
