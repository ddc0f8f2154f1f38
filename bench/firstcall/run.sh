#!/usr/bin/env bash
# A first call under the wrapper: the first and second call of 10 libcrypto functions
# (firstcall.c), plain and with the default wrapper of all of libcrypto preloaded.
#   bench/firstcall/run.sh [ROUNDS] [WRAPPER.so] [OLD_RUNTIME_DIR]
# (default 21 rounds; the wrapper is built here when not given: minutes).  With
# OLD_RUNTIME_DIR (a build/ folder holding another checkout's libdylrt.so, e.g. main's),
# the same wrapper runs a third time in each round on that runtime (LD_LIBRARY_PATH goes
# before the wrapper's RUNPATH): before and after a change of the runtime.  Each variant
# replaces its own trace (the previous round's), as a user who runs a program again.
# Each round runs every variant twice, timed by the wall clock and by the thread's CPU
# time, interleaved.  Prints per function and clock the medians over the rounds of the
# first and the second call, and what the wrapper adds to each (wrapped - plain).
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-21}
. ../lib.sh	# scratch, med
scratch
cc -O2 -o "$W/firstcall" firstcall.c -lcrypto
WRAP=${2:-}
OLD=${3:-}
if [ -z "$WRAP" ]; then
	WRAP="$W/crypto.so"
	"$ROOT/bin/dyliberator" -q --profile none --lib libcrypto.so.3 -o "$WRAP"
fi
variants="plain wrapped"
[ -n "$OLD" ] && variants="plain wrapped old"
run() {	# VARIANT CLOCK
	case $1 in
	plain) "$W/firstcall" "$2" ;;
	wrapped) DYL_TRACE="$W/t.csv" LD_PRELOAD="$WRAP" "$W/firstcall" "$2" ;;
	old) DYL_TRACE="$W/old.csv" LD_LIBRARY_PATH="$OLD" LD_PRELOAD="$WRAP" "$W/firstcall" "$2" ;;
	esac
}
for r in $(seq "$ROUNDS"); do
	for clk in wall cpu; do
		for v in $variants; do
			run "$v" "$clk" > "$W/$v.$clk.$r"
		done
	done
done
m() { med 0 <<<"$1" | cut -d' ' -f1; }
col() {	# VARIANT CLOCK FUNCTION FIELD: the median over the rounds
	m "$(cat "$W/$1.$2".* | awk -v f="$3" -v k="$4" '$1 == f {print $k}')"
}
for clk in wall cpu; do
	echo "== $clk clock (ns, medians of $ROUNDS rounds)"
	printf '%-22s %9s %7s' function plain1 plain2
	for v in ${variants#plain }; do printf ' %9s %7s %9s %7s' "${v}1" "${v}2" "+${v}1" "+${v}2"; done
	echo
	for f in $(awk '{print $1}' "$W/plain.wall.1"); do
		p1=$(col plain $clk "$f" 2) p2=$(col plain $clk "$f" 3)
		printf '%-22s %9s %7s' "$f" "$p1" "$p2"
		for v in ${variants#plain }; do
			a=$(col "$v" $clk "$f" 2) b=$(col "$v" $clk "$f" 3)
			printf ' %9s %7s %9s %7s' "$a" "$b" $((a - p1)) $((b - p2))
		done
		echo
	done
done
