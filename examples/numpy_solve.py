"""numpy_solve.py - numpy.linalg.solve, unmodified numpy code (bench/residency/real.sh):
each step solves A x = b for a new b and reads x.  numpy's solve copies A and b into
Fortran-order buffers of its own and calls LAPACK's dgesv_; the reference LAPACK's dgesv_
calls dgetrf_ and dgetrs_ through the PLT, so a wrapper of those two sees them as the
outermost calls (OpenBLAS's dgesv_ calls its own getrf/getrs directly: run this with
LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/lapack:/usr/lib/x86_64-linux-gnu/blas to get
the reference one).

    python3 numpy_solve.py N STEPS
"""
import sys

import numpy as np

n, steps = int(sys.argv[1]), int(sys.argv[2])
i, j = np.indices((n, n))
a = 1.0 / (1 + (i + 3 * j) % 11) + 2.0 * n * (i == j)
total = 0.0
for s in range(steps):
    b = 1.0 + (np.arange(n) + s) % 5
    x = np.linalg.solve(a, b)
    total += float(x.sum())
print(f'{total:.6f}')
