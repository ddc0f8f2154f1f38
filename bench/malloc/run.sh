#!/usr/bin/env bash
# The cost of std.regions: malloc/free pairs with its allocator tracking, beside plain
# runs and heaptrack; and the per-call cost of charging pointer arguments.
#   bench/malloc/run.sh [ROUNDS [N]]      (defaults: 7 rounds, N = 4*10^6 pairs or calls)
# Rounds interleave the configurations; each figure is the median over the rounds of the
# CPU time per pair (per call) that the program measures around its loop, with the range.
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-7}
N=${2:-4000000}
. ../lib.sh	# scratch, med
scratch
cc -O2 -o "$W/mallocbench" mallocbench.c -lpthread
cc -O2 -fPIC -shared -Wl,-soname,libargs.so -o "$W/libargs.so" libargs.c
cc -O2 -o "$W/callbench" callbench.c -I. "$W/libargs.so" -Wl,-rpath,"$W"
# the same with debug information: a stack pointer is charged by its variable (DWARF)
cc -O2 -g -o "$W/callbench-g" callbench.c -I. "$W/libargs.so" -Wl,-rpath,"$W"
gen() { "$ROOT/bin/dyliberator" -q --lib "$W/libargs.so" --header args.h -o "$W/$1.so" "${@:2}"; }
gen trace			# std.time + std.trace
gen regions -g std.regions	# + the allocator interposers and the charge
gen diff -g std.diff		# the full method instead
gen forward --no-default	# no interposers: the forwarding core alone

declare -A res
one() {	# key, command...: appends the figure the program prints, and (key+) the CPU
	# time of the whole command, its child processes included, per pair
	local key=$1 out; shift
	out=$(/usr/bin/time -f "TIME %U %S" "$@" 2>&1)
	res[$key]+="$(awk '/_per_/ {print $2}' <<<"$out") "
	res[$key+]+="$(awk -v n="$N" '/^TIME/ {printf "%.1f", ($2 + $3) * 1e9 / n}' <<<"$out") "
}
configs=(plain regions)
command -v heaptrack >/dev/null && configs+=(heaptrack)
for r in $(seq "$ROUNDS"); do
	for t in 1 2; do
		for c in "${configs[@]}"; do
			case $c in
			plain) one "$c/$t" "$W/mallocbench" "$N" "$t" ;;
			regions) one "$c/$t" env LD_PRELOAD="$W/regions.so" DYL_TRACE="$W/t.csv" "$W/mallocbench" "$N" "$t" ;;
			heaptrack) one "$c/$t" heaptrack -o "$W/ht" "$W/mallocbench" "$N" "$t"; rm -f "$W"/ht* ;;
			esac
		done
	done
	for k in heap stack static stack-g; do
		exe=$W/callbench; arg=$k
		[ "$k" = stack-g ] && exe=$W/callbench-g && arg=stack
		one "trace/$k" env LD_PRELOAD="$W/trace.so" DYL_TRACE="$W/t.csv" "$exe" "$arg" "$N"
		one "regions/$k" env LD_PRELOAD="$W/regions.so" DYL_TRACE="$W/t.csv" "$exe" "$arg" "$((N / 10))"
		one "diff/$k" env LD_PRELOAD="$W/diff.so" DYL_TRACE="$W/t.csv" "$exe" "$arg" "$((N / 10))"
	done
done
printf '%-11s %-24s %-24s %-24s %-24s\n' "malloc" "loop CPU ns/pair, 1 thr" "2 threads" \
	"all CPU ns/pair, 1 thr" "2 threads"
for c in "${configs[@]}"; do
	printf '%-11s %-24s %-24s %-24s %-24s\n' "$c" "$(med <<<"${res[$c/1]}")" "$(med <<<"${res[$c/2]}")" \
		"$(med <<<"${res[$c/1+]}")" "$(med <<<"${res[$c/2+]}")"
done
printf '\n%-11s %-26s %-26s %-26s %-26s\n' "calls" "CPU ns/call, 3 heap ptrs" "CPU ns/call, 1 stack ptr" \
	"CPU ns/call, 1 static ptr" "1 stack ptr, built with -g"
for c in trace regions diff; do
	printf '%-11s %-26s %-26s %-26s %-26s\n' "$c" "$(med <<<"${res[$c/heap]}")" "$(med <<<"${res[$c/stack]}")" \
		"$(med <<<"${res[$c/static]}")" "$(med <<<"${res[$c/stack-g]}")"
done
# static objects: the first lookup into an object reads its symbols (staticbench.c)
cc -O2 -I"$ROOT/runtime/include" -o "$W/staticbench" staticbench.c "$ROOT/build/libdylrt.so" \
	-Wl,-rpath,"$ROOT/build" -ldl
libs="exe libc.so.6 libcrypto.so.3 libssl.so.3 libm.so.6"
export DYL_TRACE="$W/static.csv"	# (linked with the runtime: else it writes ./trace.csv)
for r in $(seq "$ROUNDS"); do "$W/staticbench" "$N" $libs | tail -n +2; done >"$W/static.txt"
echo
"$W/staticbench" 1 exe | head -1
for o in $libs; do
	printf '%-16s' "$o"
	for c in 2 3 4; do printf ' %10s' "$(awk -v o="$o" -v c="$c" '$1 == o {print $c}' "$W/static.txt" | sort -g \
		| awk '{a[NR]=$1} END {printf "%.1f", (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}')"; done
	awk -v o="$o" '$1 == o {printf " %14s %8s %10s\n", $5, $6, $7; exit}' "$W/static.txt"
done
echo "(static: median of $ROUNDS runs; rescan: the list of loaded objects read again after the"
echo " dlopen; first: the first lookup into the object, its symbols read; next: a lookup after)"
echo "(N = $N pairs; loop CPU: the traced process's own, measured around its loop; all CPU:"
echo " user+sys of the command and its children, start-up included: heaptrack's separate"
echo " heaptrack_interpret process counts there; calls: $N with std.time+std.trace, N/10 with std.regions or std.diff)"
