#!/usr/bin/env bash
# Per-call cost of the default wrapper (std.time + std.trace) built with each CFLAGS:
# does the optimiser pay?  bench/build/percall_opt.sh [ROUNDS [N]] (defaults 9, 5*10^6)
#   OLD=/path/to/other/checkout (built): also its wrappers at -O2 -g and -O0 -g (what a
#   wrapper of one unit and the units of a larger one are built with), interleaved
#   FLAGS="-O2 -g|-O0 -g": only these CFLAGS ('|'-separated)
#   GENS="-g std.args": more dyliberator options for every wrapper built
# Each round runs every build once, interleaved; the loop's CPU ns/call (bench/percall's
# loop: start-up and the trace's writing left out), median (range) over the rounds.
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-9}
N=${2:-5000000}
. ../lib.sh	# scratch, med
scratch
P=../percall
cc -O2 -fPIC -shared -Wl,-soname,libnop.so -o "$W/libnop.so" $P/libnop.c
cc -O2 -o "$W/loop" $P/loop.c -I$P "$W/libnop.so" -Wl,-rpath,"$W"
IFS='|' read -r -a flags <<<"${FLAGS:-"-O2 -g|-O1 -g|-Og -g|-O0 -g"}"
names=()
for i in "${!flags[@]}"; do
	CFLAGS="${flags[$i]}" "$ROOT/bin/dyliberator" -q --lib "$W/libnop.so" --header $P/nop.h -o "$W/w$i.so" ${GENS:-}
	names+=("${flags[$i]}")
done
if [ -n "${OLD:-}" ]; then
	for i in "${!flags[@]}"; do
		case ${flags[$i]} in "-O2 -g"|"-O0 -g") ;; *) continue ;; esac
		CFLAGS="${flags[$i]}" "$OLD/bin/dyliberator" -q --lib "$W/libnop.so" --header $P/nop.h -o "$W/o$i.so" ${GENS:-}
		names+=("OLD ${flags[$i]}")
	done
fi
declare -A loop
for r in $(seq "$ROUNDS"); do
	for w in "$W"/[wo]*.so; do
		b=$(basename "$w" .so); i=${b#?}
		k=${flags[$i]}; [ "${b:0:1}" = o ] && k="OLD $k"
		l=$(DYL_TRACE="$W/t.csv" LD_PRELOAD="$w" "$W/loop" "$N" 2>&1 >/dev/null |
			awk '/loop_ns_per_call/ {print $2}')
		loop[$k]+="$l "
	done
done
printf '%-12s %s\n' CFLAGS "loop CPU ns/call, median (range) of $ROUNDS rounds, N=$N"
for k in "${names[@]}"; do printf '%-12s %s\n' "$k" "$(med 2 <<<"${loop[$k]}")"; done
