#!/bin/bash
# How fast the commands read traces: rows per second on a synthetic trace (10^7 rows by
# default, 4 threads, rows in end order as the runtime writes them).
#   bench/readers.sh [ROWS [RUNS]]        (defaults: 10000000 rows, 5 runs)
# "faults" lines read the same trace with a faults column (gen_trace.py --faults: one call
# in 8 took page faults), which dyl-speedup and dyl-model act upon.
# The runs of the commands are interleaved; each line gives the median (and range) of
# the CPU time (user + sys: steadier on a busy machine) and of the wall time, and the
# rows per second at the median CPU time.  The trace is read once first, so the
# figures are about parsing, not the disk.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-10000000}
runs=${2:-5}
trace=/tmp/dyl-bench-$rows.csv
model=/tmp/dyl-bench-$rows-model.csv
model2d=/tmp/dyl-bench-$rows-model2d.csv	# the same kernels, keyed on work and bytes
faults=/tmp/dyl-bench-faults-$rows.csv
make -s all
[ -s "$trace" ] || /usr/bin/python3 bench/gen_trace.py -n "$rows" -o "$trace" --model "$model"
[ -s "$model2d" ] || /usr/bin/python3 bench/gen_trace.py -n "$rows" --model2d "$model2d"
[ -s "$faults" ] || /usr/bin/python3 bench/gen_trace.py -n "$rows" --faults -o "$faults"
cat "$trace" "$faults" > /dev/null
declare -A cpu wall
cmds=("dyl-speedup" "dyl-speedup 2-D" "dyl-speedup faults" "dyl-model" "dyl-model --bytes"
      "dyl-model faults" "dyl-trace summary" "dyl-trace cat")
for _ in $(seq "$runs"); do
	for c in "${cmds[@]}"; do
		case $c in
		dyl-speedup) args=(bin/dyl-speedup "$trace" "$model") ;;
		"dyl-speedup 2-D") args=(bin/dyl-speedup "$trace" "$model2d") ;;
		"dyl-speedup faults") args=(bin/dyl-speedup "$faults" "$model") ;;
		"dyl-model faults") args=(bin/dyl-model "$faults") ;;
		dyl-model) args=(bin/dyl-model "$trace") ;;
		"dyl-model --bytes") args=(bin/dyl-model --bytes "$trace") ;;
		*) args=(bin/$c "$trace") ;;
		esac
		t=$( { /usr/bin/time -f '%e %U %S' "${args[@]}" > /dev/null; } 2>&1 | tail -1)
		read -r w u s <<<"$t"
		cpu[$c]+="$(awk -v u="$u" -v s="$s" 'BEGIN{print u + s}') " wall[$c]+="$w "
	done
done
med() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f %.2f %.2f", m, a[1], a[NR]}'; }
printf '%s rows (%.0f MB), %d runs\n' "$rows" "$(stat -c %s "$trace" | awk '{print $1 / 1e6}')" "$runs"
for c in "${cmds[@]}"; do
	read -r cm clo chi <<<"$(med <<<"${cpu[$c]}")"
	read -r wm wlo whi <<<"$(med <<<"${wall[$c]}")"
	awk -v c="$c" -v r="$rows" -v cm="$cm" -v clo="$clo" -v chi="$chi" -v wm="$wm" -v wlo="$wlo" -v whi="$whi" 'BEGIN{
		printf "%-18s CPU %.2f s (%.2f-%.2f) -> %.1f M rows/s; wall %.2f s (%.2f-%.2f)\n",
		       c, cm, clo, chi, r / cm / 1e6, wm, wlo, whi }'
done
