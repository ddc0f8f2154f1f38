#!/usr/bin/env bash
# The cost of std.diff per EVP_DecryptUpdate call when a received buffer is decrypted
# piece by piece (evpbench.c), with lengths=auto (each call looks at its piece) and
# lengths=off (each call looks from its piece to the buffer's end), pages watched and
# whole buffers compared (DYL_DIFF_WATCH=0); std.regions beside it.
#   bench/diff/evp.sh [ROUNDS]      (default 7)
# Rounds interleave the configurations; each figure is the median over the rounds of
# the CPU time per call that evpbench measures, minus the plain run's (no wrapper).
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-7}
. ../lib.sh	# scratch, minus
scratch
cc -O2 -o "$W/evpbench" evpbench.c -lcrypto
gen() { "$ROOT/bin/dyliberator" -q --profile none --lib libcrypto.so.3 --app "$W/evpbench" -f EVP_DecryptUpdate -o "$W/$1.so" "${@:2}"; }
gen diff-auto -g std.diff
gen diff-off -g std.diff:lengths=off
gen regions-auto -g std.regions
gen regions-off -g std.regions:lengths=off

declare -A res
configs=(plain diff-auto diff-off compare-auto compare-off regions-auto regions-off)
# a 1 MiB buffer in 16 pieces of 64 KiB (compared whole), 8 MiB in 16 of 512 KiB (watched)
shapes=("1048576 16 60" "8388608 16 8")
for r in $(seq "$ROUNDS"); do
	for s in "${shapes[@]}"; do
		for c in "${configs[@]}"; do
			case $c in
			plain) pre=() ;;
			compare-*) pre=(env LD_PRELOAD="$W/diff-${c#compare-}.so" DYL_TRACE="$W/t.csv" DYL_DIFF_WATCH=0) ;;
			*) pre=(env LD_PRELOAD="$W/$c.so" DYL_TRACE="$W/t.csv") ;;
			esac
			# shellcheck disable=SC2086
			res[$c/${s%% *}]+="$("${pre[@]}" "$W/evpbench" $s | awk '{print $2}') "
		done
	done
done
over() {	# config size -> added us per call: median (range)
	minus "${res[$1/$2]}" "${res[plain/$2]}" | sort -g |
		awk '{d[NR]=$1} END {m=(NR%2)?d[(NR+1)/2]:(d[NR/2]+d[NR/2+1])/2; printf "%8.2f us (%.2f to %.2f)", m/1e3, d[1]/1e3, d[NR]/1e3}'
}
printf '%-13s %-30s %-30s\n' config "1 MiB, 64 KiB pieces" "8 MiB, 512 KiB pieces"
printf '%-13s %-30s %-30s\n' plain "$(tr ' ' '\n' <<<"${res[plain/1048576]}" | grep . | sort -g | awk '{a[NR]=$1} END {printf "%8.2f us a call", a[int((NR+1)/2)]/1e3}')" \
	"$(tr ' ' '\n' <<<"${res[plain/8388608]}" | grep . | sort -g | awk '{a[NR]=$1} END {printf "%8.2f us a call", a[int((NR+1)/2)]/1e3}')"
for c in "${configs[@]:1}"; do
	printf '%-13s %-30s %-30s\n' "$c" "$(over "$c" 1048576)" "$(over "$c" 8388608)"
done
