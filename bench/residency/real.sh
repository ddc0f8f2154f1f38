#!/bin/bash
# bench/residency/real.sh - the residency prediction on real programs (issue 24, "Real
# programs"), and what host-read tracking costs there.
#
#   bench/residency/real.sh [--rounds R] [--out DIR] [--small]
#
# Four unmodified programs, each traced under -g std.flow:host_reads=on -g std.diff and
# predicted with a compute-only model (models/example-gpu-*-compute.csv: imagined) and
# the PCIe 4.0 x16 link (models/link-pcie4-x16.csv); printed: the exact, optimistic and
# pessimistic figures (doc/residency.md).
#   numpy power  examples/numpy_power.py: y = A @ x (cblas_dgemv of the BLAS numpy links,
#                libblas.so.3 by Debian's alternatives; OPENBLAS_NUM_THREADS=1), N 2048,
#                100 steps
#   LU           bench/residency/real_lu.c: dgetrf_ once, then dgetrs_ for 20 right-hand
#                sides (reference LAPACK), N 1000
#   numpy solve  examples/numpy_solve.py: numpy.linalg.solve (dgesv_) 5 times, N 1000,
#                over the reference LAPACK (LD_LIBRARY_PATH), whose dgesv_ calls dgetrf_
#                and dgetrs_ through the PLT: those two are wrapped
#   cjpeg        cjpeg compressing a 2048 x 2048 PPM (bench/residency/real_ppm.c), with
#                examples/jpeg-resid.defs: the negative case
# --small: sizes for a quick look (N 256, 200, 200; a 256 x 256 image).  The numpy ones
# are skipped without python3-numpy, cjpeg without libjpeg-turbo-progs.
# With --rounds R (R > 0): R interleaved rounds of each program plain, under the same
# wrapper without host reads, and with them; medians [ranges] of CPU (user + system)
# and wall seconds and of minor faults (/usr/bin/time), and the HOST_READ records.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/build/resid-real
ROUNDS=0
SMALL=0
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--small) SMALL=1; shift ;;
	*) echo "usage: bench/residency/real.sh [--rounds R] [--out DIR] [--small]" >&2; exit 2 ;;
	esac
done
if [ $SMALL = 1 ]; then
	NP="256 10" LU="200 5" SV="200 3" IMG="256 256"
else
	NP="2048 100" LU="1000 20" SV="1000 5" IMG="2048 2048"
fi
make -s -C "$ROOT" all
mkdir -p "$OUT"
cd "$OUT"
DYL="$ROOT/bin/dyliberator -q"
SPEEDUP=$ROOT/bin/dyl-speedup
PY=/usr/bin/python3
LINK=$ROOT/models/link-pcie4-x16.csv
REFDIR=/usr/lib/x86_64-linux-gnu
LAPACK=$REFDIR/lapack/liblapack.so.3
BLAS=$REFDIR/blas/libblas.so.3
ACTIVE_BLAS=$(readlink -f $REFDIR/libblas.so.3)	# what numpy loads
export OPENBLAS_NUM_THREADS=1
has_numpy() { $PY -c 'import numpy' 2>/dev/null; }

cc -O2 -g -o real_lu "$ROOT/bench/residency/real_lu.c" $LAPACK $BLAS -Wl,-rpath,$REFDIR/lapack:$REFDIR/blas
cc -O2 -o real_ppm "$ROOT/bench/residency/real_ppm.c"
./real_ppm $IMG > img.ppm
for hr in nohr hr; do
	g=std.flow; [ $hr = hr ] && g=std.flow:host_reads=on
	$DYL --lib "$ACTIVE_BLAS" --header /usr/include/x86_64-linux-gnu/cblas.h \
		--defs "$ROOT/examples/resid-real.defs" -f cblas_dgemv -g $g -g std.diff -o np-$hr.so
	$DYL --lib $LAPACK --header "$ROOT/examples/lapack.h" --lib $BLAS \
		--defs "$ROOT/examples/resid-real.defs" -f dgetrf_ -f dgetrs_ -g $g -g std.diff -o lu-$hr.so
	if command -v cjpeg >/dev/null; then
		$DYL --lib libjpeg.so.62 --app "$(command -v cjpeg)" --defs "$ROOT/examples/jpeg-resid.defs" \
			-f jpeg_start_compress -f jpeg_write_scanlines -f jpeg_finish_compress \
			-g $g -g std.diff -o jp-$hr.so
	fi
done

# name|wrapper|models|command
cases=()
has_numpy && cases+=("numpy-power|np|example-gpu-cblas-dgemv-compute.csv|$PY $ROOT/examples/numpy_power.py $NP")
cases+=("lu|lu|example-gpu-lu-compute.csv|./real_lu $LU")
has_numpy && cases+=("numpy-solve|lu|example-gpu-lu-compute.csv|env LD_LIBRARY_PATH=$REFDIR/lapack:$REFDIR/blas $PY $ROOT/examples/numpy_solve.py $SV")
command -v cjpeg >/dev/null && cases+=("cjpeg|jp|example-gpu-jpeg-compute.csv|cjpeg -outfile out.jpg img.ppm")

echo "## the three figures (link: models/link-pcie4-x16.csv; compute: models/<model>, imagined)"
for c in "${cases[@]}"; do
	IFS='|' read -r name w model cmd <<<"$c"
	$cmd > plain.out
	[ "$name" = cjpeg ] && cp out.jpg plain.jpg
	rm -f $name.csv $name.csv.flow
	env LD_PRELOAD=./$w-hr.so DYL_TRACE=$name.csv $cmd > $name.out
	cmp -s plain.out $name.out || { echo "$name: the output differs under the wrapper" >&2; exit 1; }
	[ "$name" = cjpeg ] && { cmp -s plain.jpg out.jpg || { echo "cjpeg: out.jpg differs" >&2; exit 1; }; }
	echo
	echo "\$ LD_PRELOAD=$w-hr.so DYL_TRACE=$name.csv $cmd"
	echo "\$ dyl-speedup $name.csv models/$model models/link-pcie4-x16.csv"
	$SPEEDUP $name.csv "$ROOT/models/$model" $LINK --json > $name.json
	$PY "$ROOT/bench/residency/real_figures.py" "$name" < $name.json
done
[ "$ROUNDS" -gt 0 ] || exit 0

# --- cost: plain, the wrapper without host reads, with them ------------------------------
one() {	# one PRELOAD COMMAND...: "wall cpu minor-faults" of one run (PRELOAD '' for none)
	local pre=$1; shift
	rm -f t.csv t.csv.flow
	if [ -n "$pre" ]; then
		env LD_PRELOAD=./$pre DYL_TRACE=t.csv /usr/bin/time -f '%e %U %S %R' -o time.txt "$@" >/dev/null
	else
		/usr/bin/time -f '%e %U %S %R' -o time.txt "$@" >/dev/null
	fi
	awk '{ printf "%.3f %.3f %d\n", $1, $2 + $3, $4 }' time.txt
}
stats() {	# median [min, max] of the numbers on stdin
	sort -n | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
		printf "%g [%g, %g]", m, v[1], v[NR] }'
}
declare -A W C F
for r in $(seq "$ROUNDS"); do
	for c in "${cases[@]}"; do
		IFS='|' read -r name w model cmd <<<"$c"
		for v in plain nohr hr; do
			pre=''; [ $v != plain ] && pre=$w-$v.so
			read -r wall cpu flt < <(one "$pre" $cmd)
			W[$name,$v]+="$wall "; C[$name,$v]+="$cpu "; F[$name,$v]+="$flt "
		done
	done
done
col() { tr ' ' '\n' <<<"$1" | grep . | stats; }
echo
echo "## cost of host reads: median [range] of $ROUNDS interleaved rounds (OPENBLAS_NUM_THREADS=1)"
echo "| program | | plain | wrapper, no host reads | wrapper, host_reads=on |"
echo "| --- | --- | ---: | ---: | ---: |"
for c in "${cases[@]}"; do
	IFS='|' read -r name w model cmd <<<"$c"
	echo "| $name | CPU s | $(col "${C[$name,plain]}") | $(col "${C[$name,nohr]}") | $(col "${C[$name,hr]}") |"
	echo "| | wall s | $(col "${W[$name,plain]}") | $(col "${W[$name,nohr]}") | $(col "${W[$name,hr]}") |"
	echo "| | minor faults | $(col "${F[$name,plain]}") | $(col "${F[$name,nohr]}") | $(col "${F[$name,hr]}") |"
	hr=$($PY -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j.get("host_read_records",0), j.get("assumed_read_records",0))' $name.json)
	echo "| | HOST_READ records (seen + assumed) | | | $(awk '{ print $1 - $2 " + " $2 }' <<<"$hr") |"
	# the protection faults themselves (not minor faults: the kernel counts those only
	# when it maps a page), from strace, one run apart from the timed ones
	segv=-
	if command -v strace >/dev/null; then
		rm -f t.csv t.csv.flow
		env LD_PRELOAD=./$w-hr.so DYL_TRACE=t.csv strace -f -qq -e trace=none -e signal=SIGSEGV \
			-o segv.txt $cmd >/dev/null 2>&1 && segv=$(grep -c SIGSEGV segv.txt || true)
	fi
	echo "| | SIGSEGV (strace) | | | $segv |"
done
