#!/usr/bin/env bash
# Measures cuBLAS, cuSOLVER, cuFFT and NVBLAS on this machine's GPU, stores the result as a
# model and compares the device description's predictions with it:
#   bench/devices/gpu/run.sh [--quick] [--device NAME] [-r REPS]
# Writes models/measured/DEVICE-DATE.csv (DEVICE from the GPU's name, DATE today, UTC) and
# prints a markdown table of predicted against measured per kernel and size (compare.py),
# for BENCHMARKS.md.  NAME: the description to compare with (default nvidia-h200).
# Takes about 1 minute on an H200 (5 at most: the sweep runs under a 240 s timeout).
# --quick: small sizes only and no NVBLAS run, seconds (a check that it works, not a
# model; written as DEVICE-DATE-quick.csv).
# Without /usr/local/cuda or a GPU (nvidia-smi) it measures nothing and exits with 77.
set -euo pipefail
DEVICE=nvidia-h200 QUICK= REPS=15
COMMAND="bench/devices/gpu/run.sh${*:+ $*}"
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=--quick ;;
	--device) DEVICE=$2; shift ;;
	-r) REPS=$2; shift ;;
	-h|--help) sed -n '2,11s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if [ ! -d /usr/local/cuda ] || ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "no GPU here: nothing measured"
	exit 77
fi
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
BUILD=$ROOT/build/gpu-sweep
mkdir -p "$BUILD" "$ROOT/models/measured"
cc -O2 -o "$BUILD/gpu_sweep" "$HERE/gpu_sweep.c" -ldl -lm

# The GPU's name as a file name: "NVIDIA H200" -> nvidia-h200.
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
slug=$(printf '%s' "$gpu" | tr 'A-Z' 'a-z' | tr -cs 'a-z0-9' '-' | sed 's/^-//; s/-$//')
OUT=$ROOT/models/measured/$slug-$(date -u +%F)${QUICK:+-quick}.csv
start=$(date +%s)
# The rows are written as they are measured: a sweep stopped early keeps those it has.
timeout 240 "$BUILD/gpu_sweep" -r "$REPS" $QUICK --command "$COMMAND" > "$BUILD/sweep.csv" ||
	echo "run.sh: gpu_sweep stopped early (exit $?); the rows measured so far are kept" >&2
if ! grep -q '^[a-z]' "$BUILD/sweep.csv" || [ "$(grep -c '^[a-z]' "$BUILD/sweep.csv")" -lt 2 ]; then
	echo "run.sh: gpu_sweep measured nothing ($BUILD/sweep.csv)" >&2
	exit 1
fi
{
	cat "$BUILD/sweep.csv"
	nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader |
		sed 's/^/# nvidia-smi: /'
	if [ -z "$QUICK" ]; then
		"$HERE/nvblas.sh" "$BUILD" 2>&1 | sed 's/^/# /' || echo "# nvblas: failed"
	fi
} > "$OUT"
rm -f "$BUILD/sweep.csv"
echo "wrote ${OUT#"$ROOT"/} ($(grep -c '^[a-z]' "$OUT") lines of CSV, $(($(date +%s) - start)) s)" >&2
/usr/bin/python3 "$HERE/compare.py" "$OUT" --device "$DEVICE"
