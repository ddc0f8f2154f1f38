"""numpy_power.py - a power iteration in numpy, unmodified numpy code: the README's second
worked example (examples/residency_numpy.sh) and bench/residency/real.sh.  A @ x is
cblas_dgemv in the BLAS numpy links (libblas.so.3, by Debian's alternatives); the norm is
numpy's own (y @ y is cblas_ddot).  The matrix is made once; every step reads it whole,
and the program reads y (the norm) and writes a new x.

    python3 numpy_power.py N STEPS
"""
import sys

import numpy as np

n, steps = int(sys.argv[1]), int(sys.argv[2])
a = np.fromfunction(lambda i, j: 1.0 / (1 + (i * n + j) % 7), (n, n))
x = np.ones(n)
norm = 0.0
for _ in range(steps):
    y = a @ x
    norm = float(np.sqrt(y @ y))
    x = y / norm
print(f'{norm:.6f}')
