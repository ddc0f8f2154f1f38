#!/usr/bin/env bash
# This machine's CPU as a device description (doc/devices.md, "The host"), measured:
#   bench/devices/host.sh [--quick] [-r ROUNDS] [-o FILE] [--raw FILE] [--blas LIB] > my-cpu.csv
#   dyl-speedup TRACE --device ./my-cpu.csv
# peak: the best dgemm_/sgemm_ rate of the BLAS the programs use (Debian's serial OpenBLAS,
# one core) over n = 16..2048; eff: each size's rate over that best.  bandwidth: STREAM's
# triad on arrays much larger than the last-level cache; mem_eff: smaller arrays' triad over
# it, at most 1.  launch_ns: one daxpy_ of n = 1.  No link row: the host's data stays put.
# Each figure is the median of ROUNDS rounds (default 5); a round measures everything once,
# so the repeats interleave.  Times are the thread's CPU time.  --quick: tiny sizes and
# short repeats, seconds in all, for the tests (its figures are not the machine's).
# --raw FILE: every round's figures too, "KIND N VALUE" a line (flop/s, bytes/s, ns).
set -euo pipefail
BLAS=/usr/lib/x86_64-linux-gnu/openblas-serial/libblas.so.3	# libopenblas0-serial
ROUNDS=5 MIN_S=0.1 OUT= QUICK= RAW=
GEMM="16 32 64 128 256 512 1024 2048" AXPY=2048
COMMAND="bench/devices/host.sh${*:+ $*}"
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1 ROUNDS=3 MIN_S=0.002 GEMM="16 32 64" AXPY=256 ;;
	-r) ROUNDS=$2; shift ;;
	-o) OUT=$(realpath -m -- "$2"); shift ;;
	--raw) RAW=$(realpath -m -- "$2"); shift ;;
	--blas) BLAS=$(realpath -m -- "$2"); shift ;;
	-h|--help) sed -n '2,12s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "host.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
cd "$(dirname "$0")"
. ../lib.sh	# scratch
scratch

# The triad's sizes (bytes of the three arrays): up to 8 times the largest cache, 256 MiB
# at least; --quick stays in the caches.
llc=$(cat /sys/devices/system/cpu/cpu0/cache/index*/size 2>/dev/null |
	awk '{v = $1 + 0; u = substr($1, length($1)); v *= u == "K" ? 1024 : u == "M" ? 1048576 : 1
	      if (v > m) m = v} END {print m + 0}')
big=268435456
while [ "$big" -lt $((8 * llc)) ]; do big=$((big * 2)); done
TRIAD="1048576 4194304 16777216 67108864 $big"
[ -n "$QUICK" ] && TRIAD="49152 196608 786432"

cc -O2 -o "$W/blas" blas.c -ldl
cc -O3 -march=native -o "$W/triad" triad.c
specs=()
for n in $GEMM; do specs+=("dgemm:$n" "sgemm:$n"); done
specs+=("daxpy:$AXPY" "saxpy:$AXPY" "call:1")
for r in $(seq "$ROUNDS"); do
	echo "host.sh: round $r of $ROUNDS" >&2
	"$W/blas" "$BLAS" "$MIN_S" "${specs[@]}" >> "$W/raw"
	"$W/triad" "$MIN_S" $TRIAD >> "$W/raw"
done

cpu=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)
mem=$(awk '/^MemTotal:/ {print $2 * 1024}' /proc/meminfo)
# The medians, "KIND N VALUE" a line, then the description.
sort -k1,1 -k2,2n -k3,3g "$W/raw" | awk '
	{k = $1 " " $2; v[k, ++n[k]] = $3; if (!(k in seen)) {seen[k] = 1; order[++o] = k}}
	END {for (i = 1; i <= o; i++) {k = order[i]; c = n[k]
		print k, c % 2 ? v[k, (c + 1) / 2] : (v[k, c / 2] + v[k, c / 2 + 1]) / 2}}' \
	> "$W/median"
awk -v date="$(date -u +%Y-%m-%d)" -v cpu="${cpu:-unknown CPU}" -v cmd="$COMMAND" \
	-v rounds="$ROUNDS" -v blas="$BLAS" -v mem="$mem" -v cores="$(nproc)" \
	-v quick="$QUICK" -f describe.awk "$W/median" > "$W/out.csv"
[ -z "$RAW" ] || cp "$W/raw" "$RAW"
if [ -n "$OUT" ]; then cp "$W/out.csv" "$OUT"; else cat "$W/out.csv"; fi
