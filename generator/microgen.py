"""Micro-generators: small templates that insert code at fixed points of a wrapper.

A micro-generator is a folder NAME/ holding microgen.toml (metadata) and template.c.j2
(Jinja macros named after the insertion points they fill).  Insertion points:

  file      file scope, once per wrapper          macro file(w, p)
  function  file scope, before each wrapper       macro function(f, p)
  init      the wrapper's constructor             macro init(w, p)
  fini      the wrapper's destructor              macro fini(w, p)
  prefix    before the call                       macro prefix(f, p)
  postfix   after the call                        macro postfix(f, p)
  callee    the function actually called          macro callee(f, p) (one provider)

Metadata keys: summary, requires (added automatically), around (soft order: if those
are present, this one's code encloses theirs), link (extra -l flags), and [params.X]
tables with default, choices and help.

Order: what a micro-generator requires encloses it, and it encloses what it lists in
'around'.  Prefix code runs outermost first, postfix code innermost first, like nested
braces: std.time requires std.trace, so the trace row is opened before the clock starts
and closed after it stops.
"""
import os
import tomllib
from dataclasses import dataclass, field

POINTS = ('file', 'function', 'init', 'fini', 'prefix', 'postfix', 'callee')
DEFAULT_SET = ['std.time', 'std.trace']
CORE = ['std.funcptr', 'std.loader', 'std.caller']


class MicrogenProblem(Exception):
    pass


@dataclass
class Param:
    name: str
    default: str
    choices: list = None
    help: str = ''


@dataclass
class Microgen:
    name: str
    folder: str
    summary: str = ''
    requires: list = field(default_factory=list)
    around: list = field(default_factory=list)
    link: list = field(default_factory=list)
    params: dict = field(default_factory=dict)
    points: tuple = ()   # filled in once the template is loaded

    @property
    def template(self):
        return os.path.join(self.folder, 'template.c.j2')


def _load_one(folder):
    meta_path = os.path.join(folder, 'microgen.toml')
    try:
        with open(meta_path, 'rb') as f:
            meta = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise MicrogenProblem(f'{meta_path}: {e}') from None
    name = os.path.basename(folder.rstrip('/'))
    params = {}
    for pname, spec in meta.get('params', {}).items():
        if not isinstance(spec, dict) or 'default' not in spec:
            raise MicrogenProblem(f'{meta_path}: params.{pname} needs a default')
        params[pname] = Param(pname, str(spec['default']),
                              [str(c) for c in spec['choices']] if 'choices' in spec else None,
                              spec.get('help', ''))
    unknown = set(meta) - {'summary', 'requires', 'around', 'link', 'params'}
    if unknown:
        raise MicrogenProblem(f'{meta_path}: unknown key(s) {", ".join(sorted(unknown))}')
    mg = Microgen(name=name, folder=folder, summary=meta.get('summary', ''),
                  requires=list(meta.get('requires', [])), around=list(meta.get('around', [])),
                  link=list(meta.get('link', [])), params=params)
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
            if os.path.isfile(os.path.join(folder, 'microgen.toml')):
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
    returns [(Microgen, params)] outermost first.  Raises on a missing one or a cycle."""
    chosen, given = {}, {}
    for name, params in requested:
        given.setdefault(name, {}).update(params)

    def need(name, why):
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

    resolved = {}
    for name, mg in chosen.items():
        values = {k: p.default for k, p in mg.params.items()}
        for key, value in given.get(name, {}).items():
            if key not in mg.params:
                known = ', '.join(sorted(mg.params)) or 'none'
                raise MicrogenProblem(f'{name} has no parameter {key!r} (its parameters: {known})')
            choices = mg.params[key].choices
            if choices and value not in choices:
                raise MicrogenProblem(f'{name}:{key}={value}: choose one of {", ".join(choices)}')
            values[key] = value
        resolved[name] = values

    # X encloses Y when Y requires X, or X lists Y in 'around'.
    encloses = {n: set() for n in chosen}
    for n, mg in chosen.items():
        for r in mg.requires:
            encloses[r].add(n)
        for a in mg.around:
            if a in chosen:
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
    return [(chosen[n], resolved[n]) for n in order]
