"""The generator against tests/generator/nasty/: a header of every hard case a wrapper generator
meets (variadic functions, callbacks, structs by value, arrays, anonymous types, macro
and __asm__ renames, aliases, an IFUNC, symbol versions, noreturn, K&R, data ...).

Each exported function must come out of `--list` with the verdict and reason below; the
wrapper must compile warning-free (-Wall -Werror); the app must print the same with and
without it; and the trace must count every wrapped call exactly once."""
import collections
import os
import re

import pytest

from dyltest import ROOT, Trace, dyliberator, run, run_both

NASTY = os.path.join(ROOT, 'tests', 'generator', 'nasty')
HEADER = os.path.join(NASTY, 'nasty.h')

# name -> text the --list line must contain ('' = just "wrap NAME nasty.h:LINE")
WRAPPED = {
    'nasty_add': 'same address as nasty_add_alias, nasty_plus',
    'nasty_plus': 'same address as nasty_add, nasty_add_alias',
    'nasty_inc': '', 'nasty_redecl': '', 'nasty_late_proto': '',
    'nasty_log': 'variadic: forwarded through nasty_vlog',
    'nasty_err_data': 'variadic: forwarded through nasty_err_vdata',
    'nasty_vlog': '', 'nasty_err_vdata': '', 'nasty_vprint': '',
    'nasty_apply': '', 'nasty_foreach': '', 'nasty_get_op': '', 'nasty_get_cb': '',
    'nasty_call_with': '', 'nasty_fn_param': '',
    'nasty_pt_add': '', 'nasty_big_scale': '', 'nasty_u_flip': '', 'nasty_flags_flip': '',
    'nasty_range': '', 'nasty_divmod': '', 'nasty_level': '', 'nasty_pt_norm1': '',
    'nasty_sum4': '', 'nasty_dot3': '', 'nasty_trace3': '', 'nasty_rowsum': '',
    'nasty_vla_sum': '', 'nasty_argv_len': '',
    'nasty_copy': '', 'nasty_peek': '', 'nasty_is_even': '', 'nasty_next_color': '',
    'nasty_ldmul': '', 'nasty_cmul': '', 'nasty_conjf': '', 'nasty_mul128': '',
    'nasty_atomic_inc': '', 'nasty_const_result': '',
    'nasty_unnamed': '', 'nasty_self': '', 'nasty_scale': '', 'nasty_clamp': '',
    'nasty_twice': '', 'nasty_set_noreturn_handler': '',
    'nasty_open_v2': '',
    'nasty_ver': 'older versions not wrapped: nasty_ver@NASTY_1',
    'nasty_ifunc_mul': 'IFUNC: resolved to the implementation chosen for this CPU',
}
NORETURN = 'never returns (noreturn): nothing to measure, and an open call would never close'
DATA = 'data symbol, not a function'
SKIPPED = {
    'nasty_undeclared': 'no prototype in the headers (give the right --header)',
    'nasty_add_alias': 'no prototype in the headers, though a function at the same address '
                       'has one',
    'nasty_sum': 'variadic, and the library has no va_list variant to forward through',
    'nasty_print': 'variadic, and its va_list variant nasty_vprint takes other parameters '
                   'before its va_list: nothing to forward the arguments through',
    'nasty_vla_cube': 'a parameter of variably modified type (double[n][n][n]) that cannot be '
                      'named outside the prototype',
    'nasty_die': NORETURN, 'nasty_abort': NORETURN, 'nasty_fatal': NORETURN, 'nasty_bail': NORETURN,
    'nasty_knr': 'declared without a prototype (K&R "()"): its arguments are unknown',
    'nasty_inline_sq': 'the header defines it (static or inline) at ',
    'nasty_open': 'no prototype of its own: the headers #define nasty_open nasty_open_v2, so '
                  'programs built with them call nasty_open_v2',
    'nasty_asm': 'the header binds it to the symbol nasty_asm_v2 (__asm__ label)',
    'nasty_asm_v2': 'no prototype of its own: the header declares it as nasty_asm with an '
                    '__asm__("nasty_asm_v2") label',
    'nasty_counter': DATA, 'nasty_version': DATA, 'nasty_tls': DATA, 'nasty_hook': DATA,
}
NOT_EXPORTED = {
    'nasty_missing': 'declared at nasty.h:',
    'nasty_sib_mul': 'declared at nasty.h:',   # lives in libnastysib.so
}

# What app.c calls through the wrapper (calls of skipped functions are not traced).
EXPECTED_CALLS = {
    'nasty_add': 1, 'nasty_plus': 1,
    'nasty_inc': 3,             # directly; as nasty_apply's callback (depth 1); via nasty_hook
    'nasty_redecl': 1, 'nasty_late_proto': 1,
    'nasty_log': 1, 'nasty_err_data': 1,   # their v-twins are called by the wrapper, untraced
    'nasty_apply': 2, 'nasty_foreach': 1, 'nasty_get_cb': 1, 'nasty_get_op': 2,
    'nasty_call_with': 1, 'nasty_fn_param': 1,
    'nasty_pt_add': 1, 'nasty_big_scale': 1, 'nasty_u_flip': 1, 'nasty_flags_flip': 1,
    'nasty_range': 1, 'nasty_divmod': 1, 'nasty_level': 2, 'nasty_pt_norm1': 1,
    'nasty_sum4': 1, 'nasty_dot3': 1, 'nasty_trace3': 1, 'nasty_rowsum': 1, 'nasty_vla_sum': 1,
    'nasty_argv_len': 1,
    'nasty_copy': 1, 'nasty_peek': 1, 'nasty_is_even': 2, 'nasty_next_color': 2,
    'nasty_ldmul': 1, 'nasty_cmul': 1, 'nasty_conjf': 1, 'nasty_mul128': 1,
    'nasty_atomic_inc': 1, 'nasty_const_result': 1,
    'nasty_unnamed': 1, 'nasty_self': 1, 'nasty_scale': 1, 'nasty_clamp': 2,
    'nasty_twice': 1,           # the other nasty_twice(21) is the header's macro
    'nasty_open_v2': 1, 'nasty_ver': 1, 'nasty_ifunc_mul': 2, 'nasty_sib_mul': 1,
    'nasty_set_noreturn_handler': 2,
}


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = str(tmp_path_factory.mktemp('nasty'))
    lib = os.path.join(d, 'libnasty.so')
    sib = os.path.join(d, 'libnastysib.so')
    app = os.path.join(d, 'app')
    cc = ['cc', '-O2', '-std=gnu11', '-w']
    run(cc + ['-fPIC', '-shared', '-Wl,-soname,libnasty.so',
              f'-Wl,--version-script={NASTY}/nasty.map', '-o', lib, f'{NASTY}/nasty.c'])
    run(cc + ['-fPIC', '-shared', '-Wl,-soname,libnastysib.so', '-o', sib, f'{NASTY}/nasty_sib.c'])
    run(cc + [f'-I{NASTY}', '-o', app, f'{NASTY}/app.c', lib, sib, f'-Wl,-rpath,{d}'])
    return d, lib, sib, app


def _listing(*args):
    """--list output -> ({name: [(verdict, rest of the line)...]}, the output)."""
    out = dyliberator('--header', HEADER, '--list', *args).stdout
    seen = {}
    for line in out.splitlines():
        if line.startswith('#'):
            continue
        verdict, name, rest = re.match(r'(\w+) (\S+)\s+(.*)$', line).groups()
        seen.setdefault(name, []).append((verdict, rest))
    return seen, out


def test_list_gives_every_hard_case_its_verdict_and_reason(built):
    d, lib, sib, app = built
    seen, out = _listing('--lib', lib)
    assert all(len(v) == 1 for v in seen.values()), out
    listed = {n: v[0] for n, v in seen.items()}
    assert set(listed) == set(WRAPPED) | set(SKIPPED) | set(NOT_EXPORTED), out
    for name, note in WRAPPED.items():
        verdict, rest = listed[name]
        assert verdict == 'wrap', f'{name}: {verdict} {rest}'
        assert re.match(r'nasty\.h:\d+\b', rest), rest
        assert note in rest, f'{name}: {rest!r} lacks {note!r}'
        if not note:
            assert re.fullmatch(r'nasty\.h:\d+', rest), f'{name}: unexpected notes in {rest!r}'
    for name, reason in SKIPPED.items():
        verdict, rest = listed[name]
        assert verdict == 'skip', f'{name}: {verdict} {rest}'
        assert rest.startswith(reason), f'{name}: {rest!r}, expected {reason!r}'
    for name, where in NOT_EXPORTED.items():
        verdict, rest = listed[name]
        assert verdict == 'none' and rest.startswith(where), f'{name}: {verdict} {rest}'
    # the declaration lines are the header's own
    header_lines = open(HEADER).read().split('\n')
    for name in WRAPPED:
        line = int(re.match(r'nasty\.h:(\d+)', listed[name][1]).group(1))
        assert name.replace('_v2', '') in header_lines[line - 1], (name, line)


def test_list_two_libraries(built):
    d, lib, sib, app = built
    seen, out = _listing('--lib', lib, '--lib', sib)
    [(verdict, rest)] = seen['nasty_sib_mul']
    assert verdict == 'wrap' and rest.startswith('nasty.h:')
    # libnastysib.so's nasty_add is shadowed by libnasty.so's, listed first
    assert [v for v, _ in seen['nasty_add']] == ['wrap', 'skip']
    assert seen['nasty_add'][1][1] == 'also exported by libnasty.so, which comes first'
    assert '# libnastysib.so' in out and seen['nasty_missing'][0][0] == 'none'


def test_prototypes_record_types_names_and_const_pointees():
    from generator import headers
    protos, macros, usable, notes, declared = headers.parse_headers([HEADER])
    P = protos

    def params(name):
        return [(a.name, a.type, a.const_pointee) for a in P[name].params]

    # const on pointees: inputs vs outputs
    assert params('nasty_copy') == [('dst', 'int *restrict', False),
                                    ('src', 'const int *restrict', True), ('n', 'size_t', False)]
    assert params('nasty_pt_norm1') == [('p', 'nasty_pt_cref', True)]   # through a typedef
    assert params('nasty_sum4') == [('v', 'const int[4]', True)]          # array of const
    assert params('nasty_dot3')[0] == ('a', 'const double[3]', True)      # [static 3] dropped
    assert params('nasty_vla_sum')[2] == ('a', 'const double (*)[]', True)  # VLA, as a pointer
    assert params('nasty_argv_len')[1] == ('argv', 'const char *const *', True)
    assert params('nasty_trace3') == [('m', 'int[3][3]', False)]
    assert params('nasty_rowsum')[0] == ('p', 'int (*)[4]', False)
    assert params('nasty_peek')[0] == ('p', 'volatile int *', False)
    assert P['nasty_rowsum'].params[0].pointee_size == 16
    fn = P['nasty_fn_param'].params[0]
    assert (fn.type, fn.pointer, fn.kind) == ('int (int)', True, 'pointer')
    assert params('nasty_call_with')[0] == ('outer', 'int (*)(int (*)(int), int)', False)
    # names: unnamed parameters get names that cannot clash with a real 'a1'
    assert [a.name for a in P['nasty_unnamed'].params] == ['dyl_a1', 'dyl_a2', 'a1']
    assert [a.name for a in P['nasty_redecl'].params] == ['first', 'second']
    assert 'factor' in macros and 'min' in macros and 'nasty_twice' in macros
    # results: function pointers as they are; anonymous or qualified ones through the call
    assert P['nasty_get_op'].result == 'int (*)(int, int)'
    assert P['nasty_divmod'].result == '__typeof__((nasty_divmod)(*(int *)0, *(int *)0))'
    assert P['nasty_level'].result == '__typeof__((nasty_level)(*(int *)0))'
    assert P['nasty_const_result'].result == 'int'
    assert P['nasty_range'].result == 'nasty_range_t' and P['nasty_range'].problem is None
    # noreturn: four spellings, and a parameter merely named so
    assert sorted(n for n in P if P[n].noreturn and n.startswith('nasty_')) == [
        'nasty_abort', 'nasty_bail', 'nasty_die', 'nasty_fatal']
    assert not P['nasty_set_noreturn_handler'].noreturn
    # K&R: only when no declaration has a prototype
    assert P['nasty_knr'].no_prototype and not P['nasty_late_proto'].no_prototype
    assert [a.name for a in P['nasty_late_proto'].params] == ['x']
    assert P['nasty_inline_sq'].inline_definition and 'nasty_inline_sq' not in declared
    assert P['nasty_log'].variadic and [a.name for a in P['nasty_log'].params] == ['out', 'n', 'fmt']


def _generate(d, lib, sib, name, *gens):
    out = os.path.join(d, f'{name}.so')
    dyliberator('--lib', lib, '--lib', sib, '--header', HEADER, *gens, '-o', out, '--no-build')
    r = run(['make', '-s', '-C', os.path.join(d, f'{name}.d'), 'CFLAGS=-O2 -Wall -Werror'],
            check=False)
    assert r.returncode == 0, f'wrap.c does not compile warning-free:\n{r.stderr[-4000:]}'
    assert os.path.exists(out)
    return out


@pytest.mark.parametrize('name, gens', [('w_default', ()), ('w_args', ('-g', 'std.args'))],
                         ids=['default', 'args'])
def test_wrapper_is_transparent_and_counts_every_call(built, name, gens):
    d, lib, sib, app = built
    w = _generate(d, lib, sib, name, *gens)
    wrapped, tp = run_both([app], w, d, trace=f'{name}.csv')
    assert wrapped.returncode == 3          # nasty_die(3), unwrapped, ends the program
    assert b'knr 42 inline_sq 25 open 101 asm 3 ver 3' in wrapped.stdout
    t = Trace(tp)
    assert collections.Counter(t.funcs()) == collections.Counter(EXPECTED_CALLS)
    assert sorted(r['depth'] for r in t.rows if r['func'] == 'nasty_inc') == ['0', '0', '1']
    assert all(r['depth'] == '0' for r in t.rows if r['func'] != 'nasty_inc')
    assert 'total_ns' in t.meta
    if gens:
        args = {}
        for r in t.by_seq():
            args.setdefault(r['func'], []).append(r['args'])
        assert args['nasty_add'] == ['a=2 b=3'] and args['nasty_plus'] == ['a=4 b=5']
        assert re.fullmatch(r'v=0x[0-9a-f]+\(\*=1\)', args['nasty_sum4'][0])  # const int[4]
        assert re.fullmatch(r'a=0x[0-9a-f]+\(\*=1\) b=0x[0-9a-f]+\(\*=4\)', args['nasty_dot3'][0])
        assert re.fullmatch(r'dst=0x[0-9a-f]+ src=0x[0-9a-f]+\(\*=1\) n=4', args['nasty_copy'][0])
        assert args['nasty_unnamed'] == ['dyl_a1=1 dyl_a2=2 a1=3']
        # parameters named like a macro or the function get a safe name in the wrapper
        # parameters renamed in the C (a macro, or the function's name) keep the
        # header's names in the trace
        assert sorted(args['nasty_clamp']) == ['v=-5 min=0 max=10', 'v=50 min=0 max=10']
        assert args['nasty_scale'] == ['value=3 factor=4'] and args['nasty_self'] == ['nasty_self=7']
        assert sorted(args['nasty_next_color']) == ['c=-1', 'c=5']
        assert sorted(args['nasty_is_even']) == ['invert=0 x=4', 'invert=1 x=4']
        assert args['nasty_ldmul'] == ['a=1.5 b=2.25']
        assert args['nasty_mul128'] == ['a=18446744073709551615 b=3']
        assert args['nasty_pt_add'] == ['a={...} b={...}']
        assert re.fullmatch(r'out=0x[0-9a-f]+ n=64 fmt="%s=%d %\.2f"', args['nasty_log'][0])
        assert args['nasty_const_result'] == ['']


def test_wrapper_source_spells_the_hard_types(built):
    """The generated C keeps the header's types where they can be written at file scope."""
    d, lib, sib, app = built
    out = os.path.join(d, 'w_src.so')
    dyliberator('--lib', lib, '--lib', sib, '--header', HEADER, '-o', out, '--no-build')
    src = open(os.path.join(d, 'w_src.d', 'wrap.c')).read()
    assert 'typedef __typeof__(const double[3]) dyl_nasty_dot3_a1;' in src
    assert 'typedef __typeof__(const double (*)[]) dyl_nasty_vla_sum_a3;' in src
    assert '__typeof__((nasty_divmod)(*(int *)0, *(int *)0))' in src
    assert '"nasty_err_vdata"' in src and '"nasty_vlog"' in src      # forwarded through them
    assert '"NASTY_2"' in src                                          # dlvsym of the default version
    for skipped in SKIPPED:
        assert f'({skipped})(' not in src, f'{skipped} was skipped but has a wrapper'
    for wrapped in WRAPPED:
        assert f'({wrapped})(' in src, f'no wrapper for {wrapped}'
