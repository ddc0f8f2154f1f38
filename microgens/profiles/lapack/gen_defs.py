#!/usr/bin/python3
"""Writes lapack.h (the prototypes) and lapack.defs (the work in flops and the bytes in
and out) of the LAPACK routines of the profile, precisions s, d, c, z.

    /usr/bin/python3 microgens/profiles/lapack/gen_defs.py    # rewrites both files

Run it by hand after a change here and commit the three files; test_lapack_profile.py
checks that the committed files are what this script writes.  README.md says where each
formula comes from and which are estimates."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_H = os.path.join(HERE, 'lapack.h')
OUT_DEFS = os.path.join(HERE, 'lapack.defs')
# the blas profile's generator: its comment() and postfix() write the blocks alike
_spec = importlib.util.spec_from_file_location('blas_gen_defs',
                                               os.path.join(HERE, '..', 'blas', 'gen_defs.py'))
BLAS = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(BLAS)

# precision letter -> (element type, real type, is complex)
TYPES = {'s': ('float', 'float', False), 'd': ('double', 'double', False),
         'c': ('float _Complex', 'float', True), 'z': ('double _Complex', 'double', True)}

# Arguments: name:kind.  Kinds: I const int *, C const char * (with a hidden size_t
# length), A T * (read and written), cA const T *, T T * (written), R real *, W T * work,
# RW real * work, IP int * (ipiv, written), cIP const int *, IW int * work, O int * (info).
GESV = 'n:I nrhs:I a:A lda:I ipiv:IP b:A ldb:I info:O'
GETRF = 'm:I n:I a:A lda:I ipiv:IP info:O'
GETRS = 'trans:C n:I nrhs:I a:cA lda:I ipiv:cIP b:A ldb:I info:O'
GETRI = 'n:I a:A lda:I ipiv:cIP work:W lwork:I info:O'
POTRF = 'uplo:C n:I a:A lda:I info:O'
POTRS = 'uplo:C n:I nrhs:I a:cA lda:I b:A ldb:I info:O'
POSV = 'uplo:C n:I nrhs:I a:A lda:I b:A ldb:I info:O'
GEQRF = 'm:I n:I a:A lda:I tau:T work:W lwork:I info:O'
ORGQR = 'm:I n:I k:I a:A lda:I tau:cA work:W lwork:I info:O'
GELS = 'trans:C m:I n:I nrhs:I a:A lda:I b:A ldb:I work:W lwork:I info:O'
SYEV = 'jobz:C uplo:C n:I a:A lda:I w:R work:W lwork:I info:O'
HEEV = 'jobz:C uplo:C n:I a:A lda:I w:R work:W lwork:I rwork:RW info:O'
SYEVD = 'jobz:C uplo:C n:I a:A lda:I w:R work:W lwork:I iwork:IW liwork:I info:O'
HEEVD = ('jobz:C uplo:C n:I a:A lda:I w:R work:W lwork:I rwork:RW lrwork:I iwork:IW '
         'liwork:I info:O')
GESVD = ('jobu:C jobvt:C m:I n:I a:A lda:I s:R u:T ldu:I vt:T ldvt:I work:W lwork:I '
         'info:O')
GESVD_C = ('jobu:C jobvt:C m:I n:I a:A lda:I s:R u:T ldu:I vt:T ldvt:I work:W lwork:I '
           'rwork:RW info:O')
GESDD = 'jobz:C m:I n:I a:A lda:I s:R u:T ldu:I vt:T ldvt:I work:W lwork:I iwork:IW info:O'
GESDD_C = ('jobz:C m:I n:I a:A lda:I s:R u:T ldu:I vt:T ldvt:I work:W lwork:I rwork:RW '
           'iwork:IW info:O')
TRTRS = 'uplo:C trans:C diag:C n:I nrhs:I a:cA lda:I b:A ldb:I info:O'
SYTRF = 'uplo:C n:I a:A lda:I ipiv:IP work:W lwork:I info:O'
GEEV = ('jobvl:C jobvr:C n:I a:A lda:I wr:R wi:R vl:T ldvl:I vr:T ldvr:I work:W lwork:I '
        'info:O')
GEEV_C = ('jobvl:C jobvr:C n:I a:A lda:I w:T vl:T ldvl:I vr:T ldvr:I work:W lwork:I '
          'rwork:RW info:O')

# Flop counts of LAWN 41 as (multiplications, additions), C expressions of doubles;
# work = fm + fa (real), 6 fm + 2 fa (complex).  Shared pieces:
F_GETRF = ('(m_ >= n_ ? 0.5*m_*n_*n_ - n_*n_*n_/6 + 0.5*m_*n_ - 0.5*n_*n_ + 2*n_/3 '
           ': 0.5*n_*m_*m_ - m_*m_*m_/6 + 0.5*n_*m_ - 0.5*m_*m_ + 2*m_/3)',
           '(m_ >= n_ ? 0.5*m_*n_*n_ - n_*n_*n_/6 - 0.5*m_*n_ + n_/6 '
           ': 0.5*n_*m_*m_ - m_*m_*m_/6 - 0.5*n_*m_ + m_/6)')
# getrf(N, N): n^3/3 + 2n/3 multiplications, n^3/3 - n^2/2 + n/6 additions
F_GETRF_SQ = ('n_*n_*n_/3 + 2*n_/3', 'n_*n_*n_/3 - 0.5*n_*n_ + n_/6')
F_GETRS = ('r_*n_*n_', 'r_*n_*(n_ - 1)')
F_POTRF = ('n_*n_*n_/6 + 0.5*n_*n_ + n_/3', 'n_*n_*n_/6 - n_/6')
F_POTRS = ('r_*n_*(n_ + 1)', 'r_*n_*(n_ - 1)')
F_GEQRF = ('(m_ > n_ ? m_*n_*n_ - n_*n_*n_/3 + m_*n_ + 0.5*n_*n_ + 23*n_/6 '
           ': n_*m_*m_ - m_*m_*m_/3 + 2*n_*m_ - 0.5*m_*m_ + 23*m_/6)',
           '(m_ > n_ ? m_*n_*n_ - n_*n_*n_/3 + 0.5*n_*n_ + 5*n_/6 '
           ': n_*m_*m_ - m_*m_*m_/3 + n_*m_ - 0.5*m_*m_ + 5*m_/6)')


def fam(what, routines, args, go, body, flops, source, args_c=None):
    return dict(what=what, routines=routines, args=args, args_c=args_c or args, go=go,
                body=body, flops=flops, source=source)


def sdcz(base):
    return {p: p + base for p in 'sdcz'}


def plus(f, g):
    """The counts of a factorization F, then of the solve G, which a singular matrix
    (INFO > 0) skips."""
    return (f'{f[0]} + (*info == 0 ? {g[0]} : 0)', f'{f[1]} + (*info == 0 ? {g[1]} : 0)')


TRI = 'n_*(n_ + 1)/2'


def job(arg, c):
    """C: the CHARACTER argument ARG is C (either case)."""
    return f"(*{arg} == '{c}' || *{arg} == '{c.lower()}')"


def svd(novec, full):
    """Half the Golub-Reinsch SVD estimate (fm and fa each: real work = the estimate, complex
    = 4 times it), mx >= mn: values 4 mx mn^2 - 4/3 mn^3; a full U or VT 4 mx^2 mn +
    8 mx mn^2 + 9 mn^3; thin vectors 14 mx mn^2 + 8 mn^3."""
    return (f'({novec} ? 4*mx*mn*mn - 4*mn*mn*mn/3 : {full} ? 4*mx*mx*mn + 8*mx*mn*mn + '
            f'9*mn*mn*mn : 14*mx*mn*mn + 8*mn*mn*mn) / 2')


# syev, syevd: one triangle read; the eigenvectors (JOBZ = V) or the destroyed triangle
# written, and N eigenvalues
EIG_BODY = f'in = {TRI}; out = VECTORS ? n_*n_ : {TRI}; reals = n_;'
GESVD_NOVEC = f"{job('jobu', 'N')} && {job('jobvt', 'N')}"
GESVD_FULL = f"({job('jobu', 'A')} || {job('jobvt', 'A')})"
FAMILIES = {
    'gesv': fam('A X = B by LU: getrf(N, N) + getrs(N, NRHS)', sdcz('gesv'), GESV,
                'n_ > 0', 'in = n_*n_ + n_*r_; out = n_*n_ + n_*r_; ints = n_;',
                plus(F_GETRF_SQ, F_GETRS), 'LAWN 41 xGETRF + xGETRS'),
    'getrf': fam('LU of an M x N matrix with partial pivoting', sdcz('getrf'), GETRF,
                 'm_ > 0 && n_ > 0', 'in = m_*n_; out = m_*n_; ints = m_ < n_ ? m_ : n_;',
                 F_GETRF, 'LAWN 41 xGETRF (m < n: its mirror, as LAPACK++)'),
    'getrs': fam('A X = B from getrf\'s LU: two triangular solves of N x N, NRHS columns',
                 sdcz('getrs'), GETRS, 'n_ > 0 && r_ > 0',
                 'in = n_*n_ + n_*r_; out = n_*r_; ints_in = n_;', F_GETRS, 'LAWN 41 xGETRS'),
    'getri': fam('inverse from getrf\'s LU; LWORK = -1 asks the workspace size only',
                 sdcz('getri'), GETRI, 'n_ > 0 && !query',
                 'in = n_*n_; out = n_*n_; ints_in = n_;',
                 ('2*n_*n_*n_/3 + 0.5*n_*n_ + 5*n_/6', '2*n_*n_*n_/3 - 1.5*n_*n_ + 5*n_/6'),
                 'LAWN 41 xGETRI'),
    'potrf': fam('Cholesky factor of one triangle of an N x N matrix', sdcz('potrf'), POTRF,
                 'n_ > 0', f'in = {TRI}; out = {TRI};', F_POTRF, 'LAWN 41 xPOTRF'),
    'potrs': fam('A X = B from potrf\'s factor, NRHS columns', sdcz('potrs'), POTRS,
                 'n_ > 0 && r_ > 0', f'in = {TRI} + n_*r_; out = n_*r_;', F_POTRS,
                 'LAWN 41 xPOTRS'),
    'posv': fam('A X = B by Cholesky: potrf(N) + potrs(N, NRHS)', sdcz('posv'), POSV,
                'n_ > 0', f'in = {TRI} + n_*r_; out = {TRI} + n_*r_;',
                plus(F_POTRF, F_POTRS), 'LAWN 41 xPOTRF + xPOTRS'),
    'geqrf': fam('QR of an M x N matrix (R and the reflectors in A, tau)', sdcz('geqrf'),
                 GEQRF, 'm_ > 0 && n_ > 0 && !query',
                 'in = m_*n_; out = m_*n_ + (m_ < n_ ? m_ : n_);', F_GEQRF, 'LAWN 41 xGEQRF'),
    'orgqr': fam('the M x N matrix Q of K reflectors (geqrf\'s)',
                 {'s': 'sorgqr', 'd': 'dorgqr', 'c': 'cungqr', 'z': 'zungqr'}, ORGQR,
                 'm_ > 0 && n_ > 0 && !query', 'in = m_*k_ + k_; out = m_*n_;',
                 ('2*m_*n_*k_ - (m_ + n_)*k_*k_ + 2*k_*k_*k_/3 + 2*n_*k_ - k_*k_ - 5*k_/3',
                  '2*m_*n_*k_ - (m_ + n_)*k_*k_ + 2*k_*k_*k_/3 + n_*k_ - m_*k_ + k_/3'),
                 'LAWN 41 xORGQR/xUNGQR'),
    'gels': fam('least squares by QR (M >= N) or LQ: ESTIMATE = geqrf(max, min) + '
                'applying Q to NRHS columns + a triangular solve', sdcz('gels'), GELS,
                'm_ > 0 && n_ > 0 && !query',
                'double lb = NOTRANS ? m_ : n_;\n'
                'in = m_*n_ + lb*r_; out = m_*n_ + mx*r_;',
                ('(mx > mn ? mx*mn*mn - mn*mn*mn/3 + mx*mn + 0.5*mn*mn + 23*mn/6 '
                 ': mn*mn*mn - mn*mn*mn/3 + 2*mn*mn - 0.5*mn*mn + 23*mn/6) '
                 '+ r_*(2*mx*mn - mn*mn/2)',
                 '(mx > mn ? mx*mn*mn - mn*mn*mn/3 + 0.5*mn*mn + 5*mn/6 '
                 ': mn*mn*mn - mn*mn*mn/3 + mn*mn - 0.5*mn*mn + 5*mn/6) '
                 '+ r_*(2*mx*mn - mn*mn/2)'),
                'estimate: LAWN 41 xGEQRF + xORMQR + xTRSM, leading terms'),
    'syev': fam('eigenvalues (JOBZ = N) or eigenpairs (V) of a symmetric/Hermitian N x N '
                'matrix by QR iteration: ESTIMATE 4/3 N^3 (values), 9 N^3 (vectors)',
                {'s': 'ssyev', 'd': 'dsyev', 'c': 'cheev', 'z': 'zheev'}, SYEV,
                'n_ > 0 && !query', EIG_BODY,
                ('VECTORS ? 4.5*n_*n_*n_ : 2*n_*n_*n_/3', 'VECTORS ? 4.5*n_*n_*n_ : 2*n_*n_*n_/3'),
                'estimate: Golub and Van Loan, Matrix Computations, 3rd ed., section 8.3.3 '
                '(symmetric QR: 4/3 n^3, 9 n^3 with Q accumulated)', args_c=HEEV),
    'syevd': fam('as syev, by divide and conquer: ESTIMATE 4/3 N^3 (values), 14/3 N^3 '
                 '(vectors: reduction, divide and conquer, back-transformation)',
                 {'s': 'ssyevd', 'd': 'dsyevd', 'c': 'cheevd', 'z': 'zheevd'}, SYEVD,
                 'n_ > 0 && !query', EIG_BODY,
                 ('VECTORS ? 7*n_*n_*n_/3 : 2*n_*n_*n_/3', 'VECTORS ? 7*n_*n_*n_/3 : 2*n_*n_*n_/3'),
                 'estimate: xSYTRD 4/3 n^3 and xORMTR 2 n^3 (LAWN 41), xSTEDC at most '
                 '4/3 n^3 (Demmel, Applied Numerical Linear Algebra, section 5.3.3)', args_c=HEEVD),
    'gesvd': fam('singular values (and vectors) of an M x N matrix: ESTIMATE (Golub-Reinsch, '
                 'mx >= mn): values 4 mx mn^2 - 4/3 mn^3; thin vectors 14 mx mn^2 + 8 mn^3; '
                 'a full U or VT (A) 4 mx^2 mn + 8 mx mn^2 + 9 mn^3',
                 sdcz('gesvd'), GESVD, 'm_ > 0 && n_ > 0 && !query',
                 f"double mu = {job('jobu', 'A')} ? m_ : {job('jobu', 'S')} ? mn : 0;\n"
                 f"double nv = {job('jobvt', 'A')} ? n_ : {job('jobvt', 'S')} ? mn : 0;\n"
                 'in = m_*n_; out = m_*n_ + m_*mu + nv*n_; reals = mn;',
                 (svd(GESVD_NOVEC, GESVD_FULL), svd(GESVD_NOVEC, GESVD_FULL)),
                 'estimate: Golub and Van Loan, Matrix Computations, 3rd ed., section 8.6.3',
                 args_c=GESVD_C),
    'gesdd': fam('as gesvd, by divide and conquer (JOBZ = N, O, S or A): the same ESTIMATE',
                 sdcz('gesdd'), GESDD, 'm_ > 0 && n_ > 0 && !query',
                 f"double mu = {job('jobz', 'A')} ? m_ : {job('jobz', 'S')} ? mn : "
                 f"{job('jobz', 'O')} && m_ < n_ ? m_ : 0;\n"
                 f"double nv = {job('jobz', 'A')} ? n_ : {job('jobz', 'S')} ? mn : "
                 f"{job('jobz', 'O')} && m_ >= n_ ? n_ : 0;\n"
                 'in = m_*n_; out = m_*n_ + m_*mu + nv*n_; reals = mn;',
                 (svd(job('jobz', 'N'), job('jobz', 'A')), svd(job('jobz', 'N'), job('jobz', 'A'))),
                 'estimate: Golub and Van Loan, Matrix Computations, 3rd ed., section 8.6.3 '
                 '(divide and conquer is usually faster)', args_c=GESDD_C),
    'trtrs': fam('A X = B, A N x N triangular, NRHS columns (a triangular solve); a zero '
                 'on the diagonal (INFO > 0) stops it before the solve',
                 sdcz('trtrs'), TRTRS, '*info == 0 && n_ > 0',
                 f'in = {TRI} + n_*r_; out = n_*r_;',
                 ('r_*n_*(n_ + 1)/2', 'r_*n_*(n_ - 1)/2'), 'LAWN 41 xTRSM (left side)'),
    'sytrf': fam('Bunch-Kaufman factor of one triangle of a symmetric N x N matrix',
                 sdcz('sytrf'), SYTRF, 'n_ > 0 && !query',
                 f'in = {TRI}; out = {TRI}; ints = n_;',
                 ('n_*n_*n_/6 + 0.5*n_*n_ + 10*n_/3', 'n_*n_*n_/6 - n_/6'), 'LAWN 41 xSYTRF'),
    'hetrf': fam('as sytrf, Hermitian', {'c': 'chetrf', 'z': 'zhetrf'}, SYTRF,
                 'n_ > 0 && !query', f'in = {TRI}; out = {TRI}; ints = n_;',
                 ('n_*n_*n_/6 + 0.5*n_*n_ + 10*n_/3', 'n_*n_*n_/6 - n_/6'), 'LAWN 41 xHETRF'),
    'geev': fam('eigenvalues (and eigenvectors) of a general N x N matrix by the QR '
                'algorithm: ESTIMATE 10 N^3 (values), 25 N^3 (vectors); the eigenvalues are '
                '2N reals (wr and wi, or N complex w)', sdcz('geev'), GEEV,
                'n_ > 0 && !query',
                f"in = n_*n_; out = n_*n_ * (1 + {job('jobvl', 'V')} + {job('jobvr', 'V')}); "
                'reals = 2*n_;',
                (f"({job('jobvl', 'V')} || {job('jobvr', 'V')} ? 12.5 : 5) * n_*n_*n_",
                 f"({job('jobvl', 'V')} || {job('jobvr', 'V')} ? 12.5 : 5) * n_*n_*n_"),
                'estimate: Golub and Van Loan, Matrix Computations, 3rd ed., section 7.5.6 '
                '(Hessenberg reduction and Francis QR)', args_c=GEEV_C),
}

CTYPES = {'I': 'const int *', 'C': 'const char *', 'A': '{T} *', 'cA': 'const {T} *',
          'T': '{T} *', 'R': '{R} *', 'W': '{T} *', 'RW': '{R} *', 'IP': 'int *',
          'cIP': 'const int *', 'IW': 'int *', 'O': 'int *'}



def parse(args):
    return [tuple(a.split(':')) for a in args.split()]


def prototype(routine, args, p):
    t, r, _ = TYPES[p]
    parts = [CTYPES[k].format(T=t, R=r) + name for name, k in args]
    parts += [f'size_t {name}_len' for name, k in args if k == 'C']
    text = f'void {routine}_(' + ', '.join(parts) + ');'
    return wrap_c(text)


def wrap_c(text, width=96):
    """TEXT broken after commas into lines of WIDTH at most, continuations indented by a tab."""
    lines, cur = [], ''
    for piece in text.split(', '):
        cand = piece if not cur else cur + ', ' + piece
        if len(cand) + 1 > width and cur:
            lines.append(cur + ',')
            cur = '\t' + piece
        else:
            cur = cand
    lines.append(cur)
    return '\n'.join(lines)


H_HEAD = '''\
/*
 * lapack.h - C prototypes of the LAPACK routines of the lapack profile (profile.toml), as
 * the reference LAPACK 3.11 (/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3, package
 * liblapack3) and OpenBLAS (libopenblas.so.0) export them.  GENERATED by gen_defs.py.
 * The conventions are blas.h's (../blas/blas.h): gfortran, everything by reference, 32-bit
 * INTEGER, const on what the routine only reads, one hidden size_t length per CHARACTER
 * argument after the visible ones, in order.  lapack.defs reads the arguments by these
 * names (the names of the LAPACK documentation, in lower case).
 */
#ifndef DYL_PROFILE_LAPACK_H
#define DYL_PROFILE_LAPACK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
'''
H_TAIL = '''
#ifdef __cplusplus
}
#endif
#endif /* DYL_PROFILE_LAPACK_H */
'''


def header():
    out = [H_HEAD]
    for name, f in FAMILIES.items():
        out.append('\n' + BLAS.comment(f'{name}: {f["what"]}', ''))
        for p, routine in f['routines'].items():
            args = parse(f['args_c'] if TYPES[p][2] else f['args'])
            out.append(prototype(routine, args, p))
    out.append(H_TAIL)
    return '\n'.join(out)


def dims(args, uses_mn):
    """Locals m_, n_, k_, r_ (NRHS) as doubles, from the INTEGER dimensions present; mn and
    mx (min and max of M and N) when USES_MN."""
    names = [n for n, _ in args]
    lines = [f'double {n}_ = *{n} > 0 ? *{n} : 0;' for n in ('m', 'n', 'k') if n in names]
    if 'nrhs' in names:
        lines.append('double r_ = *nrhs > 0 ? *nrhs : 0;')
    if 'm' in names and uses_mn:
        lines.append('double mn = m_ < n_ ? m_ : n_, mx = m_ < n_ ? n_ : m_;')
    if 'lwork' in names:
        lines.append('int query = *lwork == -1;')
    return lines


def expand(code):
    """The few macros of the bodies, as C."""
    return (code.replace('NOTRANS', "(*trans == 'N' || *trans == 'n')")
            .replace('VECTORS', "(*jobz == 'V' || *jobz == 'v')"))


def block(name, f, p, routine):
    t, r, cplx = TYPES[p]
    args = parse(f['args_c'] if cplx else f['args'])
    uses_mn = any(w in f['body'] + ''.join(f['flops']) for w in ('mn', 'mx'))
    lines = dims(args, uses_mn)
    lines.append('double in = 0, out = 0, ints = 0, ints_in = 0, reals = 0, fm = 0, fa = 0;')
    # INFO < 0: an argument error, nothing done (a family may ask INFO == 0 itself)
    go = f['go'] if f['go'].startswith('*info') else f'*info >= 0 && {f["go"]}'
    lines.append(f'if ({go}) {{')
    body = expand(f['body'])
    lines += ['\t' + b for b in body.split('\n')]
    lines.append(f'\tfm = {expand(f["flops"][0])};')
    lines.append(f'\tfa = {expand(f["flops"][1])};')
    lines.append('}')
    lines.append(f'input_size = (int64_t)(in * sizeof({t}) + ints_in * sizeof(int));')
    lines.append(f'output_size = (int64_t)(out * sizeof({t}) + reals * sizeof({r}) '
                 '+ ints * sizeof(int));')
    w = '6 * fm + 2 * fa' if cplx else 'fm + fa'
    lines.append(f'work_size = {w} > 0 ? (int64_t)({w} + 0.5) : 0;')
    return BLAS.postfix(routine + '_', f'{name} ({t}): {f["what"]} [{f["source"]}]', lines)


DEFS_HEAD = '''\
// lapack.defs - the work (floating-point operations) and the bytes read and written of the
// LAPACK routines of lapack.h, precisions s, d, c, z.  GENERATED by gen_defs.py: edit that
// script and run it, never this file.  README.md says where each formula comes from.
//
// work = multiplications + additions of LAWN 41 with their lower-order terms, rounded to
// an integer; complex: 6 flops a multiplication and 2 an addition (a complex
// multiply-add is 8).  The iterative drivers (gels, syev, syevd, gesvd, gesdd) have
// published ESTIMATES, as the comments say.  Bytes: the elements of the matrices the
// routine reads and writes (M x N of an lda-strided matrix, one triangle of a symmetric
// one, pivots as int, eigen and singular values as reals), never the workspace.  Nothing
// at all for a workspace query (LWORK = -1), an argument error (INFO < 0) or an empty
// matrix.
'''


def defs():
    parts = [DEFS_HEAD]
    for name, f in FAMILIES.items():
        for p, routine in f['routines'].items():
            parts.append(block(name, f, p, routine))
    return '\n'.join(parts)


def main():
    want = {OUT_H: header(), OUT_DEFS: defs()}
    if '--check' in sys.argv[1:]:
        return 0 if all(open(p).read() == t for p, t in want.items()) else 1
    for path, text in want.items():
        with open(path, 'w') as f:
            f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
