#!/usr/bin/env bash
# What std.faults's page-fault event costs: a first-touch page fault with the thread's
# event on (as std.faults opens it) and off, what opening the event costs (the process's
# first, another thread's: CPU time), and a read of its count.
#   bench/faults/run.sh [ROUNDS [N]]      (defaults: 7 rounds, N = 200000 pages)
# Rounds interleave on and off; each figure is the median over the rounds of what the
# program measures around its loops (CPU time, user + sys), with the range.
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-7}
N=${2:-200000}
. ../lib.sh	# scratch, med
scratch
cc -O2 -pthread -o "$W/touch" touch.c -I"$ROOT/runtime/include" -L"$ROOT/build" -ldylrt -Wl,-rpath,"$ROOT/build"

declare -A res
for r in $(seq "$ROUNDS"); do
	for mode in off on; do
		out=$(DYL_TRACE="$W/t.csv" "$W/touch" "$mode" "$N")
		res[$mode]+="$(awk '/^fault_ns/ {print $2}' <<<"$out") "
		if [ "$mode" = on ]; then
			res[open]+="$(awk '/^open_us/ {print $2}' <<<"$out") "
			res[thread]+="$(awk '/^thread_open_us/ {print $2}' <<<"$out") "
			res[read]+="$(awk '/^read_ns/ {print $2}' <<<"$out") "
			grep -q "^counted $N of $N" <<<"$out" || { echo "the event missed faults: $out" >&2; exit 1; }
		fi
	done
done
printf '%-34s %s\n' "first-touch fault, event off (ns)" "$(med 2 <<<"${res[off]}")"
printf '%-34s %s\n' "first-touch fault, event on (ns)" "$(med 2 <<<"${res[on]}")"
printf '%-34s %s\n' "opening, the process's first (us)" "$(med 2 <<<"${res[open]}")"
printf '%-34s %s\n' "opening, another thread's (us)" "$(med 2 <<<"${res[thread]}")"
printf '%-34s %s\n' "dyl_faults() read (ns)" "$(med 2 <<<"${res[read]}")"
echo "(N = $N pages a run, $ROUNDS rounds; every fault counted)"
