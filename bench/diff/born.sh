#!/usr/bin/env bash
# What std.diff's copies of new heap blocks cost a malloc: bornbench (malloc, one byte
# written, free) plain, under std.regions and under std.diff, for blocks of 4 KiB, 64 KiB
# and 1 MiB.   bench/diff/born.sh [ROUNDS]   (default 5; rounds interleave the configs;
# each figure: the median CPU ns per round over the rounds, and the range)
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-5}
. ../lib.sh	# scratch, med
scratch
cc -O2 -o "$W/bornbench" bornbench.c
cc -O2 -fPIC -shared -Wl,-soname,libbuf.so -o "$W/libbuf.so" libbuf.c
for g in regions diff; do "$ROOT/bin/dyliberator" -q --lib "$W/libbuf.so" --header buf.h -o "$W/$g.so" -g std.$g; done
declare -A res
for r in $(seq "$ROUNDS"); do
	for s in 4096 65536 1048576; do
		n=$((s >= 1048576 ? 4000 : 40000))
		res[plain/$s]+="$("$W/bornbench" $s $n | awk '{print $2}') "
		for g in regions diff; do
			res[$g/$s]+="$(LD_PRELOAD="$W/$g.so" DYL_TRACE="$W/t.csv" "$W/bornbench" $s $n | awk '{print $2}') "
		done
	done
done
printf '%-9s %-26s %-26s %-26s\n' "block" plain std.regions std.diff
for s in 4096 65536 1048576; do
	printf '%-9s %-26s %-26s %-26s\n' "$s" "$(med <<<"${res[plain/$s]}")" "$(med <<<"${res[regions/$s]}")" "$(med <<<"${res[diff/$s]}")"
done
echo "(CPU ns per malloc/write/free round, median (range) of $ROUNDS interleaved rounds)"
