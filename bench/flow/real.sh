#!/bin/bash
# bench/flow/real.sh - dyl-flow on real libraries: the worked example of doc/flow.md and
# what std.flow costs there.
#
#   bench/flow/real.sh [--rounds R] [--out DIR]
#
# Builds the apps of examples/apps (flow_dgesv.c, flow_jpeg.c, flow_zlib.c) and
# tests/tools/flow_power.c, and wrappers for them (reference LAPACK and BLAS, libjpeg with
# examples/jpeg-flow.defs, zlib with examples/zlib.defs), in DIR (default build/flow-real).
# Prints each example's commands and dyl-flow's answers, and draws the graphs of the
# dgesv_ and power iteration runs into doc/img/flow-dgesv.svg and doc/img/flow-power.svg
# (Graphviz's dot).  With --rounds R (R > 0): each app at a larger size, R interleaved
# rounds of: plain, under a wrapper with std.regions, under one with std.flow; the
# medians (and ranges) of the process's CPU time (user + system, /usr/bin/time).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/build/flow-real
ROUNDS=0
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	*) echo "usage: bench/flow/real.sh [--rounds R] [--out DIR]" >&2; exit 2 ;;
	esac
done
make -s -C "$ROOT" all
mkdir -p "$OUT" "$ROOT/doc/img"
cd "$OUT"
DYL="$ROOT/bin/dyliberator -q"
FLOW=$ROOT/bin/dyl-flow
LAPACK=/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3
BLAS=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3
RPATH=-Wl,-rpath,$(dirname $LAPACK):$(dirname $BLAS)

cc -O2 -g -o flow_dgesv "$ROOT/examples/apps/flow_dgesv.c" $LAPACK $BLAS $RPATH
cc -O2 -g -I"$ROOT/examples" -o power "$ROOT/tests/tools/flow_power.c" $BLAS $RPATH
cc -O2 -g -o flow_jpeg "$ROOT/examples/apps/flow_jpeg.c" -ljpeg
cc -O2 -g -o flow_zlib "$ROOT/examples/apps/flow_zlib.c" -lz
for g in regions flow; do
	extra=(); [ $g = flow ] && extra=(-g std.flow) || extra=(-g std.regions)
	$DYL --lib $LAPACK --header "$ROOT/examples/lapack.h" --lib $BLAS "${extra[@]}" -o lapack-$g.so
	$DYL --lib $BLAS --header "$ROOT/examples/blas.h" "${extra[@]}" -o blas-$g.so
	$DYL --lib libjpeg.so.62 --app ./flow_jpeg --defs "$ROOT/examples/jpeg-flow.defs" "${extra[@]}" -o jpeg-$g.so
	$DYL --lib libz.so.1 --app ./flow_zlib --defs "$ROOT/examples/zlib.defs" "${extra[@]}" -o zlib-$g.so
done
$DYL --lib $LAPACK --header "$ROOT/examples/lapack.h" --lib $BLAS -g std.flow -g std.diff -o lapack-diff.so

show() {	# show COMMAND...: the command, then what it printed
	echo "\$ $*"
	"$@"
	echo
}

echo "## dgesv_ (LAPACK over the reference BLAS), N = 40"
show env LD_PRELOAD=./lapack-flow.so DYL_TRACE=dgesv.csv ./flow_dgesv 40
show "$FLOW" dgesv.csv
show env LD_PRELOAD=./lapack-diff.so DYL_TRACE=dgesv-diff.csv ./flow_dgesv 40
show "$FLOW" dgesv-diff.csv
show "$FLOW" dgesv-diff.csv --objects
"$FLOW" dgesv-diff.csv --via-objects --threshold 100 --svg "$ROOT/doc/img/flow-dgesv.svg" >/dev/null
echo "## power iteration (reference BLAS), 64 x 64, 10 and 20 steps"
show env LD_PRELOAD=./blas-flow.so DYL_TRACE=power10.csv ./power 64 10
show "$FLOW" power10.csv
show env LD_PRELOAD=./blas-flow.so DYL_TRACE=power20.csv ./power 64 20
show "$FLOW" power20.csv
"$FLOW" power20.csv --via-objects --threshold 100 --svg "$ROOT/doc/img/flow-power.svg" >/dev/null
echo "## libjpeg (examples/jpeg-flow.defs), 64 x 48"
show env LD_PRELOAD=./jpeg-flow.so DYL_TRACE=jpeg.csv ./flow_jpeg 64 48 8
show "$FLOW" jpeg.csv
echo "## zlib (examples/zlib.defs), 100000 bytes in chunks of 4096"
show env LD_PRELOAD=./zlib-flow.so DYL_TRACE=zlib.csv ./flow_zlib 100000 4096
show "$FLOW" zlib.csv
echo "graphs: doc/img/flow-dgesv.svg doc/img/flow-power.svg"

[ "$ROUNDS" -gt 0 ] || exit 0

# --- cost: CPU seconds of the process, plain / std.regions / std.flow ----------------
cpu() {	# cpu PRELOAD COMMAND...: user + system seconds of one run (PRELOAD '' for none)
	local pre=$1; shift
	rm -f t.csv t.csv.flow
	if [ -n "$pre" ]; then
		env LD_PRELOAD=./$pre DYL_TRACE=t.csv /usr/bin/time -f '%U %S' -o time.txt "$@" >/dev/null
	else
		/usr/bin/time -f '%U %S' -o time.txt "$@" >/dev/null
	fi
	awk '{ printf "%.3f\n", $1 + $2 }' time.txt
}
stats() {	# median [min, max] of the numbers on stdin
	sort -n | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
		printf "%.3f [%.3f, %.3f]", m, v[1], v[NR] }'
}
declare -A T
# (power 64 1: one step, the per-process cost: TRACE.flow's names at exit)
cases=("dgesv|lapack|./flow_dgesv 1000" "power|blas|./power 1000 400" "power1|blas|./power 64 1"
       "jpeg|jpeg|./flow_jpeg 4096 3072 16" "zlib|zlib|./flow_zlib 50000000 65536")
for r in $(seq "$ROUNDS"); do
	for c in "${cases[@]}"; do
		IFS='|' read -r name lib cmd <<<"$c"
		T[$name,plain]+="$(cpu '' $cmd) "
		T[$name,regions]+="$(cpu $lib-regions.so $cmd) "
		T[$name,flow]+="$(cpu $lib-flow.so $cmd) "
	done
done
echo "## CPU seconds, median [range] of $ROUNDS interleaved rounds"
echo "| run | plain | std.regions | std.flow | calls (depth 0) |"
echo "| --- | ---: | ---: | ---: | ---: |"
for c in "${cases[@]}"; do
	IFS='|' read -r name lib cmd <<<"$c"
	rm -f t.csv t.csv.flow
	env LD_PRELOAD=./$lib-flow.so DYL_TRACE=t.csv $cmd >/dev/null
	calls=$(grep -v '^#' t.csv | awk -F, 'NR > 1 && $9 == 0' | wc -l)
	printf '| `%s` | %s | %s | %s | %s |\n' "$cmd" \
		"$(tr ' ' '\n' <<<"${T[$name,plain]}" | grep . | stats)" \
		"$(tr ' ' '\n' <<<"${T[$name,regions]}" | grep . | stats)" \
		"$(tr ' ' '\n' <<<"${T[$name,flow]}" | grep . | stats)" "$calls"
done
