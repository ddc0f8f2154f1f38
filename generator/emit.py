"""Rendering a wrapper: wrap.c from the skeleton and the micro-generators' macros, and
the Makefile that builds it."""
import dataclasses
import os
import re
from dataclasses import dataclass, field

import jinja2

from . import halves
from . import lengths
from . import microgen as mgmod
from . import text as textmod

HERE = os.path.dirname(os.path.abspath(__file__))
SYSTEM_INCLUDES = ['dlfcn.h', 'errno.h', 'pthread.h', 'stdarg.h', 'stdint.h', 'stdio.h',
                   'stdlib.h', 'string.h', 'time.h']


def c_str(s):
    """S as a C string literal (None: NULL).  Control characters become octal escapes
    (a raw CR would end the literal) and '??' is broken up (no trigraph warning)."""
    if s is None:
        return 'NULL'
    out = s.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')
    out = re.sub(r'[\x00-\x1f\x7f]', lambda m: f'\\{ord(m.group()):03o}', out)
    # a path's bytes that are not UTF-8 (os.fsdecode made them U+DC80..U+DCFF): the bytes
    out = re.sub('[\udc80-\udcff]', lambda m: f'\\{ord(m.group()) - 0xdc00:03o}', out)
    return '"' + re.sub(r'(?<=\?)\?', r'\\?', out) + '"'


def comment(s):
    """S (a path, a command line: anything a user gave) as text inside a C comment or a
    make comment: control characters and bytes that are not UTF-8 as \\xHH (a newline
    would end a make comment, and what follows would be make's code), '*/' broken (it
    would end a C comment), and never a backslash last (make would continue the comment
    on the next line)."""
    out = textmod.shown(str(s)).replace('*/', '*\\/')
    return out + ' ' if out.endswith('\\') else out


def rsp(args):
    """ARGS as a response file for cc @FILE (GCC's and clang's syntax): every character
    that is not plainly part of a word behind a backslash, so that a path reaches the
    compiler as one argument, whatever it holds (spaces, quotes, '$', newlines)."""
    return ''.join(re.sub(r'([^A-Za-z0-9_./,=+-])', r'\\\1', a) + '\n' for a in args)


def make_value(s):
    """S as the value of a make variable (VAR := S): '$' doubled, '#' escaped (it would
    start a comment).  The Makefile quotes it for the shell where it uses it (shq).  A
    newline cannot be written: ValueError."""
    if '\n' in s or '\r' in s or s.endswith('\\') or s != s.strip():
        raise ValueError(f'{s!r} cannot be a make value (a newline, a backslash last, or '
                         'spaces around it)')
    return s.replace('$', '$$').replace('#', '\\#')


_FMT = {'signed': ('%lld', '(long long)'), 'unsigned': ('%llu', '(unsigned long long)'),
        'float': ('%Lg', '(long double)'), 'pointer': ('%p', '(const void *)')}


def printf_format(a):
    return _FMT[a.kind][0] if a.kind in _FMT else ('%d' if a.kind == 'char' else
                                                   '{...}' if a.kind == 'record' else '?')


def printf_args(a):
    if a.kind in _FMT:
        return f', {_FMT[a.kind][1]}{a.name}'
    return f', (int){a.name}' if a.kind == 'char' else ''


def region_arg(a, bounded):
    """The struct dyl_rarg initializer of pointer parameter A (dyl_regions.h), as std.regions
    and std.diff pass their pointers to the runtime; BOUNDED: the C name of the value, in
    the main unit, that is DYL_RA_BOUNDED when a paired length bounds the buffer (their
    lengths=auto) and 0 when not (lengths=off): a change of lengths= compiles that unit
    alone."""
    flags = ['DYL_RA_CONST' if a.const_pointee else '0']
    if a.pointee_kind == 'pointer':
        flags.append('DYL_RA_FOLLOW')
    if a.inner_const:
        flags.append('DYL_RA_INNER_CONST')
    if a.pointee_kind == 'char':
        flags.append('DYL_RA_CHAR')
    bound = ''
    if a.length:
        flags.append(bounded)
        bound = f', DYL_RA_BYTES({a.length}, {a.elem})'
    elif a.by_reference:
        flags.append('DYL_RA_SCALAR')
        bound = f', sizeof(*{a.name})'
    return f'{{ (const void *){a.name}, {" | ".join(flags)}{bound} }}'


def fortran_style(name, params):
    """Is NAME a Fortran routine's C name (gfortran's: lower case and a trailing
    underscore), every parameter a pointer but for trailing hidden string lengths?  Its
    numbers are passed by reference, scalars as well as arrays: in a frame with no debug
    information, a pointer of one may count only its own element (stackframe.c)."""
    if not re.fullmatch(r'[a-z][a-z0-9_]*_', name) or not params:
        return False
    i = len(params)
    while i > 0 and not params[i - 1].pointer:
        i -= 1
    return i > 0 and all(p.pointer for p in params[:i])


@dataclass
class ParamView:
    name: str
    type: str        # the typedef naming its type
    kind: str
    pointer: bool
    const_pointee: bool
    pointee_size: int
    scalar_size: int
    spelling: str    # the type as the header spells it
    deref_format: str = None
    deref_value: str = None
    label: str = ''  # the name the header gives it (name may be a renamed dyl_aN)
    pointee_kind: str = None  # for a pointer: what it points to (kinds as above; 'pointer':
                              # an array of pointers such as char ** or JSAMPARRAY)
    inner_const: bool = False  # for a pointer to pointers: their targets are const
    length: str = None         # for a data pointer: the parameter that is its length
                               # (lengths.py), by the name it has in the wrapper
    length_label: str = ''     # and by the header's
    elem: str = '1'            # what one unit of that length is: sizeof(*p), 1 for void
    plain: str = ''            # its type in C's own types (headers.Param.plain), '' if none
    pointee_bytes: int = -1    # sizeof(*p), -1 if unknown
    by_reference: bool = False  # a number of a Fortran-style function: maybe a scalar
                                # passed by reference (fortran_style)


@dataclass
class FuncView:
    name: str
    target: str
    version: str
    lib: object
    result: str          # typedef of the result, or None for void
    result_spelling: str
    params: list
    variadic: bool
    call_args: str
    header: str
    notes: list
    defs: list
    active: set
    real: str = ''
    fn_type: str = ''
    func_var: str = ''
    forward: str = ''
    typedefs: list = field(default_factory=list)
    fn_typedef: str = ''
    result_plain: str = ''   # the result in C's own types ('void'), '' if none
    gen_notes: list = field(default_factory=list)   # those of notes from micro-generators
    compact: bool = False    # its shared steps are dyl_wcall.h's calls (Renderer.compact)
    # portable: its wrapper compiles without the library's headers (plain_view)

    @property
    def length_pairs(self):
        """The pointers bounded by a length (lengths.py), for --list: 'in/inl, x/n (8-byte
        elements), scanlines/num_lines (rows)'; '' when none."""
        def unit(a):
            if a.pointee_kind == 'pointer':
                return ' (rows)'
            return '' if a.elem == '1' or a.pointee_size == 1 else f' ({a.pointee_size}-byte elements)'
        return ', '.join(f'{a.label}/{a.length_label}{unit(a)}' for a in self.params if a.length)

    @property
    def struct_params(self):
        """The names of its pointers when every one points to a struct or union (a plan, a
        context: a handle whose buffers std.regions cannot see), else ''."""
        ptrs = [a for a in self.params if a.pointer]
        if not ptrs or any(a.pointee_kind != 'record' for a in ptrs):
            return ''
        return ','.join(a.label for a in ptrs)


@dataclass
class LibView:
    var: str
    soname: str
    path: str
    build_id: str = None   # the file's GNU build ID (hex), to know it again at run time


def _deref(a, p, names):
    """Format and value printing *p of a const pointer to a scalar (std.args).  A plain
    'const char *' is a C string (the runtime quotes at most 32 characters of it), unless
    a hidden Fortran length NAME_len follows it in NAMES: then it is one character."""
    if not (p.pointer and p.const_pointee) or p.pointee_kind not in ('signed', 'unsigned', 'float', 'char'):
        return
    if p.pointee_kind == 'char' and f'{p.name}_len' not in names:
        a.deref_format = '%s'
        a.deref_value = f'dyl_args_string({a.name}, (char[DYL_ARGS_STRING]){{0}}, DYL_ARGS_STRING)'
    elif p.pointee_kind == 'char':
        a.deref_format = "'%c'"
        a.deref_value = f'(*{a.name} >= 32 && *{a.name} < 127 ? *{a.name} : \'?\')'
    else:
        fmt, cast = _FMT[p.pointee_kind]
        a.deref_format, a.deref_value = fmt, f'{cast}*{a.name}'


def _plain(spelling):
    """Can SPELLING be written before a name as it is ('const char *' + 'name')?  Function
    pointers and arrays cannot: their name goes inside; they get a typedef instead."""
    return not any(c in spelling for c in '()[]')


def declare(type_, name):
    """'int *' + 'p' -> 'int *p'; 'int' + 'n' -> 'int n'."""
    return f'{type_}{name}' if type_.endswith('*') else f'{type_} {name}'


def function_view(choice, libview, macros, defs, active):
    proto = choice.proto
    name = choice.name
    params, typedefs = [], []
    names = {p.name for p in proto.params}
    for i, p in enumerate(proto.params, 1):
        pname = p.name
        if pname in macros or pname == name or pname.startswith('dyl_'):
            pname = f'dyl_a{i}'   # a macro of that name would rewrite the parameter
        if _plain(p.type):
            tname = p.type
        else:
            tname = f'dyl_{name}_a{i}'
            typedefs.append(f'typedef __typeof__({p.type}) {tname};')
        a = ParamView(pname, tname, p.kind, p.pointer, p.const_pointee, p.pointee_size,
                      p.scalar_size, p.type, label=p.name, pointee_kind=p.pointee_kind,
                      inner_const=p.inner_const, plain=getattr(p, 'plain', ''),
                      pointee_bytes=p.pointee_size)
        _deref(a, p, names)
        params.append(a)
    if fortran_style(name, params):
        for a in params:
            a.by_reference = a.pointee_kind in ('signed', 'unsigned', 'float')
    for i, j in lengths.pairs(proto.params).items():
        a = params[i]
        a.length, a.length_label = params[j].name, params[j].label
        a.elem = '1' if a.pointee_kind == 'void' else f'sizeof(*{a.name})'
    result = None
    if proto.result != 'void':
        result = proto.result if _plain(proto.result) else f'dyl_{name}_r'
        if result != proto.result:
            typedefs.append(f'typedef __typeof__({proto.result}) {result};')
    arg_types = [a.type for a in params]
    target, version = name, choice.export.version
    args = ', '.join(a.name for a in params)
    if choice.via is not None:
        vexp, vproto = choice.via
        target, version = vexp.name, vexp.version
        args = ', '.join([a.name for a in params] + ['dyl_ap'])
    f = FuncView(name=name, target=target, version=version, lib=libview, result=result,
                 result_spelling=proto.result, params=params, variadic=choice.via is not None,
                 call_args=args, header=f'{proto.file}:{proto.line}', notes=choice.notes,
                 defs=[d for d in defs if d.applies(choice.lib.soname, choice.lib.path, name)],
                 active=active)
    f.real = f'dyl_real_{name}'
    f.fn_type = f'dyl_{name}_fn'
    f.func_var = f'dyl_func_{name}'
    f.typedefs = typedefs
    f.fn_typedef = _fn_typedef(f, result, arg_types)
    f.result_plain = getattr(proto, 'result_plain', '')
    return f


def _fn_typedef(f, result, arg_types):
    if f.variadic:
        arg_types = arg_types + ['va_list']
    return f'typedef {result or "void"} (*{f.fn_type})({", ".join(arg_types) or "void"});'


def plain_view(f):
    """F as a wrapper in a unit without the library's headers declares it: every type in
    C's own types (headers.Param.plain: a pointer to a struct is a void *, an enum its
    integer type; the same registers and sizes in a call), a length's unit in bytes;
    None when F needs the headers (a struct by value, --defs code, a length of elements
    of unknown size)."""
    if f.defs or (f.result and not f.result_plain) or any(not a.plain for a in f.params):
        return None
    if _system_header(f.header.rpartition(':')[0]):
        return None   # (wrap.h's system headers may declare it too, in the header's types)
    params = []
    for a in f.params:
        b = dataclasses.replace(a, type=a.plain)
        if a.length and a.elem != '1' and b.type == 'void *':
            if a.pointee_bytes <= 0:
                return None
            b.elem = str(a.pointee_bytes)   # (sizeof(*p) of the header's type)
        params.append(b)
    g = dataclasses.replace(f, params=params, result=f.result and f.result_plain, typedefs=[])
    g.fn_typedef = _fn_typedef(g, g.result, [a.type for a in params])
    return g


def _expand(mg, point, macro, *args):
    """MACRO (micro-generator MG's POINT) called on ARGS, as text.  A user's template may
    raise anything: its error, named by the template, not a traceback of ours."""
    try:
        return str(macro(*args))
    except Exception as e:
        raise mgmod.MicrogenProblem(f'{mg.template}: {point}: {type(e).__name__}: {e}') from None


class Renderer:
    def __init__(self, gens):
        """GENS: [(Microgen, params)], outermost first."""
        self.env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True,
                                      keep_trailing_newline=True, undefined=jinja2.StrictUndefined,
                                      autoescape=False)
        self.env.filters.update(c_str=c_str, printf_format=printf_format, printf_args=printf_args,
                                region_arg=region_arg, comment=comment,
                                tab=lambda text: _indent(str(text)).lstrip('\t'))
        self.gens = []
        self.in_units = False   # rendering the units of a split wrapper (render)
        callee = []
        for mg, params in gens:
            try:
                try:
                    data = textmod.read_regular(mg.template)
                except (OSError, ValueError) as e:
                    raise mgmod.MicrogenProblem(textmod.problem(mg.template, e)) from None
                text = mgmod.utf8(data, mg.template)
                module = self.env.from_string(text).module
            except jinja2.TemplateSyntaxError as e:
                raise mgmod.MicrogenProblem(f'{mg.template}:{e.lineno}: {e.message}') from None
            except OSError as e:
                raise mgmod.MicrogenProblem(f'{mg.template}: {e.strerror}') from None
            except mgmod.MicrogenProblem:
                raise
            except Exception as e:   # a user's template runs at its top level too
                raise mgmod.MicrogenProblem(f'{mg.template}: {type(e).__name__}: {e}') from None
            macros = {pt: getattr(module, pt) for pt in mgmod.POINTS if hasattr(module, pt)}
            mg.points = tuple(macros)
            self.gens.append((mg, params, macros))
            if 'callee' in macros:
                callee.append(mg.name)
        self.compact = self._compact()
        if len(callee) != 1:
            raise mgmod.MicrogenProblem(
                'exactly one micro-generator must provide the call (callee); '
                + (f'several do: {", ".join(callee)} (one that calls something else than the '
                   'original declares replaces = ["std.caller"] in its microgen.toml)'
                   if callee else 'none does'))

    def _compact(self):
        """Can the wrappers call dyl_wcall.h's steps (less C a function, bench/wrapsize)?
        When ours std.loader and std.trace open the prefixes and std.time closes them, as
        by default: their prefixes and postfixes become those calls (f.compact), and what
        other micro-generators put between them stays as it is."""
        steps = [mg for mg, _, m in self.gens if 'prefix' in m or 'postfix' in m]
        names = [mg.name for mg in steps]
        return (len(steps) >= 3 and names[:2] == ['std.loader', 'std.trace']
                and names[-1] == 'std.time' and all(_ours(mg) for mg in steps[:2] + steps[-1:]))

    def _run(self, point, *args, mg_filter=None):
        out = []
        gens = self.gens if point != 'postfix' else list(reversed(self.gens))
        for mg, params, macros in gens:
            if point in macros:
                text = _expand(mg, point, macros[point], *args, params).strip('\n')
                if text.strip():
                    out.append(text)
        return out

    def notes(self, f):
        """The micro-generators' remarks on F (macro note), for --list and the comment
        above its wrapper."""
        out = []
        for mg, params, macros in self.gens:
            if 'note' in macros:
                text = ' '.join(_expand(mg, 'note', macros['note'], f, params).split())
                if text and text not in out:   # (std.regions and std.diff name the same lengths)
                    out.append(text)
        return out

    def callee(self, f):
        mg, p, m = next(g for g in self.gens if 'callee' in g[2])
        return _expand(mg, 'callee', m['callee'], f, p).strip()

    def _compact_body(self, f, call):
        """The statements of F's wrapper whose shared steps are dyl_wcall.h's calls: its
        descriptor, then dyl_wbegin and dyl_wend (nothing between std.trace and std.time)
        or dyl_wopen, the forward of a call not recorded, dyl_wstart, dyl_wstop and
        dyl_wclose around the other micro-generators' code."""
        va_start = [f'va_list dyl_ap;\nva_start(dyl_ap, {f.params[-1].name});'] if f.variadic else []
        va_end = ['va_end(dyl_ap);'] if f.variadic else []
        body = [f'static const struct dyl_wsym dyl_ws = {{ &{f.lib.var}, {c_str(f.target)}, '
                f'{c_str(f.version)},\n\t(void **)&{f.real}, (const void *)&{f.name}, &{f.func_var} }};',
                'struct dyl_call dyl_call;\nstruct dyl_werr dyl_err;'] + va_start
        if f.result:   # (declared first: a micro-generator's prefix may take its sizeof)
            body.insert(0, declare(f.result, 'dyl_result') + ';')
        prefix, postfix = self._run('prefix', f), self._run('postfix', f)
        result = 'dyl_result = ' if f.result else ''
        ret = ['return dyl_result;'] if f.result else []
        opened = f'{f.fn_type} dyl_fn = ({f.fn_type})dyl_w%s(&dyl_call, &dyl_ws, &dyl_err, __builtin_return_address(0));'
        if not prefix and not postfix:
            return body + [opened % 'begin', f'{result}{call};', 'dyl_wend(&dyl_call, &dyl_err);'] + va_end + ret
        if f.result:
            forward = f'{declare(f.result, "dyl_r")} = {call};\n' + ''.join(x + '\n' for x in va_end) + 'return dyl_r;'
        else:
            forward = f'{call};\n' + ''.join(x + '\n' for x in va_end) + 'return;'
        body += [opened % 'open', f'if (dyl_unlikely(dyl_call.func == NULL)) {{\n{_indent(forward)}\n}}']
        return (body + prefix + ['dyl_wstart(&dyl_call, &dyl_err);', f'{result}{call};',
                                 'dyl_wstop(&dyl_call, &dyl_err);'] + postfix
                + ['dyl_wclose(&dyl_call, &dyl_err);'] + va_end + ret)

    def wrapper(self, f):
        """The C text of one wrapped function, its typedefs and file-scope parts."""
        callee = self.callee(f)
        call = f'{callee}({f.call_args})'
        f.compact = self.compact
        if f.compact:
            return self._wrapper_text(f, self._compact_body(f, call))
        va_end = 'va_end(dyl_ap);\n' if f.variadic else ''
        # errno through its address, taken once: at -O0 each errno is a call of
        # __errno_location (four a call, and their code in each of 5,000 wrappers)
        if f.result:
            f.forward = f'*dyl_errp = dyl_errno;\n{declare(f.result, "dyl_r")} = {call};\n{va_end}return dyl_r;'
        else:
            f.forward = f'*dyl_errp = dyl_errno;\n{call};\n{va_end}return;'
        body = []
        if f.result:
            body.append(declare(f.result, 'dyl_result') + ';')
        body.append('int *dyl_errp = &errno, dyl_errno = *dyl_errp;')
        if f.variadic:
            body.append(f'va_list dyl_ap;\nva_start(dyl_ap, {f.params[-1].name});')
        body += self._run('prefix', f)
        body.append('*dyl_errp = dyl_errno;')
        body.append(f'{"dyl_result = " if f.result else ""}{call};')
        body.append('dyl_errno = *dyl_errp;')
        body += self._run('postfix', f)
        if f.variadic:
            body.append('va_end(dyl_ap);')
        body.append('*dyl_errp = dyl_errno;')
        if f.result:
            body.append('return dyl_result;')
        return self._wrapper_text(f, body)

    def _wrapper_text(self, f, body):
        """F's wrapper around the statements BODY, with its typedefs and file parts."""
        params = ', '.join(declare(a.type, a.name) for a in f.params)
        if f.variadic:
            params += ', ...'
        head = f'DYL_EXPORT {declare(f.result or "void", "(" + f.name + ")")}({params or "void"})'
        indented = '\n'.join(_indent(chunk) for chunk in body)
        parts = [f'/* {f.name}: {comment(f.header)} */']   # (a path: comment())
        notes = f.notes if not self.in_units else [n for n in f.notes if n not in f.gen_notes]
        if notes:   # (in units, not the micro-generators': they may follow an option)
            parts.append('/* ' + comment('; '.join(notes)) + ' */')
        parts += f.typedefs + [f.fn_typedef]
        parts += self._run('function', f)
        parts.append(f'#ifdef {f.name}\n#undef {f.name}\n#endif')
        parts.append(f'{head}\n{{\n{indented}\n}}')
        return '\n'.join(parts)

    def wrappers(self, fns, jobs=1):
        """[self.wrapper(f) for f in FNS], the second half in a forked child when JOBS > 1
        and there are PARALLEL_FROM functions or more (libcrypto's 5,335: ~1 s of Jinja
        macros; the child's texts come back pickled through a pipe).  The same texts, in
        the same order, as one process renders them; a template's error in the child is
        raised here, as in one process."""
        return halves.map_in_two(self.wrapper, fns, jobs, PARALLEL_FROM)

    def render(self, w, jobs=1):
        """The wrapper's C files: {name: text}.  One wrap.c for SPLIT_ABOVE functions or
        fewer, or when a micro-generator in use is not written for units (microgen.toml
        split = true); else wrap.h (what every unit shares: the headers, the file parts),
        wrap.c (the main unit: constructor, destructor, end parts) and wrap_NNN.c, UNIT_SIZE
        wrappers each in the order of w['functions'] (a change to one function's code
        changes one unit's text: the others are not rebuilt)."""
        skeleton = self.env.from_string(open(os.path.join(HERE, 'templates', 'wrap.c.j2')).read())
        fns = w['functions']
        split = (len(fns) > SPLIT_ABOVE and all(mg.split for mg, _, _ in self.gens))
        # A unit whose every wrapper can be declared in C's own types (plain_view) does
        # not include the library's headers (libcrypto's: 0.2 s of 1.2 a unit): only with
        # our micro-generators, which use no type of the library's in file parts
        self.in_units = split
        views, plain_units = list(fns), set()
        if split and all(_ours(mg) for mg, _, _ in self.gens):
            for k, i in enumerate(range(0, len(fns), UNIT_SIZE)):
                pv = [plain_view(f) for f in fns[i:i + UNIT_SIZE]]
                if all(pv):
                    views[i:i + UNIT_SIZE] = pv
                    plain_units.add(k)
        functions = self.wrappers(views, jobs)
        file_parts = self._run('file', w)
        if self.compact:   # (after std.loader's and std.time's parts: it calls them)
            file_parts.append('/* the steps every wrapper shares */\n#include "dyl_wcall.h"')
        common = dict(w=w, system_includes=SYSTEM_INCLUDES, file_parts=file_parts,
                      init_parts=[_indent(x) for x in self._run('init', w)],
                      fini_parts=[_indent(x) for x in self._run('fini', w)],
                      end_parts=self._run('end', w), config_parts=self._run('config', w))
        if not split:
            text = skeleton.render(part='whole', name='wrap.c', functions=functions, **common)
            return {'wrap.c': _resolve_line_resets(text, 'wrap.c')}
        chunks = [functions[i:i + UNIT_SIZE] for i in range(0, len(functions), UNIT_SIZE)]
        files = {'wrap.h': skeleton.render(part='header', name='wrap.h', n_units=len(chunks), **common)}
        typedefs = ['\n'.join(f.typedefs + [f.fn_typedef]) for f in fns]
        files['wrap.c'] = _resolve_line_resets(skeleton.render(
            part='main', name='wrap.c', n_units=len(chunks), typedefs=typedefs, **common), 'wrap.c')
        for i, chunk in enumerate(chunks, 1):
            name = unit_name(i)
            files[name] = _resolve_line_resets(skeleton.render(
                part='functions', name=name, functions=chunk, plain=i - 1 in plain_units,
                **common), name)
        return files


STD_MICROGENS = os.path.join(os.path.dirname(HERE), 'microgens')
_SYSTEM_DIRS = ('/usr/include/x86_64-linux-gnu/', '/usr/include/')
_SYSTEM_SUBDIRS = {'bits', 'sys', 'gnu', 'asm', 'asm-generic', 'linux', 'x86_64-linux-gnu'}


def _system_header(path):
    """Is PATH one of the C library's own headers (/usr/include/stdio.h, sys/, bits/),
    which the system headers wrap.h includes may declare in their own types?  A header
    in a folder of its own (openssl/) is not."""
    for d in _SYSTEM_DIRS:
        if path.startswith(d):
            rel = path[len(d):]
            return '/' not in rel or rel.split('/')[0] in _SYSTEM_SUBDIRS
    return False


def _ours(mg):
    """Is MG one of the micro-generators in microgens/ (not a user's)?"""
    return os.path.dirname(os.path.dirname(os.path.abspath(mg.template))) == STD_MICROGENS


# A wrapper of more than SPLIT_ABOVE functions is split: its main unit and the units of
# wrappers compile in parallel, at -O0 (generator/cli.py).  UNIT_SIZE wrappers a unit:
# each unit parses the library's headers again (libcrypto's: ~0.3 s of CPU; ~0.1 s in
# a unit without them, render's plain units), 512 wrappers cost ~0.7 s more at -O0 -g.
# libcrypto in 11 units of 512: 22.5 CPU s of make, 27.9 in 21 units of 256 (with the
# headers in each); one unit rebuilt (a --defs change) ~0.4 s more (bench/build).
SPLIT_ABOVE = 256
UNIT_SIZE = 512
PARALLEL_FROM = 2048   # functions: rendered by two processes (Renderer.wrappers)


def unit_name(i):
    return f'wrap_{i:03d}.c'


def _indent(text):
    return '\n'.join('\t' + line if line.strip() and not line.startswith('#') else line
                     for line in text.split('\n'))


def _resolve_line_resets(text, c_name):
    """'#line DYL_RESET' (after user code from --defs) -> the real line in wrap.c."""
    lines = text.split('\n')
    for i, line in enumerate(lines):
        if line.strip() == '#line DYL_RESET':
            lines[i] = f'#line {i + 2} "{c_name}"'
    return '\n'.join(lines)


def makefile(w):
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters.update(comment=comment, make_value=make_value)
    return env.from_string(open(os.path.join(HERE, 'templates', 'Makefile.j2')).read()).render(w=w)
