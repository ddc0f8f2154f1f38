"""scipy_lu.py - factor once, solve many, in unmodified scipy code (issue 33): a program
people run, through scipy's own LAPACK bindings (f2py), not numpy's.

scipy.linalg.lu_factor calls dgetrf_ on a Fortran-order copy of A (N x N doubles); each of
STEPS steps makes a new right-hand side b and lu_solve calls dgetrs_ on it, and the
program reads x (its sum).  A port keeps the LU factors and the pivots on the
accelerator; for N 1000 and 20 steps it moves A once and each b (8,000,000 + 20 x 8,000
= 8,160,000 B, plus the scalars f2py passes by reference) and brings back each x and the
pivots (20 x 8,000 + 4,000 = 164,000 B).

Under one Python, numpy's OpenBLAS and scipy's LAPACK are separate libraries loaded
RTLD_LOCAL: with LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/lapack, scipy binds dgetrf_ to
the reference LAPACK.  A wrapper must forward each call to the definition its caller
would have reached.

    python3 scipy_lu.py N STEPS
"""
import sys

import numpy as np
import scipy.linalg

n, steps = int(sys.argv[1]), int(sys.argv[2])
i, j = np.indices((n, n))
a = np.asfortranarray(1.0 / (1 + (i + 3 * j) % 11) + 2.0 * n * (i == j))
lu, piv = scipy.linalg.lu_factor(a, overwrite_a=True, check_finite=False)
total = 0.0
for s in range(steps):
    b = 1.0 + (np.arange(n) + s) % 5
    x = scipy.linalg.lu_solve((lu, piv), b, check_finite=False)
    total += float(x.sum())
print(f'{total:.6f}')
