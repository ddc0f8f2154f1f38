#!/bin/bash
# How fast dyl-speedup reads a trace: rows per second on a synthetic 10^7-row trace.
#   bash bench/bench_speedup.sh [ROWS]        (default 10000000; the trace is kept in /tmp)
# Prints the best of three runs, by wall-clock time and by CPU time (user + sys): on a
# busy machine the CPU time is the steadier number.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-10000000}
trace=/tmp/dyl-bench-$rows.csv
model=/tmp/dyl-bench-$rows-model.csv
make -s bin/dyl-speedup
[ -s "$trace" ] || /usr/bin/python3 bench/gen_trace.py -n "$rows" -o "$trace" --model "$model"
cat "$trace" > /dev/null	# in the page cache: the number is about parsing, not the disk
best_wall=999999 best_cpu=999999
for _ in 1 2 3; do
	t=$( { /usr/bin/time -f '%e %U %S' bin/dyl-speedup "$trace" "$model" \
		models/example-pcie-gpu-dgemm.csv > /dev/null; } 2>&1 | tail -1)
	read -r wall user sys <<<"$t"
	best_wall=$(awk -v a="$best_wall" -v b="$wall" 'BEGIN{print (b < a) ? b : a}')
	best_cpu=$(awk -v a="$best_cpu" -v b="$user" -v c="$sys" 'BEGIN{print (b + c < a) ? b + c : a}')
done
size=$(stat -c %s "$trace")
awk -v r="$rows" -v w="$best_wall" -v c="$best_cpu" -v s="$size" 'BEGIN{
	printf "dyl-speedup: %d rows (%.0f MB): %.2f s wall -> %.1f M rows/s; %.2f s CPU -> %.1f M rows/s\n",
	       r, s / 1e6, w, r / w / 1e6, c, r / c / 1e6 }'
