"""Library profiles: the headers, --defs files and functions that give a library's calls
their work sizes and bytes without a --defs file of the user's (microgens/profiles/).

A profile is a folder with a profile.toml:

    summary = "zlib: bytes in and out of deflate, inflate ...; work = uncompressed bytes"
    libs = ["libz.so*"]              # soname or file-name shell globs
    headers = ["/usr/include/zlib.h"]  # relative to the folder, or absolute
    defs = ["zlib.defs"]             # relative to the folder
    functions = ["deflate", "inflate"]   # optional: what is wrapped when -f is not given
    sources = ["zlib.h: avail_in, avail_out"]   # where the formulas come from

dyliberator applies every profile whose libs match a --lib (--profile auto, the default),
the profiles named, or none (--profile none)."""
import fnmatch
import os
import re
import textwrap
import tomllib
from dataclasses import dataclass, field

KEYS = {'summary': str, 'libs': list, 'headers': list, 'defs': list, 'functions': list,
        'sources': list}
REQUIRED = ('summary', 'libs')
# a block that sets work_size, or takes the work bound to a handle (dyl_use, dyl_use_at),
# or manages a handle (dyl_bind, dyl_unbind: a plan's time is its own, on purpose)
_WORK = re.compile(r'\bwork_size\s*[-+*/]?=(?!=)|\bdyl_(use|use_at|bind|unbind)\s*\(')


class ProfileProblem(Exception):
    pass


@dataclass
class Profile:
    name: str
    folder: str
    summary: str
    libs: list
    headers: list = field(default_factory=list)   # absolute paths
    defs: list = field(default_factory=list)      # absolute paths
    functions: list = field(default_factory=list)
    sources: list = field(default_factory=list)
    missing: list = field(default_factory=list)   # its files that are not there

    def matches(self, lib):
        """Whether a glob of libs matches LIB's soname, file name or real file's name."""
        names = {n for n in (lib.soname, os.path.basename(lib.path),
                             os.path.basename(os.path.realpath(lib.path))) if n}
        return any(fnmatch.fnmatchcase(n, g) for n in names for g in self.libs)


def _check(data, path):
    """Each key of DATA known and of its type, the required ones there."""
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise ProfileProblem(f'{path}: unknown key(s) {", ".join(unknown)} '
                             f'(known: {", ".join(KEYS)})')
    for key in REQUIRED:
        if key not in data:
            raise ProfileProblem(f'{path}: the key {key!r} is missing')
    for key, typ in KEYS.items():
        v = data.get(key)
        if v is None:
            continue
        if not isinstance(v, typ) or (typ is list and not all(isinstance(x, str) for x in v)):
            want = 'a string' if typ is str else 'a list of strings'
            raise ProfileProblem(f'{path}: {key} must be {want}')
    if not data['libs']:
        raise ProfileProblem(f'{path}: libs is empty: it names the libraries the profile is for')


def load(folder):
    """The Profile in FOLDER (its profile.toml)."""
    path = os.path.join(folder, 'profile.toml')
    try:
        with open(path, 'rb') as f:
            data = tomllib.load(f)
    except OSError as e:
        raise ProfileProblem(f'{path}: {e.strerror}') from None
    except tomllib.TOMLDecodeError as e:
        raise ProfileProblem(f'{path}: {e}') from None
    _check(data, path)
    folder = os.path.abspath(folder)

    def files(key):
        return [p if os.path.isabs(p) else os.path.join(folder, p) for p in data.get(key, [])]
    prof = Profile(os.path.basename(folder), folder, data['summary'], data['libs'],
                   files('headers'), files('defs'), data.get('functions', []),
                   data.get('sources', []))
    # (a system header of a -dev package not installed: the profile is not usable here)
    prof.missing = [p for p in prof.headers + prof.defs if not os.path.isfile(p)]
    return prof


def _usable(prof, named, say):
    """Whether PROF's files are all there.  A profile named on the command line without
    them is an error; one that auto found is left out, and SAY says so."""
    if not prof.missing:
        return True
    what = f'{prof.folder}/profile.toml: {prof.missing[0]} is not a file'
    if named:
        raise ProfileProblem(what)
    say(f'{what}: profile {prof.name} not applied (a -dev package not installed?)')
    return False


def discover(dirs):
    """{name: Profile} of every DIR/NAME/profile.toml; a later DIR's NAME replaces an earlier."""
    found = {}
    for d in dirs:
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if os.path.isfile(os.path.join(d, name, 'profile.toml')):
                found[name] = load(os.path.join(d, name))
    return found


def choose(available, specs, libs, say=lambda *a: None):
    """[(Profile, [lib])]: the profiles SPECS (--profile values: auto, none, NAME or a
    folder) apply, each with the LIBS (elf.Library) its libs match.  A profile named
    that matches none of them applies to them all."""
    specs = specs or ['auto']
    if 'none' in specs:
        if len(specs) > 1:
            raise ProfileProblem('--profile none cannot be combined with other --profile values')
        return []
    chosen = []
    for spec in specs:
        if spec == 'auto':
            picks = [p for p in available.values() if any(p.matches(lib) for lib in libs)]
        elif os.sep in spec:
            picks = [load(spec)]
        elif spec in available:
            picks = [available[spec]]
        else:
            raise ProfileProblem(f'--profile {spec}: no such profile (known: '
                                 f'{", ".join(sorted(available)) or "none"}; --list-profiles)')
        chosen += [p for p in picks if p.folder not in {c.folder for c in chosen}
                   and _usable(p, spec != 'auto', say)]
    return [(p, [lib for lib in libs if p.matches(lib)] or list(libs)) for p in chosen]


def restrict(sel, applied, user_patterns):
    """Without -f, a profiled library's functions that its profiles' `functions` patterns
    do not match move from SEL.wrapped to SEL.skipped, with the reason."""
    if user_patterns:
        return
    pats = {}
    for prof, libs in applied:
        for lib in libs:
            if prof.functions:
                pats.setdefault(id(lib), []).append(prof)
    keep = []
    for c in sel.wrapped:
        profs = pats.get(id(c.lib))
        if profs and not any(fnmatch.fnmatchcase(c.name, f) for p in profs for f in p.functions):
            names = ', '.join(p.name for p in profs)
            sel.skipped.append((c.name, c.lib.soname or c.lib.path,
                                f'not in the functions of profile {names} (-f selects it)'))
        else:
            keep.append(c)
    sel.wrapped = keep


def definitions(profile_defs, user_defs, choice):
    """The --defs blocks for CHOICE: the user's where one of theirs names the function
    (it replaces the profile's blocks for it, prefix and postfix), else those of the
    profiles applied to its library.  PROFILE_DEFS: [(Definition, {id(lib)})]."""
    lib = choice.lib
    mine = [d for d in user_defs if d.applies(lib.soname, lib.path, choice.name)]
    return mine or [d for d, libs in profile_defs
                    if id(lib) in libs and d.applies(lib.soname, lib.path, choice.name)]


def without_work(applied, sel, defs_of):
    """[(Profile, [name])]: the wrapped functions of each applied profile's libraries whose
    --defs blocks (DEFS_OF(choice)) give no work size."""
    out = []
    for prof, libs in applied:
        ids = {id(lib) for lib in libs}
        names = [c.name for c in sel.wrapped if id(c.lib) in ids
                 and not any(_WORK.search(d.code) for d in defs_of(c))]
        out.append((prof, names))
    return out


def listing(available, width=100):
    """--list-profiles' text, wrapped to WIDTH."""
    def para(text, head=''):
        return textwrap.fill(text, width, initial_indent='    ' + head,
                             subsequent_indent='      ', break_on_hyphens=False)
    lines = []
    for name in sorted(available):
        p = available[name]
        lines += [f'{name}  ({p.folder})', para(p.summary),
                  para(', '.join(p.libs), 'libraries: '),
                  para(', '.join(p.functions) or '(all the headers declare)', 'functions: ')]
        lines += [para(s, 'source: ') for s in p.sources]
    return '\n'.join(lines)
