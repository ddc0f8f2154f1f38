#!/usr/bin/env bash
# std.flow's memory per live heap block: livebench.c (one wrapped call, then N blocks
# of 32 bytes from one site, all live) with no wrapper, std.regions and std.flow; the
# peak RSS at that point (before the exit's conversion), medians over ROUNDS, and the
# paired differences std.flow - std.regions (both swing by 16-64 MiB in some rounds, the
# same way: std.regions' table; the median of the pairs is what std.flow adds).
#   bench/flow/mem.sh [ROUNDS [N]]      (defaults: 3 rounds, N = 10^6 blocks)
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-3}
N=${2:-1000000}
. ../lib.sh	# scratch, med
scratch
make -s -C "$ROOT" all
cc -O2 -fPIC -shared -Wl,-soname,libptrs.so -o "$W/libptrs.so" libptrs.c
cc -O2 -o "$W/livebench" livebench.c -I. "$W/libptrs.so" -Wl,-rpath,"$W"
gen() { "$ROOT/bin/dyliberator" -q --lib "$W/libptrs.so" --header ptrs.h -o "$W/$1.so" "${@:2}"; }
gen regions -g std.regions
gen flow -g std.flow
declare -A res
for r in $(seq "$ROUNDS"); do
	res[none]+="$("$W/livebench" "$N" | awk '{print $2}') "
	for c in regions flow; do
		res[$c]+="$(env LD_PRELOAD="$W/$c.so" DYL_TRACE="$W/t.csv" "$W/livebench" "$N" | awk '{print $2}') "
	done
done
for c in none regions flow; do
	echo "$c: peak RSS $(med <<<"${res[$c]}") KiB"
done
d=$(minus "${res[flow]}" "${res[regions]}" | tr '\n' ' ')
echo "std.flow - std.regions, round by round: $(med 0 <<<"$d") KiB; per live block: $(med 0 <<<"$d" | awk -v n="$N" '{printf "%.2f bytes", $1 * 1024 / n}')"
lo() { tr ' ' '\n' | grep . | sort -g | head -1; }
echo "least of each: std.flow - std.regions $(( $(lo <<<"${res[flow]}" | cut -d. -f1) - $(lo <<<"${res[regions]}" | cut -d. -f1) )) KiB"
s=$( { /usr/bin/time -f "%U+%S s CPU, %M KiB max RSS" env LD_PRELOAD="$W/flow.so" DYL_TRACE="$W/t.csv" "$W/livebench" "$N" >/dev/null; } 2>&1 )
echo "the whole std.flow run, the exit's conversion included: $s; TRACE.flow $(stat -c %s "$W/t.csv.flow") bytes"
