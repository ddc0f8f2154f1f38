"""Helpers of test_blas_profile.py and ../lapack/test_lapack_profile.py: the arguments
that give dyliberator a profile's headers, .defs and functions explicitly, and the rows
of a trace as (func, in_bytes, out_bytes, work)."""
import os
import re
import tomllib

from dyltest import DYLIBERATOR, Trace, run


def profile(folder):
    with open(os.path.join(folder, 'profile.toml'), 'rb') as f:
        return tomllib.load(f)


def no_profile():
    """--profile none where dyliberator has profiles: only what the test names applies."""
    return ['--profile', 'none'] if '--profile' in run([DYLIBERATOR, '--help']).stdout else []


def profile_args(folder, with_functions=True):
    """--header, --defs (and -f: the profile's functions) of the profile in FOLDER."""
    p = profile(folder)
    args = [a for h in p['headers'] for a in ('--header', os.path.join(folder, h))]
    args += [a for d in p['defs'] for a in ('--defs', os.path.join(folder, d))]
    if with_functions:
        args += [a for f in p['functions'] for a in ('-f', f)]
    return no_profile() + args


def defs_functions(path):
    """The functions of the postfix blocks of the .defs file PATH, in order."""
    with open(path) as f:
        return re.findall(r'^\*::(\S+)::postfix', f.read(), re.M)


def exports(lib):
    """The names of the symbols LIB defines (nm -D)."""
    out = run(['nm', '-D', '--defined-only', lib]).stdout
    return {f[2] for f in (line.split() for line in out.splitlines()) if len(f) == 3}


def rows(path, depth='0'):
    """(func, in_bytes, out_bytes, work) of the trace's rows at DEPTH, in call order."""
    return [(r['func'], int(r['in_bytes']), int(r['out_bytes']), int(r['work']))
            for r in Trace(path).by_seq() if r['depth'] == depth]


def build_everything(tmp_path, lib, folder):
    """Wraps every prototype of the profile's headers in LIB (no -f): stderr, which must
    say no warning (a block that matches no function is one)."""
    out = str(tmp_path / 'all.so')
    r = run([DYLIBERATOR, '--lib', lib, *profile_args(folder, with_functions=False), '-o', out],
            cwd=str(tmp_path))
    assert 'warning' not in r.stderr.lower(), r.stderr
    assert os.path.exists(out)
    return r.stderr


# every CBLAS routine of the profile, called in both layouts: the values of its arguments
# by name (lda 8 fits every matrix below; herk/her2k/her want ConjTrans, the others Trans)
_CBLAS_VALUES = {'M': '5', 'N': '4', 'K': '3', 'KL': '1', 'KU': '2', 'lda': '8', 'ldb': '8',
                 'ldc': '8', 'incX': '2', 'incY': '1', 'Uplo': 'CblasLower',
                 'Side': 'CblasRight', 'Diag': 'CblasNonUnit', 'TransB': 'CblasNoTrans',
                 'c': '0.6f', 's': '0.8f'}


def _cblas_call(name, params, layout):
    """C text of one call of NAME (PARAMS: [(type, name)]) in LAYOUT."""
    # a complex scalar is passed by address: float _Complex for c, double _Complex for z
    scalar = 'calpha' if name.startswith('cblas_c') else 'zalpha'
    args = []
    for typ, arg in params:
        if arg == 'layout':
            args.append(layout)
        elif arg in ('TransA', 'Trans'):
            args.append('CblasConjTrans' if 'her' in name else 'CblasTrans')
        elif arg in _CBLAS_VALUES:
            args.append(_CBLAS_VALUES[arg])
        elif arg in ('alpha', 'beta'):
            args.append(f'(void *)&{scalar}' if '*' in typ else '0.5f' if arg == 'beta' else '1.5f')
        else:
            args.append('(void *)buf_' + arg.lower())
    return f'\t{name}({", ".join(args)});'


def cblas_program(header, names):
    """A C program that calls each CBLAS routine of NAMES (as HEADER declares it) once in
    column-major and once in row-major order (routines without a layout: once)."""
    text = open(header).read()
    calls = []
    for ret, name, plist in re.findall(r'^(\w+)\s+(cblas_\w+)\s*\(([^;]*?)\);', text, re.M | re.S):
        if name not in names:
            continue
        params = [re.match(r'\s*(.*?)(\w+)\s*$', p, re.S).groups() for p in plist.split(',')]
        layouts = ['CblasColMajor', 'CblasRowMajor'] if params[0][1] == 'layout' else [None]
        calls += [_cblas_call(name, params, lay) for lay in layouts]
    bufs = ''.join(f'static double _Complex buf_{b}[4096];\n'
                   for b in ('a', 'b', 'c', 'x', 'y', 'dotu', 'dotc'))
    return (f'#include <complex.h>\n#include "{header}"\n{bufs}'
            'static float _Complex calpha = 1.5f + 0.5f * I;\n'
            'static double _Complex zalpha = 1.5 + 0.5 * I;\n'
            'int main(void)\n{\n' + '\n'.join(calls) + '\n\treturn 0;\n}\n')
