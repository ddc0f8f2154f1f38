#!/usr/bin/env bash
# The default wrapper (time + trace) of this checkout against an older one, interleaved.
#   bench/percall/ab.sh [ROUNDS [N [OLD]]]    (defaults: 9 rounds, N = 10^7 calls,
#                                             OLD = d60f8e6, before runtime/format/)
# Each round runs the libnop loop under the old wrapper, then the new one. Per checkout:
# the loop's CPU ns a call (measured by the app around its loop) and the whole
# process's CPU ns a call (user+sys, the trace's conversion at exit included: DYL_CONVERT=exit,
# since by default a run of more than ~4 million calls leaves its rows in the spool).
# The rows of both traces are compared first: the same apart from tid and times.
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-9}
N=${2:-10000000}
OLD=${3:-d60f8e6}
. ../lib.sh	# scratch, old_checkout, med
scratch
old_checkout "$OLD"
cc -O2 -fPIC -shared -Wl,-soname,libnop.so -o "$W/libnop.so" libnop.c
cc -O2 -o "$W/loop" loop.c -I. "$W/libnop.so" -Wl,-rpath,"$W"
for c in old new; do
	top=$ROOT; [ $c = old ] && top=$W/old
	"$top/bin/dyliberator" -q --lib "$W/libnop.so" --header nop.h -o "$W/$c.so"
done
declare -A loop proc
for r in $(seq "$ROUNDS"); do
	for c in old new; do
		out=$(env LD_PRELOAD="$W/$c.so" DYL_TRACE="$W/$c.csv" DYL_CONVERT=exit \
			/usr/bin/time -f "TIME %U %S" \
			"$W/loop" "$N" 2>&1 >/dev/null)
		loop[$c]+=" $(awk '/loop_ns_per_call/ {print $2}' <<<"$out")"
		proc[$c]+=" $(awk -v n="$N" '/^TIME/ {printf "%.1f", ($2 + $3) * 1e9 / n}' <<<"$out")"
	done
	[ "$r" = 1 ] && { cmp -s <(grep -v '^#' "$W/old.csv" | cut -d, -f1,3,6-) \
		<(grep -v '^#' "$W/new.csv" | cut -d, -f1,3,6-) || { echo "the rows differ" >&2; exit 1; }; }
done
echo "time + trace, $N calls, $ROUNDS rounds; CPU ns a call, median (range)"
for c in old new; do
	printf '%-4s loop %s  process %s\n' "$c" "$(med 2 <<<"${loop[$c]}")" "$(med 1 <<<"${proc[$c]}")"
done
