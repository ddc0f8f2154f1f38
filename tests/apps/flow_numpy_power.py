"""flow_numpy_power.py - a power iteration in numpy, for dyl-flow's real-library test
(tests/tools/test_flow_real.py, skipped without python3-numpy): A @ x is cblas_dgemv and
y @ y cblas_ddot in the BLAS numpy links (libblas.so.3).  The matrix is made once; every
step reads it whole.

    python3 flow_numpy_power.py N STEPS
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
