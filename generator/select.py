"""Which exported functions get a wrapper, and why the others do not.

Every exported symbol ends up either in `wrapped` (with notes such as "alias of X" or
"IFUNC") or in `skipped` with the reason --list prints."""
import difflib
import fnmatch
from dataclasses import dataclass, field

# The forwarding core cannot wrap what it needs while it looks originals up: the dl*
# functions, and the allocator (dlsym allocates the text of its errors).  Allocations
# are region tracking's business (std.regions), with a bootstrap of its own.
CORE_NEEDS = {'dlopen', 'dlmopen', 'dlsym', 'dlvsym', 'dladdr', 'dladdr1', 'dlclose',
              'dlerror', 'dlinfo', 'dl_iterate_phdr', 'malloc', 'free', 'calloc', 'realloc',
              'reallocarray', 'memalign', 'posix_memalign', 'aligned_alloc', 'valloc',
              'pvalloc'}

# The wrapper's own code calls these (errno is (*__errno_location ())): wrapped, they
# would call themselves.
SKELETON_NEEDS = {'__errno_location'}

# The runtime interposes these itself: to write the trace before the image goes away
# (dyl_process.h), and to record thread events (dyl_threads.h).
RUNTIME_OWNED = {'execve', 'execv', 'execvp', 'execvpe', 'execl', 'execlp', 'execle',
                 'fexecve', '_exit', '_Exit', 'pthread_create', 'pthread_join',
                 'pthread_tryjoin_np', 'pthread_timedjoin_np', 'pthread_clockjoin_np',
                 'GOMP_parallel', 'pthread_cond_wait', 'pthread_cond_timedwait',
                 'pthread_cond_clockwait', 'pthread_cond_signal', 'pthread_cond_broadcast',
                 'pthread_mutex_lock', 'pthread_mutex_unlock', 'sem_wait', 'sem_timedwait',
                 'sem_clockwait', 'sem_post', 'pthread_barrier_wait',
                 # process events (runtime/include/dyl_procs.h)
                 'fork', 'vfork', 'clone', 'posix_spawn', 'posix_spawnp', 'wait', 'waitpid',
                 'wait3', 'wait4', 'waitid', 'read', 'write', 'readv', 'writev', 'close', 'dup',
                 'dup2', 'dup3', 'pipe', 'pipe2', 'fclose', 'close_range', 'closefrom'}

# Functions that return twice: a wrapper's frame would be returned through twice (vfork's
# child runs on its parent's stack and clobbers the wrapper's frame; setjmp's second
# return lands in a frame that is gone).
RETURNS_TWICE = {'vfork', '__vfork', 'setjmp', '_setjmp', '__setjmp', 'sigsetjmp', '__sigsetjmp',
                 'getcontext', 'savectx'}


@dataclass
class Choice:
    name: str
    lib: object              # elf.Library
    export: object           # elf.Export
    proto: object = None     # headers.Prototype
    via: object = None       # for a variadic function: the v-variant's (Export, Prototype)
    notes: list = field(default_factory=list)


@dataclass
class Selection:
    wrapped: list = field(default_factory=list)    # [Choice]
    skipped: list = field(default_factory=list)    # [(name, library soname, reason)]
    declared_only: list = field(default_factory=list)  # [(name, header:line)]


def pattern_hints(names, patterns):
    """One warning for each -f PATTERN (not a '!' exclusion) that matches none of NAMES, the
    exported symbols: with the closest names, as 'did you mean dgemm_?' (a Fortran
    routine's trailing underscore, cblas_'s prefix, a typo)."""
    names = sorted(set(names))
    out = []
    for pat in patterns:
        if pat.startswith('!') or any(fnmatch.fnmatchcase(n, pat) for n in names):
            continue
        close = [n for n in (pat + '_', 'cblas_' + pat) if n in names]
        close += [n for n in difflib.get_close_matches(pat, names, n=3, cutoff=0.8) if n not in close]
        hint = f'; did you mean {" or ".join(close[:3])}?' if close else ''
        out.append(f'-f {pat} matches no exported function{hint}')
    return out


def match_patterns(name, patterns):
    """-f semantics: with only !exclusions, everything else is in; the last match wins."""
    if not patterns:
        return True
    verdict = None
    for pat in patterns:
        neg = pat.startswith('!')
        if fnmatch.fnmatchcase(name, pat[1:] if neg else pat):
            verdict = not neg
    if verdict is None:
        return all(p.startswith('!') for p in patterns)
    return verdict


def _same_type(a, b):
    """Two Params (or spellings) naming the same type: by canonical spelling when known."""
    return (getattr(a, 'canonical', '') or a.type) == (getattr(b, 'canonical', '') or b.type)


def _v_candidates(name):
    """NAME with one 'v' inserted, nearest the front first: printf -> vprintf,
    BIO_printf -> BIO_vprintf, ERR_add_error_data -> ERR_add_error_vdata."""
    return [name[:i] + 'v' + name[i:] for i in range(len(name) + 1)]


def _v_variant(name, proto, exports, protos):
    """The va_list twin of a variadic function: its name with one 'v' inserted, taking
    the same fixed parameters and then a va_list, and returning the same type.
    Returns (Export, Prototype), or None; _v_mismatch says why a candidate was refused."""
    for cand in _v_candidates(name):
        vp = protos.get(cand)
        if cand in exports and vp is not None and _v_mismatch(proto, vp) is None:
            return exports[cand], vp
    return None


def _v_mismatch(proto, vp):
    """Why VP cannot stand in for the variadic PROTO (None if it can)."""
    if vp.variadic or vp.no_prototype or vp.problem:
        return 'is not a plain prototype'
    last = vp.params[-1] if vp.params else None
    if last is None or ('va_list' not in last.type
                        and '__va_list_tag' not in getattr(last, 'canonical', '')):
        return 'does not end with a va_list'
    fixed = proto.params
    if len(vp.params) != len(fixed) + 1 or not all(
            _same_type(a, b) for a, b in zip(fixed, vp.params[:-1])):
        return 'takes other parameters before its va_list'
    if (getattr(proto, 'result_canonical', '') or proto.result) != \
            (getattr(vp, 'result_canonical', '') or vp.result):
        return 'returns another type'
    return None


def _no_v_variant(name, proto, exports, protos):
    """The skip reason of a variadic function without a usable va_list twin."""
    for cand in _v_candidates(name):
        if cand in exports and cand in protos:
            return (f'variadic, and its va_list variant {cand} {_v_mismatch(proto, protos[cand])}: '
                    'nothing to forward the arguments through')
    return 'variadic, and the library has no va_list variant to forward through'


def select(libs, protos, patterns=(), app_imports=None, declared=None):
    """LIBS: [elf.Library]; PROTOS: name -> Prototype; APP_IMPORTS: a set or None;
    DECLARED: name -> 'file:line' of every function declared in the library's headers."""
    sel = Selection()
    seen = {}
    for lib in libs:
        for name in sorted(lib.exports):
            e = lib.exports[name]
            tag = lib.soname or lib.path
            if name in seen:
                sel.skipped.append((name, tag, f'also exported by {seen[name]}, which comes first'))
                continue
            seen[name] = tag
            reason = _symbol_skip(name, e, patterns, app_imports) or _prototype_skip(name, e, protos)
            c = None
            if reason is None:
                c, reason = _choice(name, lib, e, protos)
            if reason is not None:
                sel.skipped.append((name, tag, reason))
                continue
            sel.wrapped.append(c)
    if declared:
        exported = set(seen)
        sel.declared_only = sorted((n, where) for n, where in declared.items() if n not in exported)
    return sel


def _symbol_skip(name, e, patterns, app_imports):
    """Why the exported symbol E is not wrapped, from its kind and name alone (None: it may be)."""
    if e.kind == 'data':
        return 'data symbol, not a function'
    if e.kind not in ('func', 'ifunc'):
        return 'not a function symbol'
    if not match_patterns(name, patterns):
        return 'not selected by -f'
    if app_imports is not None and name not in app_imports:
        return 'not imported by the --app program(s)'
    if name in CORE_NEEDS:
        return ('the forwarding core uses it to find the originals (dl* functions and the '
                'allocator): wrapping it would recurse')
    if name in SKELETON_NEEDS:
        return 'every wrapper calls it itself (errno): wrapping it would recurse'
    if name in RETURNS_TWICE:
        return 'returns twice (vfork, setjmp, getcontext): a wrapper would return through a frame that is gone'
    if name in RUNTIME_OWNED:
        return 'the runtime interposes it itself (exec and _exit, threads, process events: runtime/include/dyl_wrap.h)'
    return None


def _prototype_skip(name, e, protos):
    """Why the function is not wrapped, from its prototype (None: it may be)."""
    p = protos.get(name)
    if p is None:
        # an alias of a declared function may still differ from it (identical code
        # folding merges unrelated functions): its own prototype is needed
        return ('no prototype in the headers (give the right --header)'
                if not any(a in protos for a in e.aliases) else
                'no prototype in the headers, though a function at the same address has one')
    if p.inline_definition:
        return f'the header defines it (static or inline) at {p.file}:{p.line}: calls never reach the library'
    if p.no_prototype:
        return 'declared without a prototype (K&R "()"): its arguments are unknown'
    if p.noreturn:
        return 'never returns (noreturn): nothing to measure, and an open call would never close'
    if p.problem:
        return p.problem
    return None


def _choice(name, lib, e, protos):
    """(Choice, None) for a function to wrap, with its notes; (None, reason) for a
    variadic one without a va_list twin to forward through."""
    p = protos[name]
    c = Choice(name=name, lib=lib, export=e, proto=p)
    if p.variadic:
        v = _v_variant(name, p, lib.exports, protos)
        if v is None:
            return None, _no_v_variant(name, p, lib.exports, protos)
        c.via = v
        c.notes.append(f'variadic: forwarded through {v[0].name}')
    if e.kind == 'ifunc':
        c.notes.append('IFUNC: resolved to the implementation chosen for this CPU')
    if e.aliases:
        c.notes.append('same address as ' + ', '.join(e.aliases))
    if e.hidden_versions:
        c.notes.append('older versions not wrapped: ' + ', '.join(
            f'{name}@{v}' for v in e.hidden_versions))
    return c, None
