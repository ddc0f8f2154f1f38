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
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
make -s all
cc -O2 -fPIC -shared -Wl,-soname,libtiny.so -o "$W/libtiny.so" tests/apps/libtiny.c
cc -O2 -Itests/apps -o "$W/tinyapp" tests/apps/tinyapp.c -L"$W" -ltiny -Wl,-rpath,"$W" -lpthread
bin/dyliberator -q --lib "$W/libtiny.so" --header tests/apps/tiny.h -o "$W/wrap.so"
# the process: its calls, then "ready", then SIGKILL while it waits on its stdin
mkfifo "$W/in"
DYL_TRACE="$W/t.csv" LD_PRELOAD="$W/wrap.so" "$W/tinyapp" kill-me "$threads" "$n" < "$W/in" > "$W/out" &
pid=$!
exec 3> "$W/in"
while ! grep -q ready "$W/out" 2>/dev/null; do sleep 0.1; done
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
exec 3>&-
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
