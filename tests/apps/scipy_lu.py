"""scipy_lu.py N - scipy.linalg.lu_factor of a random N x N matrix (seeded); prints a
checksum of the factors and the pivots."""
import sys

import numpy as np
import scipy.linalg

n = int(sys.argv[1])
a = np.random.default_rng(1).random((n, n))
lu, piv = scipy.linalg.lu_factor(a)
print(round(float(np.abs(lu).sum()), 6), int(piv.sum()))
