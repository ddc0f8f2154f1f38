#!/usr/bin/python3
"""Writes blas.defs: the work (flops) and the bytes in and out of every BLAS routine of
the profile, for the Fortran interface (dgemm_, blas.h) and CBLAS (cblas_dgemm,
cblas-netlib.h), in the four precisions s, d, c, z.

    /usr/bin/python3 microgens/profiles/blas/gen_defs.py      # rewrites blas.defs

Run it by hand after a change here and commit both files; test_blas_profile.py checks
that blas.defs is what this script writes.  The formulas are in FAMILIES below and in
README.md (where they come from)."""
import os
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'blas.defs')

# precision letter -> (element type, is complex, real type of the same width)
TYPES = {'s': ('float', False, 'float'), 'd': ('double', False, 'double'),
         'c': ('float _Complex', True, 'float'), 'z': ('double _Complex', True, 'double')}


class Fortran:
    """Arguments by reference (blas.h); CHARACTER arguments as char *."""
    tag = 'Fortran'
    trans = {'gemv': 'trans', 'gbmv': 'trans'}

    def name(self, routine):
        return routine + '_'

    def dim(self, a):
        return f'*{a}'

    def scalar(self, a, ctype):
        return f'*{a}'

    def is_notrans(self, fam):
        t = self.trans[fam]
        return f"(*{t} == 'N' || *{t} == 'n')"

    def is_left(self):
        return "(*side == 'L' || *side == 'l')"

    def is_unit(self):
        return "(*diag == 'U' || *diag == 'u')"


class Cblas:
    """Arguments by value; complex scalars as const void *; enums for the characters."""
    tag = 'CBLAS'
    names = {'m': 'M', 'n': 'N', 'k': 'K', 'kl': 'KL', 'ku': 'KU', 'a': 'alpha', 'incx': 'incX'}

    def name(self, routine):
        return 'cblas_' + routine

    def dim(self, a):
        return self.names.get(a, a)

    def scalar(self, a, ctype):
        a = self.names.get(a, a)
        return f'*(const {ctype} *){a}' if 'Complex' in ctype else a

    def is_notrans(self, fam):
        return '(TransA == CblasNoTrans)'

    def is_left(self):
        return '(Side == CblasLeft)'

    def is_unit(self):
        return '(Diag == CblasUnit)'


# Each family: what it computes, the routine names per precision, the dimensions it reads
# (name -> local), the condition under which the routine does anything, and the body that
# sets in/out (elements of the precision's type) and fm/fa (multiplications, additions).
# The body may use the locals m_, n_, k_, kl_, ku_ and the flags alpha0, beta0, beta1.
def family(what, routines, dims, go, body, alpha=None, beta=None, weights=None,
           result=None, etype=None):
    return dict(what=what, routines=routines, dims=dims, go=go, body=body, alpha=alpha,
                beta=beta, weights=weights, result=result, etype=etype)


# syrk, herk, syr2k, her2k: C N x N, one triangle; A (and B) N x K
RK_GO = 'n_ > 0 && !((alpha0 || k_ == 0) && beta1)'
SYRK_BODY = ('int64_t tri = n_ * (n_ + 1) / 2;\n'
             'if (!alpha0 && k_ > 0) { in += n_ * k_; fm = k_ * tri; fa = k_ * tri; }\n'
             'if (!beta0) in += tri;\nout = tri;')
SYR2K_BODY = ('int64_t tri = n_ * (n_ + 1) / 2;\n'
              'if (!alpha0 && k_ > 0) { in += 2 * n_ * k_; fm = k_ * n_ * n_; '
              'fa = k_ * n_ * n_; }\nif (!beta0) in += tri;\nout = tri;')
FAMILIES = {
    # ---- level 1 (LAWN 41 table of the Level 1 BLAS; BLAS++ flops.hh)
    'axpy': family('y = alpha x + y over N elements (any strides); nothing when alpha == 0',
                   {p: p + 'axpy' for p in 'sdcz'}, ['n'], 'n_ > 0 && !alpha0',
                   'in = 2 * n_; out = n_; fm = n_; fa = n_;', alpha='a'),
    'scal': family('x = alpha x over N elements; nothing when incx <= 0',
                   {p: p + 'scal' for p in 'sdcz'}, ['n', 'incx'], 'n_ > 0 && incx_ > 0',
                   'in = n_; out = n_; fm = n_;'),
    'rscal': family('x = alpha x, complex x, real alpha: 2 real multiplications an element',
                    {'c': 'csscal', 'z': 'zdscal'}, ['n', 'incx'], 'n_ > 0 && incx_ > 0',
                    'in = n_; out = n_; fm = n_;', weights=(2, 2)),
    'copy': family('y = x over N elements: no flops', {p: p + 'copy' for p in 'sdcz'}, ['n'],
                   'n_ > 0', 'in = n_; out = n_;'),
    'swap': family('x <-> y over N elements: no flops', {p: p + 'swap' for p in 'sdcz'}, ['n'],
                   'n_ > 0', 'in = 2 * n_; out = 2 * n_;'),
    'dot': family('x . y over N elements: N multiplications, N - 1 additions; the result is '
                  'the output', {'s': 'sdot', 'd': 'ddot'}, ['n'], 'n_ > 0',
                  'in = 2 * n_; fm = n_; fa = n_ - 1;', result='ret'),
    'dsdot': family('x . y of floats accumulated in double', {'d': 'dsdot', 's': 'sdsdot'},
                    ['n'], 'n_ > 0', 'in = 2 * n_; fm = n_; fa = n_ - 1;', result='ret',
                    etype='float'),
    'dotu': family('x . y (complex, unconjugated); the result is the output',
                   {'c': 'cdotu', 'z': 'zdotu'}, ['n'], 'n_ > 0',
                   'in = 2 * n_; fm = n_; fa = n_ - 1;', result='dotu'),
    'dotc': family('conj(x) . y (complex); the result is the output',
                   {'c': 'cdotc', 'z': 'zdotc'}, ['n'], 'n_ > 0',
                   'in = 2 * n_; fm = n_; fa = n_ - 1;', result='dotc'),
    'nrm2': family('2-norm of x: N multiplications, N - 1 additions',
                   {'s': 'snrm2', 'd': 'dnrm2', 'c': 'scnrm2', 'z': 'dznrm2'}, ['n'], 'n_ > 0',
                   'in = n_; fm = n_; fa = n_ - 1;', result='ret'),
    'asum': family('sum of |x_i| (complex: |re| + |im|): N - 1 additions',
                   {'s': 'sasum', 'd': 'dasum', 'c': 'scasum', 'z': 'dzasum'}, ['n', 'incx'],
                   'n_ > 0 && incx_ > 0', 'in = n_; fa = n_ - 1;', result='ret'),
    'iamax': family('index of the largest |x_i|: N - 1 comparisons; N == 1 reads nothing',
                    {p: 'i' + p + 'amax' for p in 'sdcz'}, ['n', 'incx'],
                    'n_ > 1 && incx_ > 0', 'in = n_; fa = n_ - 1;', result='ret'),
    'rot': family('plane rotation of x and y: 4N multiplications, 2N additions (complex '
                  'vectors with real c, s: twice that)',
                  {'s': 'srot', 'd': 'drot', 'c': 'csrot', 'z': 'zdrot'}, ['n'], 'n_ > 0',
                  'in = 2 * n_; out = 2 * n_; fm = 4 * n_; fa = 2 * n_;', weights=(2, 2)),
    # ---- level 2 (LAWN 41; BLAS++ flops.hh: alpha and beta scalings not counted)
    'gemv': family('y = alpha op(A) x + beta y, A M x N; x, y of N, M (op = A) or M, N; '
                   'A and x unread when alpha == 0, y when beta == 0',
                   {p: p + 'gemv' for p in 'sdcz'}, ['m', 'n'],
                   'm_ > 0 && n_ > 0 && !(alpha0 && beta1)',
                   'int64_t lx = NOTRANS ? n_ : m_, ly = NOTRANS ? m_ : n_;\n'
                   'if (!alpha0) { in += m_ * n_ + lx; fm = m_ * n_; fa = m_ * n_; }\n'
                   'if (!beta0) in += ly;\nout = ly;', alpha='alpha', beta='beta'),
    'gbmv': family('y = alpha op(A) x + beta y, A M x N banded (KL below, KU above the '
                   'diagonal): the elements of the band',
                   {p: p + 'gbmv' for p in 'sdcz'}, ['m', 'n', 'kl', 'ku'],
                   'm_ > 0 && n_ > 0 && !(alpha0 && beta1)',
                   'int64_t lx = NOTRANS ? n_ : m_, ly = NOTRANS ? m_ : n_, band = 0;\n'
                   'for (int64_t j = 0; j < n_; j++) {\n'
                   '\tint64_t lo = j - ku_ > 0 ? j - ku_ : 0, hi = j + kl_ < m_ - 1 ? j + kl_ : m_ - 1;\n'
                   '\tband += hi >= lo ? hi - lo + 1 : 0;\n}\n'
                   'if (!alpha0) { in += band + lx; fm = band; fa = band; }\n'
                   'if (!beta0) in += ly;\nout = ly;', alpha='alpha', beta='beta'),
    'symv': family('y = alpha A x + beta y, A N x N symmetric/Hermitian (one triangle read)',
                   {'s': 'ssymv', 'd': 'dsymv', 'c': 'chemv', 'z': 'zhemv'}, ['n'],
                   'n_ > 0 && !(alpha0 && beta1)',
                   'if (!alpha0) { in += n_ * (n_ + 1) / 2 + n_; fm = n_ * n_; fa = n_ * n_; }\n'
                   'if (!beta0) in += n_;\nout = n_;', alpha='alpha', beta='beta'),
    'trmv': family('x = op(A) x; trsv: op(A)^-1 x; A N x N triangular (the triangle read; '
                   'unit: no diagonal)', [(p, p + 'trmv') for p in 'sdcz'] +
                   [(p, p + 'trsv') for p in 'sdcz'], ['n'], 'n_ > 0',
                   'in = (UNIT ? n_ * (n_ - 1) / 2 : n_ * (n_ + 1) / 2) + n_;\nout = n_;\n'
                   'fm = n_ * (n_ + 1) / 2; fa = n_ * (n_ - 1) / 2;'),
    'ger': family('A = alpha x y^T + A (geru; gerc: y^H), A M x N',
                  [('s', 'sger'), ('d', 'dger'), ('c', 'cgeru'), ('z', 'zgeru'), ('c', 'cgerc'),
                   ('z', 'zgerc')], ['m', 'n'], 'm_ > 0 && n_ > 0 && !alpha0',
                  'in = m_ + n_ + m_ * n_; out = m_ * n_; fm = m_ * n_; fa = m_ * n_;',
                  alpha='alpha'),
    'syr': family('A = alpha x x^T + A (her: x x^H, real alpha), one triangle of A',
                  {'s': 'ssyr', 'd': 'dsyr', 'c': 'cher', 'z': 'zher'}, ['n'],
                  'n_ > 0 && !alpha0',
                  'in = n_ + n_ * (n_ + 1) / 2; out = n_ * (n_ + 1) / 2; fm = n_ * n_; '
                  'fa = n_ * n_;', alpha='alpha:real'),
    'syr2': family('A = alpha x y^T + alpha y x^T + A (her2: Hermitian), one triangle',
                   {'s': 'ssyr2', 'd': 'dsyr2', 'c': 'cher2', 'z': 'zher2'}, ['n'],
                   'n_ > 0 && !alpha0',
                   'in = 2 * n_ + n_ * (n_ + 1) / 2; out = n_ * (n_ + 1) / 2; '
                   'fm = 2 * n_ * n_; fa = 2 * n_ * n_;', alpha='alpha'),
    # ---- level 3 (LAWN 41; BLAS++ flops.hh)
    'gemm': family('C = alpha op(A) op(B) + beta C: op(A) M x K, op(B) K x N, C M x N, '
                   'whatever the layout and transposes; C unread when beta == 0',
                   {p: p + 'gemm' for p in 'sdcz'}, ['m', 'n', 'k'],
                   'm_ > 0 && n_ > 0 && !((alpha0 || k_ == 0) && beta1)',
                   'if (!alpha0 && k_ > 0) {\n\tin += m_ * k_ + k_ * n_;\n'
                   '\tfm = m_ * n_ * k_; fa = m_ * n_ * k_;\n}\n'
                   'if (!beta0) in += m_ * n_;\nout = m_ * n_;', alpha='alpha', beta='beta'),
    'symm': family('C = alpha A B + beta C (side left; right: B A), A symmetric (hemm: '
                   'Hermitian) of order M (left) or N (right), one triangle read; B, C M x N',
                   [(p, p + 'symm') for p in 'sdcz'] + [('c', 'chemm'), ('z', 'zhemm')],
                   ['m', 'n'], 'm_ > 0 && n_ > 0 && !(alpha0 && beta1)',
                   'int64_t ka = LEFT ? m_ : n_;\n'
                   'if (!alpha0) { in += ka * (ka + 1) / 2 + m_ * n_; fm = ka * m_ * n_; '
                   'fa = ka * m_ * n_; }\nif (!beta0) in += m_ * n_;\nout = m_ * n_;',
                   alpha='alpha', beta='beta'),
    'syrk': family('C = alpha A A^T + beta C, C N x N (one triangle), A N x K (or K x N)',
                   {p: p + 'syrk' for p in 'sdcz'}, ['n', 'k'], RK_GO, SYRK_BODY,
                   alpha='alpha', beta='beta'),
    'herk': family('C = alpha A A^H + beta C, real alpha and beta (as syrk)',
                   {'c': 'cherk', 'z': 'zherk'}, ['n', 'k'], RK_GO, SYRK_BODY,
                   alpha='alpha:real', beta='beta:real'),
    'syr2k': family('C = alpha A B^T + alpha B A^T + beta C, C N x N (one triangle), '
                    'A and B N x K (or K x N)',
                    {p: p + 'syr2k' for p in 'sdcz'}, ['n', 'k'], RK_GO, SYR2K_BODY,
                    alpha='alpha', beta='beta'),
    'her2k': family('C = alpha A B^H + conj(alpha) B A^H + beta C, real beta (as syr2k)',
                    {'c': 'cher2k', 'z': 'zher2k'}, ['n', 'k'], RK_GO, SYR2K_BODY,
                    alpha='alpha', beta='beta:real'),
    'trmm': family('B = alpha op(A) B (left; right: B op(A)); trsm: op(A)^-1; A '
                   'triangular of order M (left) or N (right), B M x N; alpha == 0 zeroes B '
                   'without reading', [(p, p + 'trmm') for p in 'sdcz'] +
                   [(p, p + 'trsm') for p in 'sdcz'], ['m', 'n'], 'm_ > 0 && n_ > 0',
                   'int64_t ka = LEFT ? m_ : n_, other = LEFT ? n_ : m_;\nout = m_ * n_;\n'
                   'if (!alpha0) {\n\tin = (UNIT ? ka * (ka - 1) / 2 : ka * (ka + 1) / 2) + m_ * n_;\n'
                   '\tfm = other * ka * (ka + 1) / 2; fa = other * ka * (ka - 1) / 2;\n}',
                   alpha='alpha'),
}


def comment(text, indent):
    """TEXT as a C comment of lines of 96 columns at most (tabs of 8), after INDENT."""
    lines = textwrap.wrap(text, 96 - len(indent.expandtabs(8)) - 6)
    return '\n'.join([f'{indent}/* {lines[0]}'] + [f'{indent}   {ln}' for ln in lines[1:]]) + ' */'


def scalar_flags(fam, iface, ctype, rtype):
    """C declarations of alpha0, beta0, beta1 from the family's scalar arguments."""
    out = []
    for flag, spec, value in (('alpha0', fam['alpha'], '0'), ('beta0', fam['beta'], '0'),
                              ('beta1', fam['beta'], '1')):
        if not spec:
            continue
        name, _, kind = spec.partition(':')
        t = rtype if kind == 'real' else ctype
        out.append(f'int {flag} = {iface.scalar(name, t)} == {value};')
    return out


def result_bytes(fam, iface, ctype):
    """Bytes of a function's result: the return value, or CBLAS's *_sub result pointer."""
    res = fam['result']
    if not res:
        return None
    if res == 'ret' or isinstance(iface, Fortran):
        return '(int64_t)sizeof(dyl_result)'
    return f'(int64_t)sizeof({ctype})'


def block(fam_name, fam, p, routine, iface):
    """One postfix block of blas.defs, as text."""
    ctype, cplx, rtype = TYPES[p]
    etype = fam['etype'] or ctype
    if isinstance(iface, Cblas) and fam['result'] in ('dotu', 'dotc'):
        routine += '_sub'
    lines = [f'int64_t {d}_ = {iface.dim(d)} > 0 ? {iface.dim(d)} : 0;' for d in fam['dims']]
    lines += scalar_flags(fam, iface, ctype, rtype)
    lines.append('int64_t in = 0, out = 0, fm = 0, fa = 0;')
    body = fam['body']
    if 'NOTRANS' in body:
        body = body.replace('NOTRANS', iface.is_notrans(fam_name))
    body = body.replace('LEFT', iface.is_left()).replace('UNIT', iface.is_unit())
    lines.append(f'if ({fam["go"]}) {{')
    lines += ['\t' + b for b in body.split('\n')]
    lines.append('}')
    size = f'(int64_t)sizeof({etype})'
    lines.append(f'input_size = in * {size};')
    res = result_bytes(fam, iface, ctype)
    lines.append(f'output_size = out * {size}' + (f' + {res};' if res else ';'))
    wm, wa = (fam['weights'] or (6, 2)) if cplx else (1, 1)
    lines.append('work_size = ' + ('fm + fa;' if (wm, wa) == (1, 1) else f'{wm} * fm + {wa} * fa;'))
    return postfix(iface.name(routine), f'{fam_name} ({ctype}, {iface.tag}): {fam["what"]}',
                   lines)


def postfix(func, note, lines):
    """A postfix block of FUNC (any library) with the comment NOTE and the C LINES.
    lapack/gen_defs.py uses it too."""
    text = [f'*::{func}::postfix {{', comment(note, '\t'), '\t{']
    text += ['\t\t' + ln for ln in lines]
    return '\n'.join(text + ['\t}', '}', ''])


HEAD = '''\
// blas.defs - the work (floating-point operations) and the bytes read and written of the
// BLAS routines, Fortran interface (dgemm_: blas.h) and CBLAS (cblas_dgemm:
// cblas-netlib.h), precisions s, d, c, z.  GENERATED by gen_defs.py: edit that script and
// run it, never this file.  README.md says where each formula comes from.
//
// work = multiplications + additions (LAWN 41); complex: 6 flops a complex multiplication
// and 2 an addition, so a complex multiply-add is 8 real flops and zgemm's work is 4x
// dgemm's.  Bytes: the elements the routine reads and writes (N elements of a strided
// vector, one triangle of a symmetric matrix), never the lda-strided extent; quick
// returns as the reference routines make them (C is not read when beta == 0; nothing
// when alpha == 0 and beta == 1).  All counts are int64_t.
'''


def generate():
    parts = [HEAD]
    for iface in (Fortran(), Cblas()):
        for fam_name, fam in FAMILIES.items():
            routines = fam['routines']
            for p, routine in (routines.items() if isinstance(routines, dict) else routines):
                parts.append(block(fam_name, fam, p, routine, iface))
    return '\n'.join(parts)


def main():
    text = generate()
    if '--check' in sys.argv[1:]:
        with open(OUT) as f:
            return 0 if f.read() == text else 1
    with open(OUT, 'w') as f:
        f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
