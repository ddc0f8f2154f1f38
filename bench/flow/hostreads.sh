#!/usr/bin/env bash
# What std.flow:host_reads=on costs over std.flow alone (and the plain program): a call
# writes a MIB MiB block, then the program reads all of it (a fault a page) or none.
#   bench/flow/hostreads.sh [ROUNDS [MIB [ITERS]]]   (defaults: 7 rounds, 64 MiB, 8)
# Rounds interleave the configurations; each figure is the median over the rounds of
# the CPU time per iteration the program measures around its loop (getrusage), with
# the range.  The faults: the pages of the HOST_READ records (how 0) of one run.
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-7}
MIB=${2:-64}
ITERS=${3:-8}
. ../lib.sh	# scratch, med
scratch
make -s -C "$ROOT" all
APPS="$ROOT/microgens/std.flow/apps"
cp "$APPS/hr.h" "$W/"
cc -O2 -fPIC -shared -Wl,-soname,libhr.so -o "$W/libhr.so" "$APPS/libhr.c" -I"$W"
cc -O2 -o "$W/floor" hostreads_floor.c
cc -O2 -o "$W/hostreads" hostreads.c -I"$W" "$W/libhr.so" -Wl,-rpath,"$W"
gen() { "$ROOT/bin/dyliberator" -q --lib "$W/libhr.so" --header "$W/hr.h" -o "$W/$1.so" "${@:2}"; }
gen flow -g std.flow
gen hr -g std.flow:host_reads=on

declare -A res
for r in $(seq "$ROUNDS"); do
	for m in read never; do
		for c in plain flow hr; do
			pre=""
			[ "$c" != plain ] && pre="$W/$c.so"
			out=$(env LD_PRELOAD="$pre" DYL_TRACE="$W/$c-$m.csv" "$W/hostreads" "$m" "$MIB" "$ITERS")
			res[$c/$m]+="$(awk '/cpu_ms_per_iter/ {print $2}' <<<"$out") "
		done
	done
done
echo "host_reads cost: $MIB MiB written by a call, read all or never, $ITERS iterations, $ROUNDS rounds"
echo "CPU ms per iteration: median (min-max); + over std.flow alone, paired by round"
for m in read never; do
	for c in plain flow hr; do
		printf '  %-6s %-5s %s\n' "$m" "$c" "$(med 3 <<<"${res[$c/$m]}")"
	done
	printf '  %-6s hr-flow %s\n' "$m" "$(minus "${res[hr/$m]}" "${res[flow/$m]}" | med 3)"
done
for m in read never; do
	/usr/bin/python3 - "$W/hr-$m.csv.flow" "$m" "$ITERS" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off, pages, recs = 32, 0, 0
while off < len(d):
    t, n = struct.unpack_from('<II', d, off)
    if t == 7:
        seq, obj, lo, hi, how = struct.unpack_from('<QQQQQ', d, off + 8)
        if how == 0:
            recs += 1
            pages += (hi - lo + 4095) // 4096
    off += 8 + n
print(f'  {sys.argv[2]}: HOST_READ records {recs}, pages (faults) {pages}, '
      f'{pages / int(sys.argv[3]):.0f} an iteration')
PY
done
echo "the kernel's part alone (hostreads_floor.c: 64 MiB protected, read under a handler opening each page):"
"$W/floor" | grep protect | sed 's/^/  /'
