#!/usr/bin/env bash
# A thread's first call under the wrapper: threads.c's NT threads (all alive at once:
# each needs a spool window of its own) each time their first and second call of nop(),
# plain and with the default wrapper of libnop, interleaved.
#   bench/firstcall/threads.sh [ROUNDS [NT [OLD_RUNTIME_DIR [seq]]]]  (defaults: 9 rounds, 8)
# (seq: each thread ends before the next starts, threads.c)
# With OLD_RUNTIME_DIR (a build/ folder holding another checkout's libdylrt.so), the same
# wrapper runs a third time in each round on that runtime: before and after a change.
# Prints the median over every thread of every round of the first and second call, thread
# CPU time and wall time, in us.
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-9}
NT=${2:-8}
OLD=${3:-}
SEQ=${4:-}
. ../lib.sh	# scratch, med
scratch
P=../percall
cc -O2 -fPIC -shared -Wl,-soname,libnop.so -o "$W/libnop.so" $P/libnop.c
cc -O2 -I$P -o "$W/threads" threads.c "$W/libnop.so" -Wl,-rpath,"$W" -lpthread
"$ROOT/bin/dyliberator" -q --lib "$W/libnop.so" --header $P/nop.h -o "$W/wrap.so"
variants="plain wrapped"
[ -n "$OLD" ] && variants="plain wrapped old"
for r in $(seq "$ROUNDS"); do
	for v in $variants; do
		case $v in
		plain) "$W/threads" "$NT" $SEQ ;;
		wrapped) DYL_TRACE="$W/t.csv" LD_PRELOAD="$W/wrap.so" "$W/threads" "$NT" $SEQ ;;
		old) DYL_TRACE="$W/o.csv" LD_LIBRARY_PATH="$OLD" LD_PRELOAD="$W/wrap.so" "$W/threads" "$NT" $SEQ ;;
		esac >> "$W/$v.txt"
	done
done
printf '%-14s %22s %22s %22s %22s\n' variant "cpu first (range)" "cpu second" "wall first" "wall second"
for who in main thread; do
	for v in $variants; do
		printf '%-14s' "$who $v"
		for k in 3 4 5 6; do
			printf ' %22s' "$(awk -v k=$k -v w=$who '$1 == w {printf "%.1f ", $k / 1000}' "$W/$v.txt" | med 1)"
		done
		echo
	done
done
echo "(us; $ROUNDS rounds of $NT threads each${SEQ:+, one after another})"
