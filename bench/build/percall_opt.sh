#!/usr/bin/env bash
# Per-call cost of the default wrapper (std.time + std.trace) built with each CFLAGS:
# does the optimiser pay?  bench/build/percall_opt.sh [ROUNDS [N]] (defaults 9, 5*10^6)
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
flags=("-O2 -g" "-O1 -g" "-Og -g" "-O0 -g")
for i in "${!flags[@]}"; do
	CFLAGS="${flags[$i]}" "$ROOT/bin/dyliberator" -q --lib "$W/libnop.so" --header $P/nop.h -o "$W/w$i.so"
done
declare -A loop
for r in $(seq "$ROUNDS"); do
	for i in "${!flags[@]}"; do
		l=$(DYL_TRACE="$W/t.csv" LD_PRELOAD="$W/w$i.so" "$W/loop" "$N" 2>&1 >/dev/null |
			awk '/loop_ns_per_call/ {print $2}')
		loop[$i]+="$l "
	done
done
printf '%-10s %s\n' CFLAGS "loop CPU ns/call, median (range) of $ROUNDS rounds, N=$N"
for i in "${!flags[@]}"; do printf '%-10s %s\n' "${flags[$i]}" "$(med 2 <<<"${loop[$i]}")"; done
