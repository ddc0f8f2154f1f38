#!/usr/bin/env bash
# host_reads at commit REV and now (this checkout, built), interleaved:
#   1. an interposed I/O call when nothing is protected (iocall.c: write, pread,
#      open+close, getrandom; CPU ns a call): plain, host_reads=on at REV, and now;
#   2. a page the program reads (hostreads.c read, MIB MiB, ITERS iterations): CPU ms
#      an iteration, std.flow:host_reads=on at REV and now.
#   bench/flow/hostgaps.sh REV [ROUNDS [N [MIB [ITERS]]]]
# Medians over the rounds (min-max).
set -euo pipefail
cd "$(dirname "$0")"
REV=$1
ROUNDS=${2:-5}
N=${3:-200000}
MIB=${4:-16}
ITERS=${5:-4}
. ../lib.sh	# scratch, old_checkout, med
scratch
old_checkout "$REV"
APPS="$ROOT/microgens/std.flow/apps"
cp "$APPS/hr.h" "$W/"
cc -O2 -fPIC -shared -Wl,-soname,libhr.so -o "$W/libhr.so" "$APPS/libhr.c" -I"$W"
cc -O2 -o "$W/iocall" iocall.c
cc -O2 -o "$W/hostreads" hostreads.c -I"$W" "$W/libhr.so" -Wl,-rpath,"$W"
"$W/old/bin/dyliberator" -q --lib "$W/libhr.so" --header "$W/hr.h" -o "$W/before.so" -g std.flow:host_reads=on
"$ROOT/bin/dyliberator" -q --lib "$W/libhr.so" --header "$W/hr.h" -o "$W/after.so" -g std.flow:host_reads=on

declare -A res
for r in $(seq "$ROUNDS"); do
	for c in plain before after; do
		pre=""
		[ "$c" != plain ] && pre="$W/$c.so"
		out=$(env LD_PRELOAD="$pre" DYL_TRACE="$W/io-$c.csv" "$W/iocall" "$N")
		for k in write pread open_close getrandom; do
			res[$c/$k]+="$(awk -v k="${k}_ns" '$1 == k {print $2}' <<<"$out") "
		done
		[ "$c" = plain ] && continue
		out=$(env LD_PRELOAD="$W/$c.so" DYL_TRACE="$W/hr-$c.csv" "$W/hostreads" read "$MIB" "$ITERS")
		res[$c/page]+="$(awk '/cpu_ms_per_iter/ {print $2}' <<<"$out") "
	done
done
echo "host_reads before ($REV) and after ($(git -C "$ROOT" rev-parse --short HEAD)), $ROUNDS rounds"
echo "1. CPU ns a call, nothing protected, $N calls each:"
for k in write pread open_close getrandom; do
	printf '  %-10s plain %s  before %s  after %s\n' "$k" "$(med <<<"${res[plain/$k]}")" \
		"$(med <<<"${res[before/$k]}")" "$(med <<<"${res[after/$k]}")"
done
echo "2. CPU ms an iteration, $MIB MiB read all ($((MIB * 256)) faults):"
printf '  before %s  after %s\n' "$(med 2 <<<"${res[before/page]}")" "$(med 2 <<<"${res[after/page]}")"
