#!/usr/bin/env bash
# What std.diff's typed look (typed=on: stale words in stack arrays of doubles not
# counted) costs per call, against typed=off: gemm_calls (bench/accuracy, built with -g)
# making N dgemm_ products on its three 24x24 stack arrays, two shapes in turn so that
# the arrays' unfilled parts change between calls (sscanf's and printf's frames).
#   bench/diff/typed.sh [ROUNDS] [N]      (defaults 7, 2000)
# Rounds interleave plain, typed=off and typed=on; the figure is the median over the
# rounds of the process's CPU time (user + system) per call, minus the plain run's.
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-7}
N=${2:-2000}
. ../lib.sh	# scratch, med, minus
scratch
BLAS=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3	# reference BLAS, by path
cc -O2 -g -o "$W/gemm_calls" ../accuracy/gemm_calls.c "$BLAS" -Wl,-rpath,"$(dirname "$BLAS")"
for t in on off; do
	"$ROOT/bin/dyliberator" -q --lib "$BLAS" --app "$W/gemm_calls" -g "std.diff:typed=$t" -o "$W/$t.so"
done
cases=()
for i in $(seq "$N"); do
	if ((i % 2)); then cases+=(stack:NN:16x16x16:1); else cases+=(stack:NT:12x20x8:0); fi
done
declare -A res
for r in $(seq "$ROUNDS"); do
	for c in plain off on; do
		if [ $c = plain ]; then pre=(); else pre=(env LD_PRELOAD="$W/$c.so" DYL_TRACE="$W/t.csv"); fi
		TIMEFORMAT='%3U %3S'
		t=$( { time "${pre[@]}" "$W/gemm_calls" "${cases[@]}" >/dev/null; } 2>&1 )
		res[$c]+="$(awk -v n="$N" '{printf "%.3f", ($1 + $2) * 1e6 / n}' <<<"$t") "
	done
done
plain=$(med 2 <<<"${res[plain]}")
echo "dgemm_ on stack arrays, $N calls, $ROUNDS rounds: CPU us per call, median (range)"
echo "plain            $plain"
for c in off on; do
	d=$(minus "${res[$c]}" "${res[plain]}" | med 2)
	echo "typed=$c added  $d"
done
d=$(minus "${res[on]}" "${res[off]}" | med 2)
echo "on - off         $d   (the same round's)"
