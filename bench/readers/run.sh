#!/bin/bash
# dyl-trace summary and dyl-model on 10^7 rows: peak RSS and rows per CPU second, this
# checkout against an older build (OLD: a folder with bin/, default main's as
# tests/identical.py builds it), interleaved, from the CSV and from the spool.
#   bench/readers/run.sh [ROWS [ROUNDS [OLD]]]     (defaults: 10000000, 5, main's build)
# Traces: bench/readers/make_traces.sh (the synthetic LAPACK-like CSV, and a real run of
# tests/apps/tinyapp kept as CSV and as spool).  Each line: the median (range) of the CPU
# time (user + sys), rows per CPU second at the median, and the median peak RSS
# (/usr/bin/time %M, MiB).  The files are read once first (the page cache).
# With uftrace installed, also `uftrace report` on its own record of 10^7 calls (tinyapp
# built with -pg), for scale.
set -euo pipefail
trap 'echo "bench/readers/run.sh: line $LINENO failed" >&2' ERR
cd "$(dirname "$0")/../.."
ROOT=$PWD
rows=${1:-10000000}
rounds=${2:-5}
old=${3:-}
if [ -z "$old" ]; then
	sha=$(git rev-parse main)
	old=$ROOT/build/identical/${sha:0:12}
	[ -x "$old/bin/dyl-trace" ] || /usr/bin/python3 tests/identical.py main >/dev/null 2>&1 || true
fi
[ -x "$old/bin/dyl-trace" ] || { echo "no build at $old (OLD)"; exit 2; }
make -s all
bench/readers/make_traces.sh "$rows" > /dev/null
syn=/tmp/dyl-readers-syn-$rows.csv
tiny=/tmp/dyl-readers-tiny-$rows
inputs=("$syn" "$tiny/t.csv" "$tiny/.t.csv.dylspool")
names=(synthetic tinyapp.csv tinyapp.spool)
cat "${inputs[@]}" > /dev/null
declare -A cpu rss
tf=$(mktemp)
for _ in $(seq "$rounds"); do
	for i in 0 1 2; do
		for cmd in "dyl-trace summary" dyl-model; do
			for who in old new; do
				b=$ROOT/bin; [ $who = old ] && b=$old/bin
				set -- $cmd
				# (dyl-model exits 1 on tinyapp's trace: no work column, nothing to model,
				# after reading every row)
				/usr/bin/time -o "$tf" -f '%U %S %M' "$b/$1" ${2:+"$2"} "${inputs[$i]}" \
					> /dev/null 2>&1 || true
				read -r u s m < <(tail -1 "$tf")
				k="$who|$cmd|${names[$i]}"
				cpu[$k]+="$(awk -v u="$u" -v s="$s" 'BEGIN{print u + s}') " rss[$k]+="$m "
			done
		done
	done
done
med() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f %.2f %.2f", m, a[1], a[NR]}'; }
printf '%s rows, %d rounds; old: %s\n' "$rows" "$rounds" "$old"
printf '%-20s %-14s %-4s %-20s %12s %10s\n' command trace who "CPU s" "rows/CPU s" "RSS MiB"
for cmd in "dyl-trace summary" dyl-model; do
	for n in "${names[@]}"; do
		for who in old new; do
			k="$who|$cmd|$n"
			read -r cm clo chi <<<"$(med <<<"${cpu[$k]}")"
			read -r mm _ _ <<<"$(med <<<"${rss[$k]}")"
			awk -v c="$cmd" -v n="$n" -v w="$who" -v r="$rows" -v cm="$cm" -v clo="$clo" -v chi="$chi" -v mm="$mm" 'BEGIN{
				printf "%-20s %-14s %-4s %.2f (%.2f-%.2f)     %8.1f M %10.1f\n", c, n, w, cm, clo, chi, r / cm / 1e6, mm / 1024 }'
		done
	done
done
if command -v uftrace > /dev/null; then
	W=/tmp/dyl-readers-uftrace
	mkdir -p "$W"
	[ -x "$W/tinypg" ] || cc -O1 -pg -Itests/apps -o "$W/tinypg" tests/apps/tinyapp.c tests/apps/libtiny.c -lpthread
	[ -d "$W/data" ] || uftrace record -d "$W/data" --buffer 4M "$W/tinypg" calls "$rows" > /dev/null
	t=$( { /usr/bin/time -f '%U %S %M' uftrace report -d "$W/data" > /dev/null; } 2>&1 | tail -1)
	read -r u s m <<<"$t"
	awk -v u="$u" -v s="$s" -v m="$m" -v r="$rows" 'BEGIN{ printf "uftrace report, %d calls: CPU %.2f s, %.1f M calls/CPU s, RSS %.1f MiB\n", r, u + s, r / (u + s) / 1e6, m / 1024 }'
fi
