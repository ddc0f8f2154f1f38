#!/usr/bin/env bash
# What std.callsite adds to a call: the default wrapper (time + trace) against the same
# with -g std.callsite (depth=0: the return address alone) and depth=3 (glibc's
# backtrace()), interleaved.
#   bench/percall/callsite.sh [ROUNDS [N]]    (defaults: 7 rounds, N = 2*10^6 calls)
# Per wrapper: the loop's CPU ns a call (measured by the app around its loop), median
# and range over the rounds.
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-7}
N=${2:-2000000}
. ../lib.sh	# scratch, med
scratch
cc -O2 -fPIC -shared -Wl,-soname,libnop.so -o "$W/libnop.so" libnop.c
cc -O2 -o "$W/loop" loop.c -I. "$W/libnop.so" -Wl,-rpath,"$W"
declare -A gens=([base]="" [depth0]="-g std.callsite" [depth3]="-g std.callsite:depth=3")
for c in base depth0 depth3; do
	"$ROOT/bin/dyliberator" -q --lib "$W/libnop.so" --header nop.h ${gens[$c]} -o "$W/$c.so"
done
declare -A loop
for r in $(seq "$ROUNDS"); do
	for c in base depth0 depth3; do
		out=$(env LD_PRELOAD="$W/$c.so" DYL_TRACE="$W/$c.csv" "$W/loop" "$N" 2>&1 >/dev/null)
		loop[$c]+=" $(awk '/loop_ns_per_call/ {print $2}' <<<"$out")"
	done
done
echo "std.callsite, $N calls, $ROUNDS rounds; the loop's CPU ns a call, median (range)"
for c in base depth0 depth3; do
	printf '%-7s %s\n' "$c" "$(med 2 <<<"${loop[$c]}")"
done
