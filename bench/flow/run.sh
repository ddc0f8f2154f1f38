#!/usr/bin/env bash
# What std.flow adds: per call with 1, 3 and 10 heap pointers over std.regions, per
# malloc/free pair (allocation sites on) over std.regions, and what the ways of finding
# a site cost alone (unw_backtrace, the caller's return address).
#   bench/flow/run.sh [ROUNDS [N]]      (defaults: 7 rounds, N = 10^6 calls or pairs)
# Rounds interleave the configurations; each figure is the median over the rounds of the
# CPU time per call (per pair) the program measures around its loop, with the range.
# The spool's write-outs happen in the loop (the events are written as they fill a
# buffer), the conversion at exit does not (TRACE.flow: its time is printed apart).
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-7}
N=${2:-1000000}
. ../lib.sh	# scratch, med
scratch
make -s -C "$ROOT" all
cc -O2 -fPIC -shared -Wl,-soname,libptrs.so -o "$W/libptrs.so" libptrs.c
cc -O2 -o "$W/callbench" callbench.c -I. "$W/libptrs.so" -Wl,-rpath,"$W"
cc -O2 -o "$W/mallocbench" mallocbench.c -I. "$W/libptrs.so" -Wl,-rpath,"$W"
cc -O2 -o "$W/unwbench" unwbench.c -lunwind
gen() { "$ROOT/bin/dyliberator" -q --lib "$W/libptrs.so" --header ptrs.h -o "$W/$1.so" "${@:2}"; }
gen regions -g std.regions
gen flow -g std.flow

declare -A res
one() {	# key, command...: appends the figure the program prints
	local key=$1 out; shift
	out=$("$@" 2>&1)
	res[$key]+="$(awk '/_per_/ {print $2}' <<<"$out") "
}
for r in $(seq "$ROUNDS"); do
	for c in regions flow; do
		for k in 1 3 10; do
			one "$c/$k" env LD_PRELOAD="$W/$c.so" DYL_TRACE="$W/t.csv" "$W/callbench" "$k" "$N"
			one "$c/${k}a" env LD_PRELOAD="$W/$c.so" DYL_TRACE="$W/t.csv" "$W/callbench" "$k" "$N" alt
		done
		one "$c/malloc" env LD_PRELOAD="$W/$c.so" DYL_TRACE="$W/t.csv" "$W/mallocbench" "$N"
	done
	"$W/unwbench" "$N" >>"$W/unw.txt"
done
printf '%-9s %-21s %-21s %-21s %-21s\n' "" "1 heap ptr, ns/call" "3 heap ptrs" "10 heap ptrs" "malloc/free, ns/pair"
for c in regions flow; do
	printf '%-9s %-21s %-21s %-21s %-21s\n' "$c" "$(med <<<"${res[$c/1]}")" "$(med <<<"${res[$c/3]}")" \
		"$(med <<<"${res[$c/10]}")" "$(med <<<"${res[$c/malloc]}")"
done
echo "the same, two sets of buffers in turn (no call repeats the one before):"
for c in regions flow; do
	printf '%-9s %-21s %-21s %-21s\n' "$c" "$(med <<<"${res[$c/1a]}")" "$(med <<<"${res[$c/3a]}")" \
		"$(med <<<"${res[$c/10a]}")"
done
echo "flow - regions, round by round (the paired runs):"
for k in 1 3 10 1a 3a 10a malloc; do
	printf '  %-7s %s\n' "$k" "$(minus "${res[flow/$k]}" "${res[regions/$k]}" | tr '\n' ' ' | med)"
done
echo
for d in 0 2 4 6; do
	printf '%-16s %d frames: %s ns\n' "$(awk -v d=$d '$2 == d {print $1; exit}' "$W/unw.txt")" "$d" \
		"$(awk -v d=$d '$2 == d {printf "%s ", $3}' "$W/unw.txt" | med)"
done
# the exit: the spool's events into TRACE.flow (10 pointers, N calls), and its size
for alt in "" alt; do
	s=$( { /usr/bin/time -f "%U+%S s CPU, %M KiB max RSS" env DYL_CONVERT=exit LD_PRELOAD="$W/flow.so" DYL_TRACE="$W/t.csv" \
		"$W/callbench" 10 "$N" $alt >/dev/null; } 2>&1 )
	echo "10 pointers $alt, $N calls, the whole run with the conversion: $s; TRACE.flow $(stat -c %s "$W/t.csv.flow") bytes"
done
echo "(N = $N; $ROUNDS rounds; median (min-max) of the loop's CPU ns)"
