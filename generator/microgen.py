"""Micro-generators: small templates that insert code at fixed points of a wrapper.

A micro-generator is a folder NAME/ holding microgen.toml (metadata) and template.c.j2
(Jinja macros named after the insertion points they fill).  Insertion points:

  file      file scope, once per wrapper          macro file(w, p)
  function  file scope, before each wrapper       macro function(f, p)
  init      the wrapper's constructor             macro init(w, p)
  fini      the wrapper's destructor              macro fini(w, p)
  end       file scope, once, after every wrapper macro end(w, p)
  config    file scope, once, in the main unit    macro config(w, p)
            only, before the wrappers: the values
            of options the wrappers read
  prefix    before the call                       macro prefix(f, p)
  postfix   after the call                        macro postfix(f, p)
  callee    the function actually called          macro callee(f, p) (one provider)
  note      a remark on f for --list and the      macro note(f, p)
            comment above its wrapper

Metadata keys: summary, requires (added automatically), around (soft order: if those
are present, this one's code encloses theirs), link (extra -l flags), replaces (takes
the place of those micro-generators: what requires them gets this one instead; std.redirect
replaces std.caller to provide the callee), and [params.X] tables with default (or
required = true), choices, help and type ("library": the value names a shared library,
found as --lib finds one, and the template sees a LibraryParam instead of the text),
and split (true: its code may be spread over units compiled apart, see below).

Units: a wrapper of many functions is built as several C files in parallel when every
micro-generator in use says split = true.  Its file parts then go to wrap.h, which every
unit includes: file-scope data there is declared DYL_SHARED (one copy for the whole
wrapper), not static, and what only one unit may define (an exported alias) sits under
#ifdef DYL_MAIN_UNIT.  Its function parts go to the function's unit: data the main unit
(init, fini, end) names is declared DYL_GLOBAL there and extern in the main unit (which
sees the types f.typedefs and f.fn_type of every function).  Both are static in a wrapper
of one unit.  Without split = true a micro-generator gets one unit, as it always has.
An option's value that the wrappers read is declared extern DYL_CONFIG in a file part and
defined in a config part (the main unit's): a change of it compiles the main unit alone,
not every unit (std.time's clock=).  In a wrapper of one unit the compiler folds it.

Order: what a micro-generator requires encloses it, and it encloses what it lists in
'around'.  Prefix code runs outermost first, postfix code innermost first, like nested
braces: std.time requires std.trace, so the trace row is opened before the clock starts
and closed after it stops.
"""
import os
import tomllib
from dataclasses import dataclass, field

from . import text

POINTS = ('file', 'function', 'init', 'fini', 'end', 'config', 'prefix', 'postfix', 'callee', 'note')
PARAM_TYPES = ('string', 'library')
DEFAULT_SET = ['std.time', 'std.trace']
CORE = ['std.funcptr', 'std.loader', 'std.caller']


class MicrogenProblem(Exception):
    pass


@dataclass
class Param:
    name: str
    default: str         # None: required
    choices: list = None
    help: str = ''
    type: str = 'string'


@dataclass
class LibraryParam:
    """What a template sees of a parameter of type "library": the library the value
    names, read at generation time, so that a template can decide per function."""
    given: str           # the value as the user gave it
    load_name: str       # what dlopen gets: the soname as given, or an absolute path
    path: str            # the file read (symlinks resolved)
    soname: str
    exports: dict        # name -> elf.Export

    def __str__(self):
        return self.given

    def has(self, name):
        """Does the library export a function NAME (in any version)?"""
        e = self.exports.get(name)
        return e is not None and e.kind in ('func', 'ifunc')

    def version_for(self, name, version):
        """The version of NAME to look up: VERSION if the library defines NAME@VERSION
        (as default or older version), else its default version (None: unversioned)."""
        e = self.exports[name]
        if version is not None and (version == e.version or version in e.hidden_versions):
            return version
        return e.version


@dataclass
class Microgen:
    name: str
    folder: str
    summary: str = ''
    requires: list = field(default_factory=list)
    around: list = field(default_factory=list)
    link: list = field(default_factory=list)
    replaces: list = field(default_factory=list)
    params: dict = field(default_factory=dict)
    split: bool = False  # its code may be spread over units (see Units above)
    points: tuple = ()   # filled in once the template is loaded

    @property
    def template(self):
        return os.path.join(self.folder, 'template.c.j2')


def utf8(data, path):
    """DATA (bytes of PATH) as text (text.decode), or a MicrogenProblem."""
    try:
        return text.decode(data, path)
    except ValueError as e:
        raise MicrogenProblem(str(e)) from None


def _load_one(folder):
    meta_path = os.path.join(folder, 'microgen.toml')
    try:
        meta = tomllib.loads(utf8(text.read_regular(meta_path), meta_path))
    except tomllib.TOMLDecodeError as e:
        raise MicrogenProblem(f'{meta_path}: {e}') from None
    except (OSError, ValueError) as e:
        raise MicrogenProblem(text.problem(meta_path, e)) from None
    if not isinstance(meta.get('split', False), bool):
        raise MicrogenProblem(f'{meta_path}: split must be true or false')
    for key in ('summary',):
        if not isinstance(meta.get(key, ''), str):
            raise MicrogenProblem(f'{meta_path}: {key} must be a string')
    for key in ('requires', 'around', 'link', 'replaces'):
        v = meta.get(key, [])
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise MicrogenProblem(f'{meta_path}: {key} must be a list of strings')
    if not isinstance(meta.get('params', {}), dict):
        raise MicrogenProblem(f'{meta_path}: params must be a table ([params.NAME])')
    name = os.path.basename(folder.rstrip('/'))
    params = {}
    for pname, spec in meta.get('params', {}).items():
        if not isinstance(spec, dict) or ('default' not in spec) == (spec.get('required') is not True):
            raise MicrogenProblem(f'{meta_path}: params.{pname} needs a default (or required = true)')
        if not isinstance(spec.get('choices', []), list):
            raise MicrogenProblem(f'{meta_path}: params.{pname}.choices must be a list')
        ptype = spec.get('type', 'string')
        if ptype not in PARAM_TYPES:
            raise MicrogenProblem(f'{meta_path}: params.{pname}: type {ptype!r} is not one of '
                                  + ', '.join(PARAM_TYPES))
        params[pname] = Param(pname, str(spec['default']) if 'default' in spec else None,
                              [str(c) for c in spec['choices']] if 'choices' in spec else None,
                              spec.get('help', ''), ptype)
    unknown = set(meta) - {'summary', 'requires', 'around', 'link', 'replaces', 'params', 'split'}
    if unknown:
        raise MicrogenProblem(f'{meta_path}: unknown key(s) {", ".join(sorted(unknown))}')
    mg = Microgen(name=name, folder=folder, summary=meta.get('summary', ''),
                  requires=list(meta.get('requires', [])), around=list(meta.get('around', [])),
                  link=list(meta.get('link', [])), replaces=list(meta.get('replaces', [])),
                  params=params, split=meta.get('split', False))
    if not os.path.isfile(mg.template):
        raise MicrogenProblem(f'{folder}: no template.c.j2')
    return mg


def discover(dirs):
    """All micro-generators in DIRS; a later directory's NAME replaces an earlier one."""
    found = {}
    for d in dirs:
        if not os.path.isdir(d):
            raise MicrogenProblem(f'{d}: no such micro-generator directory')
        for entry in sorted(os.listdir(d)):
            folder = os.path.join(d, entry)
            # (lexists: a microgen.toml that is a FIFO or a device is refused, not skipped)
            if os.path.lexists(os.path.join(folder, 'microgen.toml')):
                found[entry] = _load_one(folder)
    return found


def parse_spec(spec):
    """'std.time:clock=monotonic,x=1' -> ('std.time', {'clock': 'monotonic', 'x': '1'})."""
    name, _, rest = spec.partition(':')
    params = {}
    for item in filter(None, rest.split(',')):
        key, eq, value = item.partition('=')
        if not eq or not key:
            raise MicrogenProblem(f'-g {spec}: parameters are key=value, separated by commas')
        params[key.strip()] = value.strip()
    return name.strip(), params


def compose(available, requested):
    """REQUESTED: [(name, {param: value})].  Adds prerequisites, checks parameters, and
    returns [(Microgen, params)] outermost first.  Raises on a missing one, a cycle, two
    values for one parameter, or two micro-generators replacing the same one."""
    given = _given_params(requested)
    # A micro-generator that 'replaces' another takes its place for everything that
    # requires it (std.redirect provides the callee instead of std.caller).  Who replaces
    # what is known once the closure is; a second closure then leaves the replaced out.
    chosen = _closure(available, requested, {})
    instead = _replacements(chosen)
    if instead:
        chosen = _closure(available, requested, instead)
    resolved = {name: _param_values(name, mg, given.get(name, {})) for name, mg in chosen.items()}
    order = _outermost_first(chosen, instead)
    return [(chosen[n], resolved[n]) for n in order]


def _given_params(requested):
    """name -> {param: value} over all requests; two values for one parameter raise."""
    given = {}
    for name, params in requested:
        mine = given.setdefault(name, {})
        for key, value in params.items():
            if mine.get(key, value) != value:
                raise MicrogenProblem(f'{name}:{key} is given twice ({mine[key]} and {value}): '
                                      'one value per parameter')
            mine[key] = value
    return given


def _closure(available, requested, instead):
    """The requested micro-generators, the core and all their prerequisites, each name
    taken as INSTEAD says: {name: Microgen} in the order they were first needed."""
    chosen = {}

    def need(name, why):
        name = instead.get(name, name)
        if name in chosen:
            return
        if name not in available:
            raise MicrogenProblem(f'micro-generator {name} ({why}) not found; known: '
                                  + ', '.join(sorted(available)))
        chosen[name] = available[name]
        for r in available[name].requires:
            need(r, f'required by {name}')

    for name, _ in requested:
        need(name, 'requested')
    for name in CORE:
        need(name, 'the forwarding core')
    return chosen


def _param_values(name, mg, given):
    """MG's parameters: its defaults, overridden by GIVEN (checked against its choices);
    a parameter left without a value raises."""
    values = {k: p.default for k, p in mg.params.items()}
    for key, value in given.items():
        if key not in mg.params:
            known = ', '.join(sorted(mg.params)) or 'none'
            raise MicrogenProblem(f'{name} has no parameter {key!r} (its parameters: {known})')
        choices = mg.params[key].choices
        if choices and value not in choices:
            raise MicrogenProblem(f'{name}:{key}={value}: choose one of {", ".join(choices)}')
        values[key] = value
    missing = [k for k, v in values.items()
               if v is None or (v == '' and mg.params[k].default is None)]
    if missing:
        p = mg.params[missing[0]]
        raise MicrogenProblem(f'{name} needs {p.name}= (-g {name}:{p.name}=...): {p.help}'.rstrip(': '))
    return values


def _outermost_first(chosen, instead):
    """The names of CHOSEN, each before those it encloses; a cycle raises."""
    # X encloses Y when Y requires X, or X lists Y in 'around'.
    encloses = {n: set() for n in chosen}
    for n, mg in chosen.items():
        for r in mg.requires:
            encloses[instead.get(r, r)].add(n)
        for a in mg.around:
            a = instead.get(a, a)
            if a in chosen and a != n:
                encloses[n].add(a)
    order, state = [], {}

    def visit(n, path):
        # depth-first: everything n encloses is placed before n, then the list is reversed
        if state.get(n) == 2:
            return
        if state.get(n) == 1:
            cycle = path[path.index(n):] + [n]
            raise MicrogenProblem('micro-generators must enclose each other in a cycle: '
                                  + ' -> '.join(cycle))
        state[n] = 1
        for m in sorted(encloses[n], reverse=True):
            visit(m, path + [n])
        state[n] = 2
        order.append(n)

    for n in sorted(chosen, reverse=True):
        visit(n, [])
    order.reverse()  # outermost first
    return order


def _replacements(chosen):
    """replaced name -> the chosen micro-generator that replaces it; two for one name is
    an error (two redirections of one call cannot both happen)."""
    instead = {}
    for name in sorted(chosen):
        for r in chosen[name].replaces:
            if r in instead:
                raise MicrogenProblem(f'{instead[r]} and {name} both replace {r}: '
                                      'use one of them')
            instead[r] = name
    for name, mg in chosen.items():
        for r in mg.requires:
            if instead.get(r) == name:
                raise MicrogenProblem(f'{name} both requires and replaces {r}')
    return instead


def resolve_library_params(gens, load, problem=Exception, wrapped_paths=()):
    """GENS as compose returns them.  Each parameter of type "library" becomes a
    LibraryParam: LOAD(value) -> elf.Library, raising PROBLEM with the reason when the
    library cannot be found or read.  A library parameter may not name a library that is
    being wrapped (WRAPPED_PATHS, resolved)."""
    out = []
    for mg, params in gens:
        params = dict(params)
        for key, p in mg.params.items():
            if p.type != 'library':
                continue
            value = params[key]
            try:
                lib = load(value)
            except problem as e:
                raise MicrogenProblem(f'{mg.name}:{key}={value}: {e}') from None
            if lib.path in {os.path.realpath(w) for w in wrapped_paths}:
                raise MicrogenProblem(f'{mg.name}:{key}={value} is {lib.path}, the library being '
                                      'wrapped: name another library')
            load_name = os.path.abspath(value) if '/' in value else value
            params[key] = LibraryParam(value, load_name, lib.path, lib.soname, lib.exports)
        out.append((mg, params))
    return out
