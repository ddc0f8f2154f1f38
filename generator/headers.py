"""Finding the headers of a library and reading its prototypes with libclang.

Everything here is a pure function of the header files: a Prototype keeps what the
wrapper needs (type spellings valid at the wrapper's file scope, parameter names,
const pointees, where it was declared) and no libclang objects."""
import functools
import glob
import hashlib
import os
import re
import subprocess
from dataclasses import dataclass, field

import clang.cindex as ci

from . import cache
from . import text as textmod
from . import watch
from . import halves

# Included before the library's headers, in the parse and in the wrapper alike:
# headers such as jpeglib.h use FILE and size_t without including their headers.
PRELUDE = ['stddef.h', 'stdint.h', 'stdio.h', 'stdarg.h']
# __malloc__(deallocator) is GCC 11's; libclang 14 refuses it ("'__malloc__' attribute
# takes no arguments": GCC's own omp.h).  The parse reads it as plain __malloc__; the
# wrapper is built by GCC, which knows it.
CLANG_ARGS = ['-x', 'c', '-std=gnu11', '-D_GNU_SOURCE', '-D__malloc__(...)=__malloc__']
INCLUDE_DIRS = ['/usr/local/include', '/usr/include/x86_64-linux-gnu', '/usr/include']
# GCC's own headers (omp.h for libgomp, the newest GCC's): searched last, for libraries
# whose -dev files live there; the parse finds their includes there too, after its own
GCC_INCLUDE = sorted(glob.glob('/usr/lib/gcc/x86_64-linux-gnu/*/include'),
                     key=lambda d: [int(x) if x.isdigit() else 0
                                    for x in d.split('/')[-2].split('.')])[-1:]
INCLUDE_DIRS += GCC_INCLUDE
CLANG_ARGS += [a for d in GCC_INCLUDE for a in ('-idirafter', d)]

# what `#include "PATH"` cannot hold (a CR ends the line too), and bytes libclang's
# unsaved file (UTF-8 text) cannot carry
_UNNAMEABLE = re.compile(r'[\n\r"\udc80-\udcff]')


# every declaration names its file: one look-up of the file system per file, per parse
_realpath = functools.lru_cache(maxsize=None)(os.path.realpath)


class HeaderProblem(Exception):
    pass


@dataclass
class Param:
    name: str
    type: str             # spelling usable as a type-name, e.g. "int (*)(void *)"
    pointer: bool = False
    const_pointee: bool = False
    pointee_size: int = -1  # sizeof(*p), -1 if unknown or void
    scalar_size: int = -1   # sizeof(p) for a value of arithmetic type
    kind: str = 'other'     # signed, unsigned, float, char, pointer, record, other
    pointee_kind: str = None  # the kinds above, and void
    inner_const: bool = False  # a pointer to pointers whose targets are const (const char **)
    inner_kind: str = None  # a pointer to pointers: the kind of their targets (char **: char)
    integer: bool = False   # an integer by value, not _Bool, an enum or a char (a count)
    canonical: str = ''     # the canonical type without top-level qualifiers (comparisons)
    plain: str = ''         # the same type for a call, spelled with C's own types alone
                            # (a pointer to a struct: void *; an enum: its integer type);
                            # '' when there is none (a struct by value): _plain_type


@dataclass
class Prototype:
    name: str
    result: str
    params: list
    file: str
    line: int
    variadic: bool = False
    no_prototype: bool = False   # K&R "()" declaration
    noreturn: bool = False
    inline_definition: bool = False
    problem: str = None          # why it cannot be rebuilt, if it cannot
    notes: list = field(default_factory=list)
    result_canonical: str = ''   # canonical result type, unqualified (comparisons)
    result_plain: str = ''       # as Param.plain ('void' for void)


_INTERNAL = re.compile(r'[Nn]ever (be )?include|include .* directly|only be included')


def _link_time_names(lib_path):
    """The files the linker would use for -l of this library: symlinks to it, and
    linker scripts that name it (glibc's libc.so is one: GROUP ( .../libc.so.6 ... ))."""
    real = os.path.realpath(lib_path)
    dirs = {os.path.dirname(real), os.path.dirname(os.path.abspath(lib_path)),
            '/usr/lib/x86_64-linux-gnu', '/usr/lib'}
    found = []
    for d in sorted(dirs):
        for f in glob.glob(os.path.join(d, '*.so')):
            if os.path.islink(f):
                if os.path.realpath(f) == real:
                    found.append(f)
            else:
                text = _peek(f, 4096)   # (a linker script is small)
                if text is None:
                    continue
                if ('GROUP' in text or 'INPUT' in text) and (
                        real in text or os.path.basename(lib_path) in text.split()
                        or any(os.path.realpath(w) == real for w in re.findall(r'/\S+', text))):
                    found.append(f)
    return found


def _peek(path, size, whole=True):
    """The text of PATH (its first SIZE bytes when not WHOLE), or None when it is not a
    regular file (a FIFO or a device found in a folder searched: never opened to wait on
    or read without end), is larger than SIZE when WHOLE, or cannot be read."""
    try:
        with textmod.open_regular(path, size if whole else None) as f:
            return f.read(size).decode('utf-8', 'replace')
    except (OSError, ValueError):
        return None


def _includable(path):
    """Not an internal header: glibc's bits/ and those that say never to include them."""
    if '/bits/' in path:
        return False
    head = _peek(path, 8192, whole=False)
    if head is None:
        return False
    return not any(_INTERNAL.search(line) for line in head.splitlines() if '#' in line and 'error' in line)


DPKG_STATUS = '/var/lib/dpkg/status'   # rewritten by every install and removal
DPKG_CACHE = 'packages.json'


class DpkgMemo:
    """dpkg's answers (-S, -L) kept in OUT.d/packages.json while DPKG_STATUS is unchanged:
    dpkg -S reads every package's file list (libcrypto: 0.25 s of CPU, each generation)."""

    def __init__(self, cache_dir):
        self.status = _status_stamp()
        self.answers, self.changed = {}, False
        if cache_dir is None or self.status is None:
            return
        try:
            data = cache.read_json(cache_dir, DPKG_CACHE)
            if data['status'] == self.status and isinstance(data['answers'], dict):
                self.answers = {k: v for k, v in data['answers'].items()
                                if isinstance(k, str) and isinstance(v, str)}
        except (OSError, ValueError, KeyError, TypeError):
            pass   # none yet, or dpkg's packages changed since

    def run(self, *args):
        key = ' '.join(args)
        if key not in self.answers:
            self.answers[key] = subprocess.run(['dpkg', *args], capture_output=True, text=True,
                                               check=False).stdout
            self.changed = True
        return self.answers[key]

    def save(self, folder):
        if self.changed and self.status is not None:
            cache.write_json(folder, DPKG_CACHE, {'status': self.status, 'answers': self.answers})


def _status_stamp():
    try:
        st = os.stat(DPKG_STATUS)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def _dpkg_headers(lib_path, memo=None):
    """Headers of the Debian -dev package that ships this library's link-time name.
    MEMO: a DpkgMemo (None: ask dpkg)."""
    memo = memo or DpkgMemo(None)
    headers = []
    for link in _link_time_names(lib_path):
        try:
            owner = memo.run('-S', link).split(':')[0].strip()
            if not owner:
                continue
            files = memo.run('-L', owner).split()
        except OSError:
            return []
        headers += [f for f in files if f.endswith('.h') and os.path.isfile(f) and _includable(f)
                    and not _UNNAMEABLE.search(f)]
    return sorted(set(headers))


_CALL = re.compile(r'\b([A-Za-z_]\w*)\s*\(')


def _scan_headers(names, dirs):
    """Headers under DIRS that mention any of NAMES as name(: the fallback search."""
    names = set(names)
    found = {}
    for d in dirs:
        for root, subdirs, files in os.walk(d):
            # C++'s headers are no C prototypes (parallel/find.h names omp_* calls)
            subdirs[:] = [s for s in subdirs if s != 'c++']
            for fn in files:
                if not fn.endswith('.h') or _UNNAMEABLE.search(os.path.join(root, fn)):
                    continue   # (a path #include cannot name)
                path = os.path.join(root, fn)
                text = _peek(path, textmod.TEXT_LIMIT)
                if text is None:
                    continue
                hits = {m.group(1) for m in _CALL.finditer(text)} & names
                if hits:
                    found[path] = hits
    # greedy cover: the headers that declare most of what is still missing
    chosen, missing = [], set(names)
    while found and missing:
        best = max(found, key=lambda p: (len(found[p] & missing), -len(p)))
        gain = found.pop(best) & missing
        if not gain:
            break
        chosen.append(best)
        missing -= gain
    return sorted(chosen)


def find_headers(lib_path, export_names, include_dirs=INCLUDE_DIRS, memo=None):
    return _dpkg_headers(lib_path, memo) or _scan_headers(export_names, include_dirs)


def check_include_dir(d):
    """An -I folder: its headers' paths go where _check_header's do (and into make's .dep
    files, where a newline cannot be written)."""
    if _UNNAMEABLE.search(os.path.abspath(d)):
        raise HeaderProblem(f'-I {textmod.shown(d)}: a folder whose path holds a newline, a '
                            'carriage return, a double quote or bytes that are not UTF-8 '
                            'cannot be searched for headers (rename it, or link to it)')


def _check_header(h):
    """H, a header named on the command line or found, as libclang and the wrapper will
    #include it: a regular file of at most text.TEXT_LIMIT bytes, whose path an #include
    can name.  HeaderProblem with one line naming it if not."""
    if _UNNAMEABLE.search(os.path.abspath(h)):
        raise HeaderProblem(f'{textmod.shown(h)}: a header whose path holds a newline, a '
                            'carriage return, a double quote or bytes that are not UTF-8 '
                            'cannot be named in #include "..." (rename it, or copy it)')
    try:
        textmod.open_regular(h, textmod.TEXT_LIMIT).close()
    except FileNotFoundError:
        raise HeaderProblem(f'{textmod.shown(h)}: no such header') from None
    except (OSError, ValueError) as e:
        raise HeaderProblem(textmod.shown(textmod.problem(h, e))) from None


def _tu_source(headers):
    lines = [f'#include <{h}>' for h in PRELUDE]
    lines += [f'#include "{os.path.abspath(h)}"' for h in headers]
    return '\n'.join(lines) + '\n'


def _parse(index, headers, extra_args):
    src = _tu_source(headers)
    opts = (ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES
            | ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    # (what the headers include is read by libclang: watched, see watch.py)
    with watch.Watch('included while parsing the headers'):
        tu = index.parse('dyl_headers.c', args=CLANG_ARGS + extra_args,
                         unsaved_files=[('dyl_headers.c', src)], options=opts)
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    return tu, errors


def _where(diag):
    loc = diag.location
    return f'{loc.file.name if loc.file else "?"}:{loc.line}: {diag.spelling}'


def _culprit(tu, error, tops):
    """The top-level header whose inclusion led to ERROR (None if unknown)."""
    parent = {}
    for inc in tu.get_includes():
        parent.setdefault(os.path.realpath(inc.include.name),
                          os.path.realpath(inc.source.name) if inc.source else None)
    f = error.location.file
    cur = os.path.realpath(f.name) if f else None
    seen = set()
    while cur and cur not in tops and cur not in seen:
        seen.add(cur)
        cur = parent.get(cur)
    return cur if cur in tops else None


def parse_headers(headers, extra_args=(), drop_broken=True, wanted=None, deps=None):
    """Parses HEADERS as one translation unit.  A header that does not compile is tried
    again after all the others (it may need them first); if it still fails (it #errors,
    say) it is dropped and reported, as long as others remain.  Only names in WANTED (all, if None) get a Prototype; a wanted name the
    headers only rename (`#define foo foo_v2`, an __asm__("foo") label on another
    declaration) gets one whose problem says so.
    Returns (prototypes by name, macro names, usable headers, notes, and name ->
    'file:line' of every function declared in HEADERS themselves).  DEPS, a list: gets
    every file the parse read (the headers and what they include), for a cache."""
    extra_args = list(extra_args)
    _realpath.cache_clear()   # (links may have changed since an earlier call)
    _file_bytes.cache_clear()
    index = ci.Index.create()
    for h in headers:
        _check_header(h)
    usable = [os.path.abspath(h) for h in headers]
    notes = []
    tu, errors = _parse(index, usable, extra_args)
    moved = set()
    while errors and drop_broken and len(usable) > 1:
        tops = {os.path.realpath(h): h for h in usable}
        bad = _culprit(tu, errors[0], tops)
        if bad is None:
            break
        usable.remove(tops[bad])
        if bad not in moved:
            # it may only need the others first (jpegint.h after jpeglib.h): try it last
            moved.add(bad)
            usable.append(tops[bad])
        else:
            notes.append(f'header {tops[bad]} skipped: {_where(errors[0])}')
        tu, errors = _parse(index, usable, extra_args)
    if errors:
        raise HeaderProblem(_where(errors[0]))
    protos, macros, declared = _prototypes(tu, wanted, set(os.path.realpath(h) for h in usable))
    if deps is not None:
        deps += sorted(set(usable) | {inc.include.name for inc in tu.get_includes()})
    return protos, macros, usable, notes, declared


CACHE_NAME = 'headers.json'
_HERE = os.path.dirname(os.path.abspath(__file__))


def _stamp(path):
    st = os.stat(path)
    return [path, st.st_mtime_ns, st.st_size]


def _as_dict(p):
    """asdict(P) for a Prototype, five times faster (the fields are plain values, lists of
    strings and Params): libcrypto's 5,337 in 0.2 s, not 1 s."""
    return dict(vars(p), params=[dict(vars(a)) for a in p.params], notes=list(p.notes))


def parse_headers_cached(cache_dir, headers, extra_args=(), wanted=None):
    """(parse_headers(HEADERS, EXTRA_ARGS, wanted=WANTED), save): from CACHE_DIR/headers.json
    when it holds the result of the same call (the same headers, flags, wanted names,
    libclang and this file) over files that have not changed since (path, mtime, size of
    every file the parse read); else parsed, and save(DIR) writes it to DIR/headers.json
    (a no-op after a hit).  CACHE_DIR: None to read no cache.  The caller checks that
    only this user can write these folders (the file is JSON: data, never code)."""
    with open(os.path.abspath(__file__), 'rb') as f:
        code = hashlib.sha256(f.read()).hexdigest()
    key = {'headers': [os.path.abspath(h) for h in headers], 'args': CLANG_ARGS + list(extra_args),
           'wanted': hashlib.sha256('\n'.join(sorted(wanted)).encode()).hexdigest()
           if wanted is not None else None, 'libclang': ci.conf.lib._name, 'code': code}
    if cache_dir is not None:
        try:
            cached = cache.read_json(cache_dir, CACHE_NAME)
            if cached['key'] == key and all(_stamp(d[0]) == d for d in cached['deps']):
                r = cached['result']
                protos = {n: Prototype(**dict(p, params=[Param(**a) for a in p['params']]))
                          for n, p in r['protos'].items()}
                return (protos, set(r['macros']), r['usable'], r['notes'], r['declared']), \
                    lambda _dir: None
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
            pass   # none yet, another version's, or a file changed: parse again
    deps = []
    result = parse_headers(headers, extra_args, wanted=wanted, deps=deps)
    protos, macros, usable, notes, declared = result
    stamps = [_stamp(d) for d in deps]   # as they were when parsed

    def save(folder):
        data = {'key': key, 'deps': stamps,
                'result': {'protos': {n: _as_dict(p) for n, p in protos.items()},
                           'macros': sorted(macros), 'usable': usable, 'notes': notes,
                           'declared': declared}}
        cache.write_json(folder, CACHE_NAME, data)
    return result, save


# also the tail of a macro name: OpenSSL's ossl_noreturn
_NORETURN_WORD = re.compile(r'(?:\b|_)(_Noreturn|noreturn|__noreturn__)\b')


@functools.lru_cache(maxsize=None)
def _file_bytes(name):
    """NAME's bytes, read once per parse (OpenSSL's 11,000 deprecation attributes would
    read their headers 11,000 times: 0.2 s); b'' if it cannot be read."""
    try:
        return textmod.read_regular(name, None)
    except (OSError, ValueError):
        return b''


def _source_text(extent):
    f = extent.start.file
    if f is None or extent.end.file is None or extent.end.file.name != f.name:
        return ''
    start = extent.start.offset
    return _file_bytes(f.name)[start:max(start, extent.end.offset)].decode('utf-8', 'replace')


def _is_noreturn(c):
    """__attribute__((noreturn)) shows in the function's type (also through a typedef of
    it); _Noreturn only as an attribute child, and behind a macro (OpenSSL's
    `ossl_noreturn void OPENSSL_die(...)`) that child has no tokens: read its source text
    then.  Names that merely contain the word (a parameter `noreturn_handler`) do not
    count."""
    for t in (c.type, c.type.get_canonical()):
        if '__attribute__((noreturn))' in t.spelling:
            return True
    for ch in c.get_children():
        if ch.kind == ci.CursorKind.UNEXPOSED_ATTR:
            words = ' '.join(t.spelling for t in ch.get_tokens()) or _source_text(ch.extent)
            if _NORETURN_WORD.search(words):
                return True
    return False


_KINDS = {
    'signed': {'BOOL', 'SHORT', 'INT', 'LONG', 'LONGLONG', 'ENUM', 'SCHAR'},
    'unsigned': {'UCHAR', 'USHORT', 'UINT', 'ULONG', 'ULONGLONG'},
    'char': {'CHAR_S', 'CHAR_U'},
    'float': {'FLOAT', 'DOUBLE', 'LONGDOUBLE'},
    'pointer': {'POINTER', 'CONSTANTARRAY', 'INCOMPLETEARRAY', 'VARIABLEARRAY', 'BLOCKPOINTER',
                'FUNCTIONPROTO', 'FUNCTIONNOPROTO'},
    'record': {'RECORD'},
    'void': {'VOID'},
}
_ARRAYS = (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY, ci.TypeKind.VARIABLEARRAY)
_FUNCTIONS = (ci.TypeKind.FUNCTIONPROTO, ci.TypeKind.FUNCTIONNOPROTO)


def _kind(t):
    name = t.get_canonical().kind.name
    for kind, names in _KINDS.items():
        if name in names:
            return kind
    return 'other'


def _variably_modified(t):
    """Does T involve a variable length array (double[n], double (*)[n], ...)?"""
    t = t.get_canonical()
    if t.kind == ci.TypeKind.VARIABLEARRAY:
        return True
    if t.kind in _ARRAYS:
        return _variably_modified(t.element_type)
    if t.kind == ci.TypeKind.POINTER:
        return _variably_modified(t.get_pointee())
    if t.kind == ci.TypeKind.FUNCTIONPROTO:
        return (_variably_modified(t.get_result())
                or any(_variably_modified(a) for a in t.argument_types()))
    return False


def _plain(spelling):
    return not any(ch in spelling for ch in '()[]')


def _quals(t):
    return {q for q, has in (('const', t.is_const_qualified()), ('volatile', t.is_volatile_qualified()))
            if has}


def _pointer_to(t, inherited=frozenset()):
    """A file-scope type-name for 'pointer to T', None if there is none: a pointer to a
    variable length array becomes a pointer to an array of unknown size (compatible).
    INHERITED: qualifiers of an enclosing canonical array type, which clang keeps there
    rather than on the elements (`const double a[n][m]`, `const char *const argv[n]`)."""
    if _variably_modified(t):
        c = t.get_canonical()
        if c.kind != ci.TypeKind.VARIABLEARRAY or _variably_modified(c.element_type):
            return None
        base, quals, suffix = c.element_type.spelling, _quals(c) | inherited, ' (*)[]'
    else:
        base, quals, suffix = _ARRAY_QUALS.sub('[', t.spelling), inherited - _quals(t), ' *'
    if not _plain(base):
        base = f'__typeof__({base})'
    quals = ' '.join(sorted(quals))
    if quals:  # 'const double', but 'const char *const' (the pointer itself is const)
        base = (base + quals if base.endswith('*') else f'{base} {quals}' if '(' in base
                else f'{quals} {base}')
    return base + suffix


# 'const double[static 3]', 'int[restrict 4]': only valid in a parameter declarator
_ARRAY_QUALS = re.compile(r'\[\s*(?:(?:static|const|volatile|restrict|__restrict|_Atomic)\b\s*)+')


def _param_type(t):
    """(spelling usable as a type-name at file scope, problem).  libclang reports a
    parameter's type as written (double[n], const int[static 4], int (int)), not as
    adjusted: arrays keep their array form (a pointer would make GCC warn that the
    redeclaration differs), variably modified ones become pointers."""
    if not _variably_modified(t):
        return _ARRAY_QUALS.sub('[', t.spelling), None
    c = t.get_canonical()
    target = c.element_type if c.kind in _ARRAYS else c.get_pointee() if c.kind == ci.TypeKind.POINTER else None
    s = _pointer_to(target, frozenset(_quals(c)) if c.kind in _ARRAYS else frozenset()) \
        if target is not None else None
    if s is None:
        return None, (f'a parameter of variably modified type ({t.spelling}) that cannot be '
                      'named outside the prototype')
    return s, None


def _const_deep(t):
    """const-ness of what a pointer points to; for an array, of its elements."""
    while True:
        if t.is_const_qualified() or t.get_canonical().is_const_qualified():
            return True
        if t.get_canonical().kind not in _ARRAYS:
            return False
        t = t.get_canonical().element_type


def _unqualified(spelling):
    """Without top-level qualifiers: 'const int' -> 'int', 'char *const' -> 'char *';
    'const char *' stays (that const is the pointee's)."""
    s = spelling.strip()
    t = re.sub(r'(?:(?:\s+|(?<=\*))(?:const|volatile|restrict))+$', '', s)
    if t != s or any(ch in s for ch in '*(['):
        return t.rstrip()
    return re.sub(r'^(?:(?:const|volatile)\s+)+', '', s)


_BUILTIN = {ci.TypeKind.BOOL, ci.TypeKind.CHAR_S, ci.TypeKind.CHAR_U, ci.TypeKind.SCHAR,
            ci.TypeKind.UCHAR, ci.TypeKind.SHORT, ci.TypeKind.USHORT, ci.TypeKind.INT,
            ci.TypeKind.UINT, ci.TypeKind.LONG, ci.TypeKind.ULONG, ci.TypeKind.LONGLONG,
            ci.TypeKind.ULONGLONG, ci.TypeKind.FLOAT, ci.TypeKind.DOUBLE, ci.TypeKind.LONGDOUBLE}


def _plain_scalar(c):
    """Canonical type C as one of C's own scalar types ('unsigned long'; an enum: its
    integer type), qualifiers dropped; '' for any other type."""
    if c.kind == ci.TypeKind.ENUM:
        c = c.get_declaration().enum_type.get_canonical()
    return _unqualified(c.spelling) if c.kind in _BUILTIN else ''


def _plain_type(t):
    """T as a wrapper of a unit without the library's headers declares it (Param.plain):
    the same in a call (registers, sizes).  A pointer to a scalar keeps its pointee (std.args
    prints what a const one points to), other pointers, arrays and functions become
    void *; a struct, union, complex or vector by value has none ('')."""
    c = t.get_canonical()
    if c.kind == ci.TypeKind.VOID:
        return 'void'
    if c.kind == ci.TypeKind.POINTER or c.kind in _ARRAYS or c.kind in _FUNCTIONS:
        pointee = (c.get_pointee() if c.kind == ci.TypeKind.POINTER
                   else c.element_type if c.kind in _ARRAYS else None)
        scalar = _plain_scalar(pointee.get_canonical()) if pointee is not None else ''
        if scalar:
            quals = ' '.join(sorted(_quals(pointee) | _quals(pointee.get_canonical())))
            return f'{quals} {scalar} *'.lstrip()
        return 'void *'
    return _plain_scalar(c)


def _param(i, cur, name):
    t = cur.type
    canon = t.get_canonical()
    spelling, problem = _param_type(t)
    p = Param(name=name or f'dyl_a{i}', type=spelling or t.spelling, kind=_kind(t))
    if canon.kind == ci.TypeKind.POINTER or canon.kind in _ARRAYS or canon.kind in _FUNCTIONS:
        pointee = (canon.get_pointee() if canon.kind == ci.TypeKind.POINTER
                   else canon.element_type if canon.kind in _ARRAYS else canon)
        p.pointer = True
        # an array's canonical type carries its elements' const itself
        p.const_pointee = _const_deep(t if canon.kind in _ARRAYS else pointee)
        size = pointee.get_size() if pointee.kind not in _FUNCTIONS else -1
        p.pointee_size = size if size > 0 else -1
        p.pointee_kind = 'other' if pointee.kind in _FUNCTIONS else _kind(pointee)
        inner = pointee.get_canonical()
        if inner.kind == ci.TypeKind.POINTER:
            p.inner_const = _const_deep(inner.get_pointee())
            p.inner_kind = _kind(inner.get_pointee())
        elif inner.kind in _ARRAYS:
            p.inner_const = _const_deep(inner.element_type)
    else:
        size = canon.get_size()
        p.scalar_size = size if size > 0 else -1
        p.integer = p.kind in ('signed', 'unsigned') and canon.kind not in (ci.TypeKind.BOOL, ci.TypeKind.ENUM)
    p.canonical = _unqualified(canon.spelling)
    p.plain = _plain_type(t)
    return p, problem


def _problem_in(spelling):
    if '(unnamed' in spelling or '(anonymous' in spelling:
        return 'uses an anonymous struct/union/enum type that cannot be named outside it'
    return None


def _declared_in_prototype(t):
    """The struct/union/enum (reached through pointers and arrays) that T names, if it
    was declared inside a parameter list: the type exists only in that prototype."""
    c = t.get_canonical()
    while c.kind == ci.TypeKind.POINTER or c.kind in _ARRAYS:
        c = c.get_pointee() if c.kind == ci.TypeKind.POINTER else c.element_type
        c = c.get_canonical()
    if c.kind in (ci.TypeKind.RECORD, ci.TypeKind.ENUM):
        d = c.get_declaration()
        parent = d.semantic_parent
        if parent is not None and parent.kind == ci.CursorKind.FUNCTION_DECL:
            return c.spelling
    return None


def _is_def(c):
    return c.is_definition() or c.storage_class == ci.StorageClass.STATIC


def _asm_label(c):
    for ch in c.get_children():
        if ch.kind == ci.CursorKind.ASM_LABEL_ATTR:
            return ch.spelling.lstrip('\x01')
    return None


def _prototypes(tu, wanted, own_files):
    decls, macros, declared, header_defined = {}, set(), {}, set()
    macro_cursors, labels, functions = {}, {}, set()
    for c in tu.cursor.get_children():
        if c.kind == ci.CursorKind.MACRO_DEFINITION:
            macros.add(c.spelling)
            macro_cursors[c.spelling] = c
        elif c.kind == ci.CursorKind.FUNCTION_DECL:
            name = c.spelling
            functions.add(name)
            f = c.location.file
            if _is_def(c):
                header_defined.add(name)  # static/inline in the header: no library call
            if f and name not in declared and _realpath(f.name) in own_files:
                declared[name] = f'{os.path.basename(f.name)}:{c.location.line}'
            label = _asm_label(c)
            if label and label != name:
                labels.setdefault(label, c)
            if wanted is not None and name not in wanted:
                continue
            decls.setdefault(name, []).append(c)
    for name in header_defined:
        declared.pop(name, None)
    protos = _prototypes_of(list(decls.items()))
    # Exported names with no declaration of their own, which the headers turn into
    # another name: by an __asm__ label, or by an object-like macro.
    for label, c in labels.items():
        if label not in protos and (wanted is None or label in wanted):
            protos[label] = _renamed(label, c, f'the header declares it as {c.spelling} with an '
                                     f'__asm__("{label}") label')
            declared.pop(label, None)
    candidates = set(macro_cursors) if wanted is None else set(macro_cursors) & set(wanted)
    for name in sorted(candidates - set(protos)):
        m = macro_cursors[name]
        if m.location.file is None:
            continue  # a builtin macro
        toks = [t.spelling for t in m.get_tokens()]
        if len(toks) == 2 and re.fullmatch(r'[A-Za-z_]\w*', toks[1]) and toks[1] in functions:
            protos[name] = _renamed(name, m, f'the headers #define {name} {toks[1]}, so programs '
                                    f'built with them call {toks[1]}')
    return protos, macros, declared


PARALLEL_FROM = 2048   # functions: their prototypes read by two processes


def _prototypes_of(items):
    """{name: _prototype(cursors)} for ITEMS [(name, cursors)]: the second half in a forked
    child when there are PARALLEL_FROM or more and two CPUs (libcrypto's 5,337: ~0.7 s of
    libclang calls; the child has the parse too).  The same result as one process's."""
    protos = halves.map_in_two(lambda it: _prototype(it[1]), items, halves.cpus(), PARALLEL_FROM)
    return {name: p for (name, _), p in zip(items, protos)}


def _renamed(name, c, why):
    f = c.location.file
    return Prototype(name=name, result='', params=[], line=c.location.line,
                     file=_realpath(f.name) if f else '?',
                     problem=f'no prototype of its own: {why}')


def _call_form(name, params):
    """A type-name for the result of calling NAME: `__typeof__((f)(*(T *)0, ...))`.  It
    names what the header cannot spell outside the declaration (an anonymous struct
    returned by value), and drops qualifiers (`const int f(void)`) as a call does."""
    args = ', '.join(f'*({p.type} *)0' if _plain(p.type) else f'*(__typeof__({p.type}) *)0'
                     for p in params)
    return f'__typeof__(({name})({args}))'


# glibc's complex.h declares cabsf32 with __CFLOAT32, which is `_Complex float` to clang
# (no _Float32 of its own: a typedef) but `_Complex _Float32`, another type, to GCC, which
# builds the wrapper.  The scalar _Float32 keeps its typedef name; the complex one is
# spelled here from the function's TS 18661-3 suffix.
_FLOAT_N = {'f32': ('float', '_Float32'), 'f64': ('double', '_Float64'),
            'f32x': ('double', '_Float32x'), 'f64x': ('long double', '_Float64x')}
_FLOAT_N_NAME = re.compile(r'.*(f32x|f64x|f32|f64)$')
_GLIBC_COMPLEX = ('/complex.h', '/bits/cmathcalls.h')


def _float_n_complex(p):
    m = _FLOAT_N_NAME.match(p.name)
    if not m or not p.file.endswith(_GLIBC_COMPLEX):
        return
    base, float_n = _FLOAT_N[m.group(1)]
    pattern = re.compile(r'\b_Complex ' + base + r'\b')
    p.result = pattern.sub('_Complex ' + float_n, p.result)
    for a in p.params:
        a.type = pattern.sub('_Complex ' + float_n, a.type)


def _prototype(cursors):
    """One Prototype from all declarations of a function: the definition if the header
    has one, else the first declaration with a prototype (a K&R `int f();` followed by
    `int f(int);` has one); parameter names from whichever declaration names them."""
    defn = next((c for c in cursors if _is_def(c)), None)
    main = defn or next((c for c in cursors if c.type.get_canonical().kind == ci.TypeKind.FUNCTIONPROTO),
                        cursors[0])
    c = main
    f = c.location.file
    r = c.result_type
    p = Prototype(name=c.spelling, result=r.spelling, params=[],
                  file=_realpath(f.name) if f else '?', line=c.location.line)
    ftype = c.type.get_canonical()
    p.no_prototype = ftype.kind == ci.TypeKind.FUNCTIONNOPROTO
    p.inline_definition = defn is not None
    p.result_canonical = _unqualified(r.get_canonical().spelling)
    p.result_plain = _plain_type(r)
    problems = []
    if not p.no_prototype:
        p.variadic = ftype.is_function_variadic()
        args = list(c.get_arguments())
        names = [a.spelling for a in args]
        for other in cursors:
            theirs = list(other.get_arguments())
            if len(theirs) == len(names):
                merged = [n or o.spelling for n, o in zip(names, theirs)]
                if len(set(filter(None, merged))) == len(list(filter(None, merged))):
                    names = merged  # (never two parameters of one name)
        for i, (a, n) in enumerate(zip(args, names), 1):
            param, problem = _param(i, a, n)
            p.params.append(param)
            problems.append(problem)
            where = _declared_in_prototype(a.type)
            if where:
                problems.append(f'uses {where}, declared inside its own parameter list: the type '
                                'exists only in that prototype')
    p.noreturn = any(_is_noreturn(x) for x in cursors)
    label = next(filter(None, map(_asm_label, cursors)), None)
    if label and label != c.spelling:
        problems.append(f'the header binds it to the symbol {label} (__asm__ label): programs '
                        f'built with the header call {label}, and {c.spelling} has no prototype '
                        'of its own')
    problems += [_problem_in(a.type) for a in p.params]
    p.problem = next((x for x in problems if x), None)
    _float_n_complex(p)
    if p.problem is None and p.result != 'void':
        rc = r.get_canonical()
        qualified = rc.is_const_qualified() or rc.is_volatile_qualified()
        local = r.is_const_qualified() or r.is_volatile_qualified()
        if qualified and local and r.kind != ci.TypeKind.TYPEDEF and not _problem_in(p.result):
            p.result = _unqualified(p.result)  # 'const int' -> 'int', as a call returns it
        elif qualified or _problem_in(p.result):
            p.result = _call_form(c.spelling, p.params)
    return p
