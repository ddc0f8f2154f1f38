#!/usr/bin/env bash
# Generation and build time of whole-library wrappers: median and spread of N runs.
#   bench/generate.sh [N]      (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-5}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f (%.2f-%.2f)", m, a[1], a[NR]}'; }
printf '%-22s %9s %26s %26s\n' library functions "generate s, median (range)" "build s, median (range)"
for lib in /usr/lib/x86_64-linux-gnu/libcrypto.so.3 /usr/lib/x86_64-linux-gnu/libjpeg.so.62 \
           /usr/lib/x86_64-linux-gnu/blas/libblas.so.3; do
	gen=() build=()
	for i in $(seq "$N"); do
		s=$(date +%s.%N)
		bin/dyliberator -q --lib "$lib" --no-build -o "$T/w.so"
		m=$(date +%s.%N)
		make -s -C "$T/w.d" >/dev/null
		e=$(date +%s.%N)
		gen+=("$(echo "$m - $s" | bc)") build+=("$(echo "$e - $m" | bc)")
	done
	n=$(grep -c '^DYL_EXPORT' "$T/w.d/wrap.c")
	printf '%-22s %9d %26s %26s\n' "$(basename "$lib")" "$n" \
		"$(printf '%s\n' "${gen[@]}" | median)" "$(printf '%s\n' "${build[@]}" | median)"
done
