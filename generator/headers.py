"""Finding the headers of a library and reading its prototypes with libclang.

Everything here is a pure function of the header files: a Prototype keeps what the
wrapper needs (type spellings valid at the wrapper's file scope, parameter names,
const pointees, where it was declared) and no libclang objects."""
import glob
import os
import re
import subprocess
from dataclasses import dataclass, field

import clang.cindex as ci

# Included before the library's headers, in the parse and in the wrapper alike:
# headers such as jpeglib.h use FILE and size_t without including their headers.
PRELUDE = ['stddef.h', 'stdint.h', 'stdio.h', 'stdarg.h']
CLANG_ARGS = ['-x', 'c', '-std=gnu11', '-D_GNU_SOURCE']
INCLUDE_DIRS = ['/usr/local/include', '/usr/include/x86_64-linux-gnu', '/usr/include']


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
    pointee_kind: str = None


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


def _dpkg_headers(lib_path):
    """Headers of the Debian -dev package that ships this library's link-time symlink."""
    real = os.path.realpath(lib_path)
    d = os.path.dirname(real)
    candidates = []
    for link in glob.glob(os.path.join(d, '*.so')) + glob.glob(os.path.join(os.path.dirname(lib_path), '*.so')):
        if os.path.islink(link) and os.path.realpath(link) == real:
            candidates.append(link)
    headers = []
    for link in candidates:
        try:
            owner = subprocess.run(['dpkg', '-S', link], capture_output=True, text=True,
                                   check=False).stdout.split(':')[0].strip()
            if not owner:
                continue
            files = subprocess.run(['dpkg', '-L', owner], capture_output=True, text=True,
                                   check=False).stdout.split()
        except OSError:
            return []
        headers += [f for f in files if f.endswith('.h') and os.path.isfile(f)]
    return sorted(set(headers))


_CALL = re.compile(r'\b([A-Za-z_]\w*)\s*\(')


def _scan_headers(names, dirs):
    """Headers under DIRS that mention any of NAMES as name(: the fallback search."""
    names = set(names)
    found = {}
    for d in dirs:
        for root, _, files in os.walk(d):
            for fn in files:
                if not fn.endswith('.h'):
                    continue
                path = os.path.join(root, fn)
                try:
                    with open(path, errors='replace') as f:
                        text = f.read()
                except OSError:
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


def find_headers(lib_path, export_names, include_dirs=INCLUDE_DIRS):
    return _dpkg_headers(lib_path) or _scan_headers(export_names, include_dirs)


def _tu_source(headers):
    lines = [f'#include <{h}>' for h in PRELUDE]
    lines += [f'#include "{os.path.abspath(h)}"' for h in headers]
    return '\n'.join(lines) + '\n'


def _parse(index, headers, extra_args):
    src = _tu_source(headers)
    opts = (ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES
            | ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
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


def parse_headers(headers, extra_args=(), drop_broken=True, wanted=None):
    """Parses HEADERS as one translation unit.  A header that does not compile (one
    that #errors, or needs another first) is dropped and reported, as long as others
    remain.  Only names in WANTED (all, if None) get a Prototype.
    Returns (prototypes by name, macro names, usable headers, notes, and name ->
    'file:line' of every function declared in HEADERS themselves)."""
    extra_args = list(extra_args)
    index = ci.Index.create()
    for h in headers:
        if not os.path.isfile(h):
            raise HeaderProblem(f'{h}: no such header')
    usable = [os.path.abspath(h) for h in headers]
    notes = []
    tu, errors = _parse(index, usable, extra_args)
    while errors and drop_broken and len(usable) > 1:
        tops = {os.path.realpath(h): h for h in usable}
        bad = _culprit(tu, errors[0], tops)
        if bad is None:
            break
        notes.append(f'header {tops[bad]} skipped: {_where(errors[0])}')
        usable.remove(tops[bad])
        tu, errors = _parse(index, usable, extra_args)
    if errors:
        raise HeaderProblem(_where(errors[0]))
    protos, macros, declared = _prototypes(tu, wanted, set(os.path.realpath(h) for h in usable))
    return protos, macros, usable, notes, declared


_NORETURN = re.compile(r'noreturn', re.I)


def _source_text(extent):
    f = extent.start.file
    if f is None or extent.end.file is None or extent.end.file.name != f.name:
        return ''
    try:
        with open(f.name, 'rb') as fh:
            fh.seek(extent.start.offset)
            return fh.read(max(0, extent.end.offset - extent.start.offset)).decode('utf-8', 'replace')
    except OSError:
        return ''


def _is_noreturn(c):
    """__attribute__((noreturn)) shows in the type; _Noreturn only as an attribute child,
    and behind a macro (OpenSSL's `ossl_noreturn void OPENSSL_die(...)`) the cursor has
    no tokens: read the attribute's source text then."""
    if _NORETURN.search(c.type.spelling):
        return True
    if any(_NORETURN.search(t.spelling) for t in c.get_tokens()):
        return True
    return any(ch.kind == ci.CursorKind.UNEXPOSED_ATTR and _NORETURN.search(_source_text(ch.extent))
               for ch in c.get_children())


_KINDS = {
    'signed': {'BOOL', 'SHORT', 'INT', 'LONG', 'LONGLONG', 'ENUM', 'SCHAR'},
    'unsigned': {'UCHAR', 'USHORT', 'UINT', 'ULONG', 'ULONGLONG'},
    'char': {'CHAR_S', 'CHAR_U'},
    'float': {'FLOAT', 'DOUBLE', 'LONGDOUBLE'},
    'pointer': {'POINTER', 'CONSTANTARRAY', 'INCOMPLETEARRAY', 'VARIABLEARRAY', 'BLOCKPOINTER'},
    'record': {'RECORD'},
}


def _kind(t):
    name = t.get_canonical().kind.name
    for kind, names in _KINDS.items():
        if name in names:
            return kind
    return 'other'


def _param(i, cur):
    t = cur.type
    canon = t.get_canonical()
    p = Param(name=cur.spelling or f'a{i}', type=t.spelling, kind=_kind(t))
    if canon.kind in (ci.TypeKind.POINTER, ci.TypeKind.CONSTANTARRAY,
                      ci.TypeKind.INCOMPLETEARRAY, ci.TypeKind.VARIABLEARRAY):
        pointee = canon.get_pointee() if canon.kind == ci.TypeKind.POINTER else canon.element_type
        p.pointer = True
        p.const_pointee = pointee.is_const_qualified()
        size = pointee.get_size()
        p.pointee_size = size if size > 0 and pointee.kind != ci.TypeKind.FUNCTIONPROTO else -1
        p.pointee_kind = _kind(pointee)
    else:
        size = canon.get_size()
        p.scalar_size = size if size > 0 else -1
    return p


def _problem_in(spelling):
    if '(unnamed' in spelling or '(anonymous' in spelling:
        return 'uses an anonymous struct/union/enum type that cannot be named outside it'
    return None


def _prototypes(tu, wanted, own_files):
    cursors, macros, declared, header_defined = {}, set(), {}, set()
    for c in tu.cursor.get_children():
        if c.kind == ci.CursorKind.MACRO_DEFINITION:
            macros.add(c.spelling)
        elif c.kind == ci.CursorKind.FUNCTION_DECL:
            name = c.spelling
            f = c.location.file
            is_def = c.is_definition() or c.storage_class == ci.StorageClass.STATIC
            if is_def:
                header_defined.add(name)  # static/inline in the header: no library call
            if f and name not in declared and os.path.realpath(f.name) in own_files:
                declared[name] = f'{os.path.basename(f.name)}:{c.location.line}'
            if wanted is not None and name not in wanted:
                continue
            if name not in cursors or is_def:  # the first declaration, unless defined
                cursors[name] = (c, is_def)
    for name in header_defined:
        declared.pop(name, None)
    return ({name: _prototype(c, is_def) for name, (c, is_def) in cursors.items()}, macros,
            declared)


def _prototype(c, is_def):
    f = c.location.file
    p = Prototype(name=c.spelling, result=c.result_type.spelling, params=[],
                  file=os.path.realpath(f.name) if f else '?', line=c.location.line)
    ftype = c.type.get_canonical()
    p.no_prototype = ftype.kind == ci.TypeKind.FUNCTIONNOPROTO
    p.inline_definition = is_def
    if not p.no_prototype:
        p.variadic = ftype.is_function_variadic()
        p.params = [_param(i, a) for i, a in enumerate(c.get_arguments(), 1)]
    p.noreturn = _is_noreturn(c)
    for s in [p.result] + [a.type for a in p.params]:
        p.problem = p.problem or _problem_in(s)
    return p
