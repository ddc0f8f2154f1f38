"""Unit tests of the generator's pure functions: -f patterns, the va_list twin search,
header helpers, pointer-length pairing, C string escaping, --defs parsing, micro-generator
composition."""
import os
import subprocess

import pytest

from generator import defs, elf, emit, headers, lengths, microgen, select
from generator.headers import Param, Prototype

STD = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'microgens')


# --- select.match_patterns ------------------------------------------------------------

@pytest.mark.parametrize('patterns, name, expected', [
    ([], 'anything', True),
    (['d*'], 'dgemm', True),
    (['d*'], 'sgemm', False),
    (['!d*'], 'sgemm', True),          # only exclusions: everything else is in
    (['!d*'], 'dgemm', False),
    (['!d*', '!s*'], 'cgemm', True),
    (['d*', '!dgemm'], 'daxpy', True),
    (['d*', '!dgemm'], 'dgemm', False),
    (['d*', '!dgemm'], 'sgemm', False),  # a positive pattern: unmatched names are out
    (['!d*', 'dgemm'], 'dgemm', True),   # the last match wins
    (['dgemm', '!d*'], 'dgemm', False),
    (['dgemm_?'], 'dgemm_x', True),
    (['[ds]gemm'], 'cgemm', False),
    (['DGEMM'], 'dgemm', False),         # case matters
])
def test_match_patterns(patterns, name, expected):
    assert select.match_patterns(name, patterns) is expected


# --- select._v_variant ------------------------------------------------------------------

def _p(name, *types, result='int', variadic=False, canon=None):
    canon = canon or {}
    return Prototype(name=name, result=result, file='x.h', line=1, variadic=variadic,
                     params=[Param(name=f'p{i}', type=t, canonical=canon.get(t, t))
                             for i, t in enumerate(types)], result_canonical=result)


def _exports(*names):
    return {n: elf.Export(n, 'func', i) for i, n in enumerate(names)}


def test_v_variant_inserts_one_v_anywhere():
    cases = {
        'printf': 'vprintf',
        'BIO_printf': 'BIO_vprintf',
        'ERR_add_error_data': 'ERR_add_error_vdata',
    }
    for name, twin in cases.items():
        proto = _p(name, 'const char *', variadic=True)
        protos = {name: proto, twin: _p(twin, 'const char *', 'va_list')}
        found = select._v_variant(name, proto, _exports(name, twin), protos)
        assert found is not None and found[0].name == twin and found[1] is protos[twin]


def test_v_variant_refuses_mismatches_and_says_why():
    proto = _p('log', 'int', 'const char *', variadic=True)
    exports = _exports('log', 'vlog')
    for twin, why in [
            (_p('vlog', 'const char *', 'va_list'), 'takes other parameters before its va_list'),
            (_p('vlog', 'int', 'const char *', 'int'), 'does not end with a va_list'),
            (_p('vlog', 'int', 'const char *', 'va_list', result='void'), 'returns another type'),
            (_p('vlog', 'int', 'const char *', variadic=True), 'is not a plain prototype')]:
        protos = {'log': proto, 'vlog': twin}
        assert select._v_variant('log', proto, exports, protos) is None
        assert select._no_v_variant('log', proto, exports, protos) == (
            f'variadic, and its va_list variant vlog {why}: nothing to forward the arguments through')
    # declared but not exported: no twin at all
    protos = {'log': proto, 'vlog': _p('vlog', 'int', 'const char *', 'va_list')}
    assert select._v_variant('log', proto, _exports('log'), protos) is None
    assert select._no_v_variant('log', proto, _exports('log'), protos) == \
        'variadic, and the library has no va_list variant to forward through'


def test_v_variant_compares_canonical_types():
    # 'size_t' in one header, 'unsigned long' in the other; a va_list under another name
    canon = {'size_t': 'unsigned long', 'my_args': 'struct __va_list_tag[1]'}
    proto = _p('put', 'size_t', variadic=True, canon=canon)
    twin = _p('vput', 'unsigned long', 'my_args', canon=canon)
    found = select._v_variant('put', proto, _exports('put', 'vput'), {'put': proto, 'vput': twin})
    assert found is not None and found[0].name == 'vput'


# --- headers helpers ------------------------------------------------------------------

def test_problem_in():
    why = 'uses an anonymous struct/union/enum type that cannot be named outside it'
    assert headers._problem_in('struct (unnamed struct at x.h:3:1)') == why
    assert headers._problem_in('enum (anonymous enum at x.h:3:1) *') == why
    assert headers._problem_in('struct named *') is None
    assert headers._problem_in('int (*)(int)') is None


@pytest.mark.parametrize('spelling, expected', [
    ('const int', 'int'), ('volatile const struct s', 'struct s'), ('char *const', 'char *'),
    ('const char *', 'const char *'), ('const char *const', 'const char *'),
    ('int *restrict', 'int *'), ('int', 'int')])
def test_unqualified(spelling, expected):
    assert headers._unqualified(spelling) == expected


def _parse(tmp_path, text, **kw):
    h = tmp_path / 'u.h'
    h.write_text(text)
    return headers.parse_headers([str(h)], **kw)[0]


def test_header_corner_cases(tmp_path):
    P = _parse(tmp_path, '''
typedef int binop_fn(int, int);
binop_fn u_sub;                                  /* declared through a function typedef */
void u_local(struct u_loc { int a; } *p);        /* a struct that lives in the prototype */
void u_vla(int n, double (*p)[n]);               /* pointer to a VLA */
void u_vla2(int n, double p[n][4][n]);           /* variably modified inside */
void u_cvla(int n, const double v[n], volatile int w[n][n], int (*const f[n])(int));
void u_fp(void (*cb)(int noreturn_flag));        /* not noreturn */
typedef void die_fn(int) __attribute__((__noreturn__));
die_fn u_die;                                    /* noreturn through the typedef */
typedef const int cint;
cint u_cint(void);                               /* qualified result behind a typedef */
int u_restrict(int a[restrict 4], int b[const]);
''')
    assert [(a.name, a.type) for a in P['u_sub'].params] == [('dyl_a1', 'int'), ('dyl_a2', 'int')]
    assert P['u_local'].problem == ('uses struct u_loc, declared inside its own parameter list: '
                                    'the type exists only in that prototype')
    assert P['u_vla'].params[1].type == 'double (*)[]' and P['u_vla'].problem is None
    assert P['u_vla2'].problem.startswith('a parameter of variably modified type')
    assert [(a.type, a.const_pointee) for a in P['u_cvla'].params[1:]] == [
        ('const double *', True), ('volatile int (*)[]', False),
        ('__typeof__(int (*)(int)) const *', True)]
    assert not P['u_fp'].noreturn and P['u_die'].noreturn
    assert P['u_cint'].result == '__typeof__((u_cint)())'
    assert [a.type for a in P['u_restrict'].params] == ['int[4]', 'int[]']


def test_header_rename_by_macro_is_reported_for_wanted_names(tmp_path):
    text = '#define u_open u_open64\nint u_open(const char *path);\n'
    P = _parse(tmp_path, text, wanted={'u_open', 'u_open64'})
    assert P['u_open64'].params[0].name == 'path' and P['u_open64'].problem is None
    assert P['u_open'].problem == ('no prototype of its own: the headers #define u_open u_open64, '
                                   'so programs built with them call u_open64')
    assert 'u_open' not in _parse(tmp_path, text, wanted={'u_open64'})


# --- lengths.pairs ------------------------------------------------------------------------

def _pairs(protos):
    """{function: ['pointer/length', ...]} as lengths.pairs finds them"""
    return {name: [f'{p.params[i].name}/{p.params[j].name}' for i, j in lengths.pairs(p.params).items()]
            for name, p in protos.items()}


def test_lengths_on_real_headers():
    evp = headers.parse_headers(['/usr/include/openssl/evp.h'], wanted={
        'EVP_EncryptUpdate', 'EVP_DecryptUpdate', 'EVP_DigestUpdate', 'EVP_DigestSignUpdate',
        'EVP_EncryptFinal_ex'})[0]
    assert _pairs(evp) == {'EVP_EncryptUpdate': ['in/inl'], 'EVP_DecryptUpdate': ['in/inl'],
                           'EVP_DigestUpdate': ['d/cnt'],
                           'EVP_DigestSignUpdate': [],      # dsize: no rule says d's size
                           'EVP_EncryptFinal_ex': []}       # (out, int *outl): no length by value
    jpeg = headers.parse_headers(['/usr/include/jpeglib.h'], wanted={
        'jpeg_write_scanlines', 'jpeg_read_scanlines', 'jpeg_read_raw_data', 'jpeg_write_marker'})[0]
    assert _pairs(jpeg) == {'jpeg_write_scanlines': ['scanlines/num_lines'],
                            'jpeg_read_scanlines': ['scanlines/max_lines'],
                            'jpeg_read_raw_data': [],       # JSAMPIMAGE: pointers to pointer arrays
                            'jpeg_write_marker': []}        # dataptr/datalen: not its own name
    protos, _, _, _, declared = headers.parse_headers(
        [os.path.join(os.path.dirname(STD), 'microgens', 'profiles', 'blas', 'blas.h')])
    blas = {name: protos[name] for name in declared}
    # Fortran: every argument by pointer; the hidden CHARACTER lengths follow ldc and
    # incx, not the characters they measure
    assert 'dgemm_' in blas and not any(_pairs(blas).values())


def test_lengths_rule(tmp_path):
    P = _parse(tmp_path, '''
#include <stddef.h>
typedef enum { A, B } mode_t_;
void l_own(const unsigned char *key, int keylen, const char *data, size_t data_len, double *x, int nx,
           const char *in, long inl);
void l_word(const void *buf, size_t n, int flags);
void l_glibc(void *__dest, const void *__src, size_t __n);
void l_void_count(void *base, size_t nmemb);
void l_fread(void *ptr, size_t size, size_t nmemb);
void l_stride(const double *x, int n, int incx);
void l_rows(const char *const *lines, int n, char **buf, int num, unsigned char **rows, unsigned num_rows);
void l_rows_bytes(unsigned char **out, size_t outlen);
void l_not(const int *a, _Bool n, const int *b, mode_t_ len, const int *c, double len2, int *cnt, int size);
void l_upper(unsigned char *aiv, unsigned long long N, struct s *sp, int len);
''')
    assert {name: pairs for name, pairs in _pairs(P).items() if name.startswith('l_')} == {
        'l_own': ['key/keylen', 'data/data_len', 'x/nx', 'in/inl'],
        'l_word': ['buf/n'],
        'l_glibc': ['__src/__n'],                       # the dest: not adjacent
        'l_void_count': [],                             # nmemb elements of unknown size
        'l_fread': [],                                  # size, then nmemb: a product
        'l_stride': [],                                 # n elements incx apart
        'l_rows': ['lines/n', 'rows/num_rows'],         # buf/num: an out parameter's size
        'l_rows_bytes': [],                             # outlen: what *out points to
        'l_not': [],            # _Bool, enum, double; a pointer named as a length (cnt)
        'l_upper': [],          # N: scrypt's cost, not a length; a struct is no data
    }


# --- emit.c_str -------------------------------------------------------------------------

def test_c_str_escapes(tmp_path):
    assert emit.c_str(None) == 'NULL'
    assert emit.c_str('plain') == '"plain"'
    assert emit.c_str('a"b\\c\nd') == '"a\\"b\\\\c\\nd"'
    assert emit.c_str('cr\r') == '"cr\\015"'
    nasty = ['a"b', 'back\\slash\\', 'two\nlines', 'cr\rlf', 'bell\x07', 'tri??=graph??/',
             '???', '%d %s', 'utf-8 é', '\\"']
    src = tmp_path / 's.c'
    src.write_text('#include <stdio.h>\nint main(void)\n{\n'
                   + ''.join(f'\tfputs({emit.c_str(s)}, stdout);\n\tputchar(0);\n' for s in nasty)
                   + '\treturn 0;\n}\n')
    exe = tmp_path / 's'
    subprocess.run(['cc', '-std=gnu11', '-Wall', '-Werror', '-o', str(exe), str(src)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, check=True).stdout
    assert out.split(b'\0')[:-1] == [s.encode() for s in nasty]


# --- defs.parse -------------------------------------------------------------------------

def test_defs_forms_and_lines():
    text = ('// a comment\n/* another\n one */\n# and a shell-style one\n'
            'libblas*::dgemm_::prefix { work_size = 2 * *m; }\n'
            'libblas.so.3:daxpy_:postfix {\n'
            '\tconst char *s = "}{"; char c = \'}\';  /* } */ // }\n'
            '\toutput_size = 8;\n'
            '}\n'
            'lib :: f :: postfix\n{\n\n\tx;\n}\n'
            'lib::g::prefix {}\n')
    d = defs.parse(text, 'u.defs')
    assert [(x.library, x.function, x.location, x.line) for x in d] == [
        ('libblas*', 'dgemm_', 'prefix', 5), ('libblas.so.3', 'daxpy_', 'postfix', 7),
        ('lib', 'f', 'postfix', 13), ('lib', 'g', 'prefix', 15)]
    assert d[0].code == ' work_size = 2 * *m; '
    assert d[1].code.startswith('\tconst char *s = "}{";') and d[1].code.endswith('output_size = 8;')
    assert d[2].code == '\tx;' and d[3].code == ''
    assert d[0].file == os.path.abspath('u.defs')
    assert d[0].applies('libblas.so.3', '/usr/lib/x/libblas.so.3', 'dgemm_')
    assert d[1].applies(None, '/usr/lib/x/libblas.so.3', 'daxpy_')      # by file name
    assert not d[1].applies('libcblas.so.3', '/x/libcblas.so.3', 'daxpy_')


@pytest.mark.parametrize('text, message', [
    ('lib::f::middle { x; }', "u.defs:1: location 'middle' is not one of prefix, postfix"),
    ('\n\nlib::f::prefix { if (x) {\n y; }\n', 'u.defs:3: the block opened here is never closed'),
    ('lib::f::prefix { s = "abc\n"; }', 'u.defs:1: unterminated string constant'),
    ("lib::f::prefix {\n c = '}\n; }", 'u.defs:2: unterminated character constant'),
    ('lib::f::prefix { x; }\n\ngarbage here\n',
     "u.defs:3: expected library::function::location { code }, found 'garbage here'"),
    ('lib::f:prefix { x; }',
     "u.defs:1: expected library::function::location { code }, found 'lib::f:prefix { x; }'"),
    ('lib::f::prefix { x; }\n/* never closed', 'u.defs:2: unterminated comment'),
    ('lib::f::prefix { /* never closed }', 'u.defs:1: unterminated comment'),
])
def test_defs_errors_name_file_and_line(text, message):
    with pytest.raises(defs.DefsProblem) as e:
        defs.parse(text, 'u.defs')
    assert str(e.value) == message


def test_defs_load_missing_file(tmp_path):
    with pytest.raises(defs.DefsProblem, match=r'/nonexistent\.defs: No such file'):
        defs.load([str(tmp_path / 'nonexistent.defs')])


# --- microgen ---------------------------------------------------------------------------

def _mg(root, name, toml='', template='{% macro prefix(f, p) %}/* NAME */{% endmacro %}\n'):
    d = root / name
    d.mkdir(parents=True)
    (d / 'microgen.toml').write_text(toml)
    (d / 'template.c.j2').write_text(template.replace('NAME', name))
    return d


def test_compose_adds_prerequisites_and_orders_them():
    av = microgen.discover([STD])
    order = [mg.name for mg, _ in microgen.compose(av, [('std.time', {})])]
    assert order == ['std.funcptr', 'std.loader', 'std.caller', 'std.trace', 'std.time']
    order = [mg.name for mg, _ in microgen.compose(av, [('std.time', {}), ('std.args', {})])]
    assert order.index('std.trace') < order.index('std.args') < order.index('std.time')
    params = dict((mg.name, p) for mg, p in microgen.compose(av, [('std.time', {'clock': 'thread'})]))
    assert params['std.time'] == {'clock': 'thread'}


def test_compose_missing_prerequisite(tmp_path):
    _mg(tmp_path, 'x.a', 'requires = ["x.nope"]\n')
    av = microgen.discover([STD, str(tmp_path)])
    with pytest.raises(microgen.MicrogenProblem,
                       match=r'^micro-generator x\.nope \(required by x\.a\) not found; known: '):
        microgen.compose(av, [('x.a', {})])
    with pytest.raises(microgen.MicrogenProblem, match=r'^micro-generator x\.b \(requested\) not found'):
        microgen.compose(av, [('x.b', {})])


def test_compose_cycle_is_named(tmp_path):
    _mg(tmp_path, 'x.a', 'requires = ["std.trace"]\naround = ["x.b"]\n')
    _mg(tmp_path, 'x.b', 'requires = ["x.a"]\n')
    _mg(tmp_path, 'x.c', 'requires = ["std.trace"]\naround = ["x.d"]\n')
    _mg(tmp_path, 'x.d', 'requires = ["std.trace"]\naround = ["x.c"]\n')
    _mg(tmp_path, 'x.e', 'requires = ["x.f"]\n')
    _mg(tmp_path, 'x.f', 'requires = ["x.e"]\n')
    av = microgen.discover([STD, str(tmp_path)])
    microgen.compose(av, [('x.b', {})])   # 'around' its own prerequisite: consistent
    microgen.compose(av, [('x.c', {})])   # 'around' one that is not there: no constraint
    for requested, members in [([('x.c', {}), ('x.d', {})], {'x.c', 'x.d'}),
                               ([('x.e', {})], {'x.e', 'x.f'})]:
        with pytest.raises(microgen.MicrogenProblem) as e:
            microgen.compose(av, requested)
        msg = str(e.value)
        assert msg.startswith('micro-generators must enclose each other in a cycle: ')
        cycle = msg.split(': ', 1)[1].split(' -> ')
        assert cycle[0] == cycle[-1] and set(cycle) == members and len(cycle) == 3


def test_compose_parameter_errors():
    av = microgen.discover([STD])
    with pytest.raises(microgen.MicrogenProblem,
                       match=r"^std\.time has no parameter 'tick' \(its parameters: clock\)$"):
        microgen.compose(av, [('std.time', {'tick': '1'})])
    with pytest.raises(microgen.MicrogenProblem,
                       match=r'^std\.time:clock=sundial: choose one of auto, monotonic, thread$'):
        microgen.compose(av, [('std.time', {'clock': 'sundial'})])
    with pytest.raises(microgen.MicrogenProblem, match=r"^std\.trace has no parameter 'x' \(its parameters: none\)$"):
        microgen.compose(av, [('std.trace', {'x': '1'})])
    assert microgen.parse_spec('std.time:clock=thread, x = 1') == ('std.time', {'clock': 'thread', 'x': '1'})
    with pytest.raises(microgen.MicrogenProblem, match='parameters are key=value'):
        microgen.parse_spec('std.time:clock')


def test_metadata_errors(tmp_path):
    _mg(tmp_path / 'a', 'x.bad', 'colour = "red"\n')
    with pytest.raises(microgen.MicrogenProblem, match=r'microgen\.toml: unknown key\(s\) colour'):
        microgen.discover([str(tmp_path / 'a')])
    _mg(tmp_path / 'b', 'x.nodefault', '[params.n]\nhelp = "x"\n')
    with pytest.raises(microgen.MicrogenProblem, match=r'params\.n needs a default'):
        microgen.discover([str(tmp_path / 'b')])
    with pytest.raises(microgen.MicrogenProblem, match='no such micro-generator directory'):
        microgen.discover([str(tmp_path / 'nowhere')])


def test_user_directory_replaces_a_std_microgen(tmp_path):
    mine = _mg(tmp_path, 'std.time', 'requires = ["std.trace"]\nsummary = "mine"\n',
               '{% macro prefix(f, p) %}/* my clock */{% endmacro %}\n')
    av = microgen.discover([STD, str(tmp_path)])
    assert av['std.time'].folder == str(mine) and av['std.time'].summary == 'mine'
    assert av['std.trace'].folder == os.path.join(STD, 'std.trace')
    text = _render_one(av, [('std.time', {})])
    assert '/* my clock */' in text and 'dyl_time_start(' not in text


def _render_one(av, requested, compact=None, **kw):
    """The wrapper text of `int f(int x)` with the micro-generators REQUESTED (COMPACT:
    True/False forces the Renderer's choice of dyl_wcall.h's steps)."""
    gens = microgen.compose(av, requested)
    proto = Prototype(name='f', result='int', file='/x/f.h', line=3,
                      params=[Param(name='x', type='int', kind='signed', canonical='int')])
    lib = elf.Library(path='/x/libf.so', soname='libf.so', exports={'f': elf.Export('f', 'func', 16)})
    choice = select.Choice(name='f', lib=lib, export=lib.exports['f'], proto=proto)
    view = emit.function_view(choice, emit.LibView('dyl_lib_0', 'libf.so', '/x/libf.so'), set(), [],
                              {mg.name for mg, _ in gens})
    r = emit.Renderer(gens)
    if compact is not None:
        r.compact = compact
    return r.wrapper(view)


def test_prefix_outermost_first_postfix_reversed():
    av = microgen.discover([STD])
    text = _render_one(av, [('std.time', {}), ('std.trace', {})], compact=False)
    body = text[text.index('DYL_EXPORT'):]
    call = body.index('dyl_result = dyl_fn(x);')
    prefix, postfix = body[:call], body[call:]
    assert prefix.index('/* std.loader */') < prefix.index('/* std.trace */') < prefix.index('/* std.time */')
    assert postfix.index('/* std.time */') < postfix.index('/* std.trace */')
    # the clock starts after the trace row is opened and stops before it is closed
    assert prefix.index('dyl_enter(') < prefix.index('dyl_time_start(')
    assert postfix.index('dyl_time_stop(') < postfix.index('dyl_leave(')


def test_compact_steps():
    """By default (std.loader, std.trace, std.time) a wrapper calls dyl_wcall.h's shared
    steps around the original: one call before it and one after, nothing else of theirs
    in its body; what another micro-generator adds stays between dyl_wopen (the trace
    row opened) and dyl_wstart (the clock started), and its postfix between dyl_wstop
    and dyl_wclose."""
    av = microgen.discover([STD])
    text = _render_one(av, [('std.time', {}), ('std.trace', {})])
    body = text[text.index('DYL_EXPORT'):]
    assert body.index('dyl_wbegin(&dyl_call, &dyl_ws') < body.index('dyl_result = dyl_fn(x);') \
        < body.index('dyl_wend(&dyl_call, &dyl_err);') < body.index('return dyl_result;')
    for gone in ('dyl_enter(', 'dyl_leave(', 'dyl_time_start(', 'dyl_time_stop(', 'dyl_load(',
                 'errno', '/* std.'):
        assert gone not in body.replace('dyl_err', ''), gone
    assert 'static const struct dyl_wsym dyl_ws = { &dyl_lib_0, "f", NULL,\n' \
        '\t\t(void **)&dyl_real_f, (const void *)&f, &dyl_func_f };' in body
    text = _render_one(av, [('std.time', {}), ('std.trace', {}), ('std.regions', {})])
    body = text[text.index('DYL_EXPORT'):]
    order = ['dyl_wopen(', 'if (dyl_unlikely(dyl_call.func == NULL)) {\n\t\tint dyl_r = dyl_fn(x);\n'
             '\t\treturn dyl_r;\n\t}', '/* std.regions', 'dyl_wstart(', 'dyl_result = dyl_fn(x);',
             'dyl_wstop(', 'dyl_wclose(', 'return dyl_result;']
    assert [body.index(x) for x in order] == sorted(body.index(x) for x in order)
    assert 'dyl_wbegin(' not in body and 'dyl_wend(' not in body


def test_compose_replaces_the_caller(tmp_path):
    """A micro-generator that declares 'replaces' takes the replaced one's place: what
    requires std.caller (std.trace) is enclosed by it, and std.caller is left out."""
    _mg(tmp_path, 'x.call', 'requires = ["std.loader"]\nreplaces = ["std.caller"]\n',
        '{% macro callee(f, p) %}other_fn{% endmacro %}\n')
    _mg(tmp_path, 'x.call2', 'requires = ["std.loader"]\nreplaces = ["std.caller"]\n')
    av = microgen.discover([STD, str(tmp_path)])
    order = [mg.name for mg, _ in microgen.compose(av, [('std.time', {}), ('x.call', {})])]
    assert order == ['std.funcptr', 'std.loader', 'x.call', 'std.trace', 'std.time']
    assert 'other_fn(x)' in _render_one(av, [('std.time', {}), ('x.call', {})])
    with pytest.raises(microgen.MicrogenProblem,
                       match=r'^x\.call and x\.call2 both replace std\.caller: use one of them$'):
        microgen.compose(av, [('x.call', {}), ('x.call2', {})])


def test_compose_one_value_per_parameter_and_required_ones():
    av = microgen.discover([STD])
    with pytest.raises(microgen.MicrogenProblem,
                       match=r'^std\.redirect:lib is given twice \(a\.so and b\.so\): one value per parameter$'):
        microgen.compose(av, [('std.redirect', {'lib': 'a.so'}), ('std.redirect', {'lib': 'b.so'})])
    microgen.compose(av, [('std.redirect', {'lib': 'a.so'}), ('std.redirect', {'lib': 'a.so'})])
    with pytest.raises(microgen.MicrogenProblem, match=r'^std\.redirect needs lib= \(-g std\.redirect:lib=\.\.\.\): '):
        microgen.compose(av, [('std.redirect', {})])


@pytest.mark.parametrize('lib', ['libc.so.6', 'libcrypto.so.3'])
def test_elf_fast_symbols_as_pyelftools(lib, monkeypatch):
    """elf.read_library's struct reading of .dynsym (64-bit little-endian) gives what
    pyelftools' symbol objects give (the path other files take): every export, its kind,
    address, version, hidden versions (libc's memcpy@GLIBC_2.2.5) and aliases."""
    import struct
    path = elf.find_library(lib)
    fast = elf.read_library(path)
    monkeypatch.setattr(elf, '_SYM64', struct.Struct('<IBBHQ'))   # another size: pyelftools
    slow = elf.read_library(path)
    assert fast == slow
    assert len(fast.exports) > 1000


def _views(gens, n):
    """Function views of `int fI(int x)`, I < N, for the micro-generators GENS."""
    exports = {f'f{i}': elf.Export(f'f{i}', 'func', 16 * i) for i in range(n)}
    lib = elf.Library(path='/x/libf.so', soname='libf.so', exports=exports)
    out = []
    for i in range(n):
        proto = Prototype(name=f'f{i}', result='int', file='/x/f.h', line=i + 1,
                          params=[Param(name='x', type='int', kind='signed', canonical='int')])
        choice = select.Choice(name=f'f{i}', lib=lib, export=exports[f'f{i}'], proto=proto)
        out.append(emit.function_view(choice, emit.LibView('dyl_lib_0', 'libf.so', '/x/libf.so'),
                                      set(), [], {mg.name for mg, _ in gens}))
    return out


def test_wrappers_rendered_by_two_processes_as_by_one(tmp_path, monkeypatch):
    """Renderer.wrappers with jobs=2 (half the functions in a forked child): the same
    texts in the same order; a template's error met in the child's half is raised."""
    monkeypatch.setattr(emit, 'PARALLEL_FROM', 4)
    av = microgen.discover([STD])
    gens = microgen.compose(av, [('std.time', {}), ('std.trace', {})])
    fns = _views(gens, 9)
    one = emit.Renderer(gens).wrappers(fns, jobs=1)
    assert [t[t.index('DYL_EXPORT'):].split('(')[1] for t in one] == [f'f{i})' for i in range(9)]
    assert emit.Renderer(gens).wrappers(_views(gens, 9), jobs=2) == one
    _mg(tmp_path, 'x.bad', 'requires = ["std.trace"]\n',
        "{% macro prefix(f, p) %}{{ f.nothing if f.name == 'f8' else '' }}{% endmacro %}\n")
    av = microgen.discover([STD, str(tmp_path)])
    gens = microgen.compose(av, [('x.bad', {})])
    with pytest.raises(microgen.MicrogenProblem, match=r'x\.bad.*prefix'):
        emit.Renderer(gens).wrappers(_views(gens, 9), jobs=2)


def test_plain_view_types_and_where_it_is_refused():
    """A wrapper declared in C's own types for a unit without the library's headers: a
    pointer to a struct is void *, an enum its integer type, a pointer to a scalar keeps
    it; none for a struct by value, nor for a function of the C library's own headers
    (wrap.h's stdio.h would declare fopen with FILE *)."""
    def view(file, result_plain='void *'):
        proto = Prototype(name='f', result='struct s *', file=file, line=3, result_plain=result_plain,
                          params=[Param(name='p', type='struct s *', kind='pointer', pointer=True,
                                        canonical='struct s *', plain='void *'),
                                  Param(name='c', type='enum e', kind='signed', canonical='enum e',
                                        plain='unsigned int'),
                                  Param(name='n', type='const int *', kind='pointer', pointer=True,
                                        const_pointee=True, canonical='const int *',
                                        plain='const int *')])
        lib = elf.Library(path='/x/libf.so', soname='libf.so', exports={'f': elf.Export('f', 'func', 16)})
        choice = select.Choice(name='f', lib=lib, export=lib.exports['f'], proto=proto)
        return emit.function_view(choice, emit.LibView('dyl_lib_0', 'libf.so', '/x/libf.so'),
                                  set(), [], {'std.trace'})
    v = emit.plain_view(view('/usr/include/openssl/f.h'))
    assert [a.type for a in v.params] == ['void *', 'unsigned int', 'const int *'] and v.result == 'void *'
    assert v.fn_typedef == 'typedef void * (*dyl_f_fn)(void *, unsigned int, const int *);'
    assert emit.plain_view(view('/usr/include/openssl/f.h', result_plain='')) is None
    assert emit.plain_view(view('/usr/include/stdio.h')) is None
    assert emit.plain_view(view('/usr/include/x86_64-linux-gnu/bits/f.h')) is None


def test_fortran_style_names_and_parameters():
    """emit.fortran_style: a gfortran name and every parameter a pointer but trailing
    hidden string lengths; its numbers get DYL_RA_SCALAR (std.regions README)."""
    from types import SimpleNamespace as P
    ptr, val = P(pointer=True), P(pointer=False)
    assert emit.fortran_style('dgetrf_', [ptr] * 6)
    assert emit.fortran_style('dgemm_', [ptr] * 13 + [val, val])   # hidden lengths
    assert not emit.fortran_style('take', [ptr])                    # a C name
    assert not emit.fortran_style('Foo_', [ptr])
    assert not emit.fortran_style('f_', [val, ptr])                 # a value first
    assert not emit.fortran_style('f_', [])
    assert not emit.fortran_style('f_', [val])
    a = P(name='info', const_pointee=False, pointee_kind='signed', inner_const=False,
          length=None, by_reference=True)
    assert emit.region_arg(a, 'b') == '{ (const void *)info, 0 | DYL_RA_SCALAR, sizeof(*info) }'
