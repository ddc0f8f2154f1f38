#!/usr/bin/env bash
# dyl-flow's reading speed (issue 23's goal: at least 3 million calls a second).
#   bench/flow/read.sh [CALLS [ROUNDS]]        (defaults: 1000000 calls, 5 rounds)
# readgen.c writes two synthetic runs of CALLS depth-0 calls, 3 accesses each (2 reads, a
# write, 4 KiB blocks, a block freed and another allocated every 50 calls):
#   random    each call's blocks drawn at random among 64: the worst case for the
#             engine's caches (every read a new producer -> consumer pair on its block);
#   pipeline  call i reads what call i-1 wrote and a table every call reads.
# Per round, interleaved: `dyl-flow TRACE` (the trace's CSV rows and TRACE.flow through
# the engine, the edges printed), `dyl-trace summary TRACE` (the CSV rows read and
# summarised, what any reader of the trace pays) and dyl-flow on the same rows with a
# TRACE.flow of its head alone (what dyl-flow pays for the rows: the floor), CPU time
# (user + sys).  Prints medians and ranges, and calls a second for dyl-flow whole and
# for its part beyond reading the CSV.
set -euo pipefail
cd "$(dirname "$0")"
N=${1:-1000000}
ROUNDS=${2:-5}
. ../lib.sh	# scratch, med
scratch
make -s -C "$ROOT" bin/dyl-flow bin/dyl-trace
cc -O2 -std=gnu11 -I"$ROOT/runtime/format" -o "$W/gen" readgen.c
"$W/gen" "$N" "$W/random.csv"
"$W/gen" "$N" "$W/pipeline.csv" pipeline
cp "$W/random.csv" "$W/rows.csv"
head -c 32 "$W/random.csv.flow" >"$W/rows.csv.flow"	# the head: no events
cpu() {	# CPU seconds of a command, its output dropped
	/usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'
}
for kind in random pipeline; do
	flow= csv= rows=
	for r in $(seq "$ROUNDS"); do
		flow="$flow $(cpu "$ROOT/bin/dyl-flow" "$W/$kind.csv")"
		csv="$csv $(cpu "$ROOT/bin/dyl-trace" summary "$W/$kind.csv")"
		rows="$rows $(cpu "$ROOT/bin/dyl-flow" "$W/rows.csv")"
	done
	mf=$(med 2 <<<"$flow" | cut -d' ' -f1)
	mc=$(med 2 <<<"$csv" | cut -d' ' -f1)
	echo "$kind: $N calls, $(du -m "$W/$kind.csv.flow" | cut -f1) MB of TRACE.flow"
	echo "  dyl-flow          $(med 2 <<<"$flow") s CPU: $(awk -v n="$N" -v t="$mf" 'BEGIN {printf "%.2f", n / t / 1e6}') M calls/s"
	echo "  dyl-trace summary $(med 2 <<<"$csv") s CPU (the CSV rows alone)"
	echo "  dyl-flow, rows    $(med 2 <<<"$rows") s CPU (its TRACE.flow a head alone)"
	echo "  beyond the CSV    $(awk -v a="$mf" -v b="$mc" -v n="$N" 'BEGIN {printf "%.2f s: %.2f M calls/s", a - b, n / (a - b) / 1e6}')"
done
