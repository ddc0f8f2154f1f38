#!/usr/bin/env bash
# A first call under the wrapper: the first and second call of 10 libcrypto functions
# (firstcall.c), plain and with the default wrapper of all of libcrypto preloaded.
#   bench/firstcall/run.sh [ROUNDS] [WRAPPER.so]   (default 21 rounds; the wrapper is
#   built here when not given: minutes)
# Prints per function the medians over the rounds (runs, interleaved) of the first and
# the second call, plain and wrapped, and what the wrapper adds to each:
# wrapped - plain, for the first call and for the second.
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-21}
. ../lib.sh	# scratch, med
scratch
cc -O2 -o "$W/firstcall" firstcall.c -lcrypto
WRAP=${2:-}
if [ -z "$WRAP" ]; then
	WRAP="$W/crypto.so"
	"$ROOT/bin/dyliberator" -q --lib libcrypto.so.3 -o "$WRAP"
fi
for r in $(seq "$ROUNDS"); do
	"$W/firstcall" > "$W/plain.$r"
	DYL_TRACE="$W/t.csv" LD_PRELOAD="$WRAP" "$W/firstcall" > "$W/wrapped.$r"
done
printf '%-22s %-8s %-8s %-8s %-8s %-12s %-12s\n' function plain1 plain2 wrap1 wrap2 "added 1st" "added 2nd"
for f in $(awk '{print $1}' "$W/plain.1"); do
	p1=$(cat "$W"/plain.* | awk -v f="$f" '$1 == f {print $2}')
	p2=$(cat "$W"/plain.* | awk -v f="$f" '$1 == f {print $3}')
	w1=$(cat "$W"/wrapped.* | awk -v f="$f" '$1 == f {print $2}')
	w2=$(cat "$W"/wrapped.* | awk -v f="$f" '$1 == f {print $3}')
	m() { med 0 <<<"$1" | cut -d' ' -f1; }
	printf '%-22s %-8s %-8s %-8s %-8s %-12s %-12s\n' "$f" "$(m "$p1")" "$(m "$p2")" "$(m "$w1")" "$(m "$w2")" \
		"$(( $(m "$w1") - $(m "$p1") ))" "$(( $(m "$w2") - $(m "$p2") ))"
done
echo "(ns, medians of $ROUNDS runs each; clock_gettime(CLOCK_MONOTONIC) around each call)"
