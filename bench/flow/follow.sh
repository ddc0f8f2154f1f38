#!/usr/bin/env bash
# What std.flow's follow=on adds: calls handed the head of a list of K nodes (32 bytes
# each), std.flow with follow=on against std.flow without, per call and per node reached.
#   bench/flow/follow.sh [ROUNDS [BLOCKS]]   (defaults: 7 rounds; BLOCKS = 2 * 10^6 nodes
#   reached per run: N = BLOCKS / K calls, 200000 calls for K = 1)
# Rounds interleave the two wrappers; each figure is the median over the rounds of the
# CPU time per call the program measures around its loop, with the range.  With
# follow=on every node reached is an event of 32 bytes in the spool: the loop includes
# their write-outs; the conversion at exit (TRACE.flow) is left out.  Also: K = 1000 with
# two words per node that look like addresses (followbench ints), and a malloc/free pair
# (mallocbench: the table's hook for new blocks fills follow='s map of the heap).
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-7}
BLOCKS=${2:-2000000}
. ../lib.sh	# scratch, med, minus
scratch
make -s -C "$ROOT" all
cc -O2 -fPIC -shared -Wl,-soname,libptrs.so -o "$W/libptrs.so" libptrs.c
cc -O2 -o "$W/followbench" followbench.c -I. "$W/libptrs.so" -Wl,-rpath,"$W"
cc -O2 -o "$W/mallocbench" mallocbench.c -I. "$W/libptrs.so" -Wl,-rpath,"$W"
gen() { "$ROOT/bin/dyliberator" -q --lib "$W/libptrs.so" --header ptrs.h -o "$W/$1.so" "${@:2}"; }
gen flow -g std.flow
gen follow -g std.flow:follow=on

declare -A res
calls() { [ "$1" = 1 ] && echo 200000 || echo $((BLOCKS / $1)); }
for r in $(seq "$ROUNDS"); do
	for k in 1 10 100 1000; do
		for c in flow follow; do
			out=$(env LD_PRELOAD="$W/$c.so" DYL_TRACE="$W/t.csv" "$W/followbench" "$k" "$(calls "$k")")
			res[$c/$k]+="$(awk '/_per_/ {print $2}' <<<"$out") "
		done
	done
	for c in flow follow; do
		out=$(env LD_PRELOAD="$W/$c.so" DYL_TRACE="$W/t.csv" "$W/followbench" 1000 "$(calls 1000)" ints)
		res[$c/ints]+="$(awk '/_per_/ {print $2}' <<<"$out") "
		out=$(env LD_PRELOAD="$W/$c.so" DYL_TRACE="$W/t.csv" "$W/mallocbench" 1000000)
		res[$c/malloc]+="$(awk '/_per_/ {print $2}' <<<"$out") "
	done
done
printf '%-6s %-9s %-24s %-24s %-22s %s\n' K calls "flow, ns/call" "follow=on, ns/call" \
	"added, ns/call" "added per node"
for k in 1 10 100 1000; do
	d=$(minus "${res[follow/$k]}" "${res[flow/$k]}" | tr '\n' ' ')
	printf '%-6s %-9s %-24s %-24s %-22s %s\n' "$k" "$(calls "$k")" "$(med <<<"${res[flow/$k]}")" \
		"$(med <<<"${res[follow/$k]}")" "$(med <<<"$d")" \
		"$([ "$k" = 1 ] && echo - || awk -v k="$k" '{for (i = 1; i <= NF; i++) printf "%s ", $i / (k - 1)}' <<<"$d" | med)"
done
for x in ints malloc; do
	printf '%-16s %-24s %-24s %s\n' "$([ $x = ints ] && echo "K=1000, ints" || echo "malloc/free pair")" \
		"$(med <<<"${res[flow/$x]}")" "$(med <<<"${res[follow/$x]}")" \
		"$(minus "${res[follow/$x]}" "${res[flow/$x]}" | tr '\n' ' ' | med)"
done
echo "(added: the paired rounds' differences; per node: over the K - 1 nodes past the head)"
# the exit: the spool's events into TRACE.flow, and its size
s=$( { /usr/bin/time -f "%U+%S s CPU, %M KiB max RSS" env LD_PRELOAD="$W/follow.so" DYL_TRACE="$W/t.csv" \
	"$W/followbench" 1000 "$(calls 1000)" >/dev/null; } 2>&1 )
echo "K = 1000, $(calls 1000) calls, follow=on, the whole run with the conversion: $s; TRACE.flow $(stat -c %s "$W/t.csv.flow") bytes"
echo "($ROUNDS rounds; median (min-max) of the loop's CPU ns)"
