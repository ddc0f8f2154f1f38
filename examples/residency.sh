#!/bin/sh
# The README's second worked example (issue 24): which bytes a port of a power iteration
# must move, and what that does to the prediction.  bench/residency/progs/power_plain.c
# runs y = A x (dgemv_) then reads y and writes x, 100 times, on a 2048 x 2048 matrix.
# Usage: examples/residency.sh [N [STEPS]]   (from the repository root, after make)
set -e
N=${1:-2048}
STEPS=${2:-100}
O=build/residency-example
mkdir -p $O
make -s -C bench/residency/progs O="$(pwd)/$O" "$(pwd)/$O/power_plain"
# std.flow: which call or the program produced each byte; host_reads=on: which outputs
# the program reads; std.diff: which inputs it rewrites between calls
bin/dyliberator -q --lib /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 --header examples/blas.h \
    --defs examples/resid-real.defs -f dgemv_ -g std.flow:host_reads=on -g std.diff -o $O/wrap.so
LD_PRELOAD=$O/wrap.so DYL_TRACE=$O/power.csv $O/power_plain "$N" "$STEPS"
# compute-only model of the kernel, and a link model: the transfers come from the flow
bin/dyl-speedup $O/power.csv models/example-gpu-dgemv-compute.csv models/link-pcie4-x16.csv
bin/dyl-flow $O/power.csv
