#!/usr/bin/env bash
# make demo: wrap reference BLAS, run a matrix-multiply app under the wrapper, and
# predict its speedup with dgemm_ on an (illustrative) PCIe-attached accelerator; then
# the same in two commands (dyl record, dyl report) on an H100's published figures.
set -euo pipefail
cd "$(dirname "$0")/.."
BLAS=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3   # reference BLAS, by path (package libblas3)
D=demo
mkdir -p $D

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "1. build the example app (it calls dgemm_ through the Fortran interface)"
echo "cc -O2 -o $D/matmul_mix examples/apps/matmul_mix.c $BLAS"
cc -O2 -o $D/matmul_mix examples/apps/matmul_mix.c $BLAS -Wl,-rpath,"$(dirname $BLAS)"

step "2. generate and build a wrapper for dgemm_ (bytes in/out from examples/blas.defs)"
echo "bin/dyliberator --lib $BLAS --header examples/blas.h --defs examples/blas.defs -f dgemm_ -o $D/wrap.so"
bin/dyliberator --lib $BLAS --header examples/blas.h --defs examples/blas.defs -f dgemm_ -o $D/wrap.so

step "3. run the unmodified app, plain and under the wrapper"
echo "$D/matmul_mix 2000 400"
/usr/bin/time -f "  (%e s plain)" $D/matmul_mix 2000 400
echo "LD_PRELOAD=$D/wrap.so DYL_TRACE=$D/trace.csv $D/matmul_mix 2000 400"
LD_PRELOAD=$D/wrap.so DYL_TRACE=$D/trace.csv /usr/bin/time -f "  (%e s wrapped)" $D/matmul_mix 2000 400
echo "  trace: $D/trace.csv, $(grep -vc '^#' $D/trace.csv) lines; the first rows:"
awk '!/^#/ && n++ < 4 { print "    " $0 }' $D/trace.csv

step "4. predict the speedup (model: models/example-pcie-gpu-dgemm.csv, illustrative)"
echo "bin/dyl-speedup $D/trace.csv models/example-pcie-gpu-dgemm.csv"
bin/dyl-speedup $D/trace.csv models/example-pcie-gpu-dgemm.csv
echo
echo "  and taking the accelerator only where the model says it is faster:"
echo "bin/dyl-speedup --only-faster $D/trace.csv models/example-pcie-gpu-dgemm.csv"
bin/dyl-speedup --only-faster $D/trace.csv models/example-pcie-gpu-dgemm.csv

step "5. the same in two commands: dyl record, then dyl report on a real device's figures"
echo "bin/dyl record -o $D/dyl.data -- $D/matmul_mix 2000 400"
bin/dyl record -o $D/dyl.data -- $D/matmul_mix 2000 400
echo "bin/dyl report $D/dyl.data --device nvidia-h100-pcie --html $D/report.html"
bin/dyl report $D/dyl.data --device nvidia-h100-pcie --html $D/report.html
echo
echo "  the page: $D/report.html (open it in a browser; it loads nothing from the network)"
