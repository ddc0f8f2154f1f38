#!/bin/bash
# A process killed with SIGKILL after N calls in each of T threads (plus N in its main
# thread): how long dyl-trace takes to read its rows back from the spool, and whether
# they are all there.
#   bench/killed.sh [N [THREADS [RUNS]]]     (defaults: 2500000 calls, 3 threads, 5 runs)
# Prints the median (range) CPU time (user + sys) of `dyl-trace cat` over the spool,
# rows per second at the median, and the row count against the calls made.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-2500000}
threads=${2:-3}
runs=${3:-5}
ROOT=$PWD
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
. bench/lib.sh	# killed_run
make -s all
killed_run "$threads" "$n"
calls=$(( n * (threads + 1) ))
echo "spool: $(du -h "$W/.t.csv.dylspool" | cut -f1) for $calls calls"
cpus=()
for _ in $(seq "$runs"); do
	t=$( { /usr/bin/time -f '%U %S' bin/dyl-trace cat "$W/t.csv" > "$W/rows.csv"; } 2>&1 | tail -1)
	cpus+=("$(awk '{print $1 + $2}' <<<"$t")")
done
rows=$(grep -c '^[0-9]' "$W/rows.csv")
printf '%s\n' "${cpus[@]}" | sort -g | awk -v rows="$rows" -v calls="$calls" '
	{ v[NR] = $1 } END {
		m = v[int((NR + 1) / 2)]
		printf "dyl-trace cat of the killed run: %.2f s CPU (%.2f-%.2f), %.1f M rows/s; rows %d of %d calls\n",
			m, v[1], v[NR], rows / m / 1e6, rows, calls }'
