#!/bin/sh
# A worked example of the residency prediction on an unmodified numpy program (issue 24):
# examples/numpy_power.py runs y = A @ x (cblas_dgemv in the BLAS numpy links), reads y
# (its norm) and makes a new x, STEPS times, on an N x N matrix.  Which bytes must a port
# move?  Needs python3-numpy.
# Usage: examples/residency_numpy.sh [N [STEPS]]   (from the repository root, after make)
set -e
N=${1:-2048}
STEPS=${2:-100}
O=build/residency-numpy
mkdir -p $O
BLAS=$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3)   # Debian's alternatives: numpy's BLAS
# std.flow: which call or the program produced each byte; host_reads=on: which outputs the
# program reads; std.diff: which inputs it rewrites; resid-real.defs: work = bytes of A, x, y
bin/dyliberator -q --lib "$BLAS" --header /usr/include/x86_64-linux-gnu/cblas.h \
    --defs examples/resid-real.defs -f cblas_dgemv -g std.flow:host_reads=on -g std.diff \
    -o $O/wrap.so
OPENBLAS_NUM_THREADS=1 LD_PRELOAD=$O/wrap.so DYL_TRACE=$O/power.csv \
    /usr/bin/python3 examples/numpy_power.py "$N" "$STEPS"
# compute-only model of the kernel (imagined), and the link: the transfers come from the flow
bin/dyl-speedup $O/power.csv models/example-gpu-cblas-dgemv-compute.csv models/link-pcie4-x16.csv
