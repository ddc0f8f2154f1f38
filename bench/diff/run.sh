#!/usr/bin/env bash
# The cost of std.diff (the full method) per call and per KiB of the buffer it tracks:
# pages watched (userfaultfd) against whole buffers compared (DYL_DIFF_WATCH=0), beside
# std.regions (the fast method) and tracing alone.
#   bench/diff/run.sh [ROUNDS]      (default 5)
# Rounds interleave the configurations; each figure is the median over the rounds of
# the CPU time per call that diffbench measures around its loop, minus the plain run's
# (the same loop without a wrapper), with the range.
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-5}
. ../lib.sh	# scratch, minus
scratch
cc -O2 -fPIC -shared -Wl,-soname,libbuf.so -o "$W/libbuf.so" libbuf.c
cc -O2 -o "$W/diffbench" diffbench.c -I. "$W/libbuf.so" -Wl,-rpath,"$W"
gen() { "$ROOT/bin/dyliberator" -q --lib "$W/libbuf.so" --header buf.h -o "$W/$1.so" "${@:2}"; }
gen trace
gen regions -g std.regions
gen diff -g std.diff

declare -A res
configs=(plain trace regions watch compare)
cases=(same sparse all out)
sizes=(64 1024 16384)
calls() { echo $(( 200000 / $1 + 40 )); }	# about the same time per run for each size
for r in $(seq "$ROUNDS"); do
	for kib in "${sizes[@]}"; do
		for k in "${cases[@]}"; do
			for c in "${configs[@]}"; do
				case $c in
				plain) pre=() ;;
				trace|regions) pre=(env LD_PRELOAD="$W/$c.so" DYL_TRACE="$W/t.csv") ;;
				watch) pre=(env LD_PRELOAD="$W/diff.so" DYL_TRACE="$W/t.csv") ;;
				compare) pre=(env LD_PRELOAD="$W/diff.so" DYL_TRACE="$W/t.csv" DYL_DIFF_WATCH=0) ;;
				esac
				v=$("${pre[@]}" "$W/diffbench" "$k" "$kib" "$(calls "$kib")" | awk '{print $2}')
				res[$c/$k/$kib]+="$v "
			done
		done
	done
done
# per round: the wrapper's figure minus the plain one of the same round
over() {	# config case kib -> ns per call added: median, and us/KiB with the range
	minus "${res[$1/$2/$3]}" "${res[plain/$2/$3]}" | sort -g |
		awk -v kib="$3" '{d[NR]=$1} END {m=(NR%2)?d[(NR+1)/2]:(d[NR/2]+d[NR/2+1])/2;
			printf "%9.2f us %7.4f us/KiB (%.4f to %.4f)", m/1e3, m/1e3/kib, d[1]/1e3/kib, d[NR]/1e3/kib}'
}
printf '%-8s %-7s %-9s %s\n' case KiB config "added per call: median, per KiB (range over $ROUNDS rounds)"
for kib in "${sizes[@]}"; do
	for k in "${cases[@]}"; do
		for c in trace regions watch compare; do
			printf '%-8s %-7s %-9s %s\n' "$k" "$kib" "$c" "$(over "$c" "$k" "$kib")"
		done
	done
done
