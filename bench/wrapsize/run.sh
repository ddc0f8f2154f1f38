#!/usr/bin/env bash
# What a fresh wrapper of a whole library costs to build, against the hand-written floor.
#   bench/wrapsize/run.sh [ROUNDS [N]]     (defaults: 5 rounds, N = 1000 functions)
#   OLD=/path/to/other/checkout bench/wrapsize/run.sh: also its wrappers, interleaved
# The library: gen.py's N functions of varied prototypes (0-6 parameters: integers,
# doubles, floats, pointers, strings).  The floor: gen.py's floor.c, each function
# resolving its original once with dlsym(RTLD_NEXT) and forwarding, compiled alone as
# the wrapper's units are (-O0 -g) and at -O2 -g.  Each round, interleaved: the floor,
# then per wrapper (default: std.time + std.trace; -g std.regions) dyliberator from
# nothing ("with generation": generating and building) and make again from the same
# sources ("build only": every unit compiled and linked).  Printed: CPU seconds
# (user+sys, /usr/bin/time, of everything the command ran), median (range), the ratio
# of the medians to the floor's at -O0 -g, and the C bytes a function (the units of
# wrappers, wrap_NNN.c, divided by N; the floor's file divided by N).
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-5}
N=${2:-1000}
. ../lib.sh	# scratch, med
scratch
/usr/bin/python3 gen.py "$N" "$W"
cc -O2 -fPIC -shared -Wl,-soname,libwide.so -o "$W/libwide.so" "$W/libwide.c"
declare -A cpu bytes
cputime() {	# KEY command... -> appends its CPU seconds (user+sys) to cpu[KEY]
	local key=$1; shift
	/usr/bin/time -o "$W/time" -f '%U %S' "$@" >/dev/null 2>&1
	cpu[$key]+="$(awk '{print $1 + $2}' "$W/time") "
}
wrapper() {	# KEY ROOT args... -> dyliberator from nothing, then make again
	local key=$1 root=$2; shift 2
	rm -rf "$W/w.so" "$W/w.d"
	cputime "$key, with generation" "$root/bin/dyliberator" -q --lib "$W/libwide.so" \
		--header "$W/wide.h" -o "$W/w.so" "$@"
	rm -f "$W"/w.d/*.o "$W/w.d/wrap.so"
	cputime "$key, build only" make -s -C "$W/w.d" -j"$(nproc)"
	bytes[$key]=$(cat "$W"/w.d/wrap_*.c 2>/dev/null | wc -c)
}
keys=("floor -O0 -g" "floor -O2 -g")
for c in default regions; do
	for o in "" ${OLD:+" (OLD)"}; do
		keys+=("$c$o, with generation" "$c$o, build only")
	done
done
for r in $(seq "$ROUNDS"); do
	cputime "floor -O0 -g" cc -O0 -g -fPIC -shared -o "$W/floor.so" "$W/floor.c" -ldl
	cputime "floor -O2 -g" cc -O2 -g -fPIC -shared -o "$W/floor.so" "$W/floor.c" -ldl
	for root in "$ROOT" ${OLD:+"$OLD"}; do
		o=""; [ "$root" != "$ROOT" ] && o=" (OLD)"
		wrapper "default$o" "$root"
		wrapper "regions$o" "$root" -g std.regions
	done
done
floor=$(med 3 <<<"${cpu[floor -O0 -g]}"); floor=${floor%% *}
echo "$N functions, $ROUNDS rounds; CPU s (user+sys), median (range); x the floor at -O0 -g"
for k in "${keys[@]}"; do
	m=$(med 2 <<<"${cpu[$k]}")
	printf '%-34s %-20s %5.2fx\n' "$k" "$m" "$(awk -v a="${m%% *}" -v b="$floor" 'BEGIN {print a / b}')"
done
echo "C bytes a function: floor $(( $(wc -c <"$W/floor.c") / N ))"
for c in default regions; do
	for o in "" ${OLD:+" (OLD)"}; do
		echo "  $c$o: $(( ${bytes[$c$o]:-0} / N )) (its units of wrappers, wrap_NNN.c)"
	done
done
