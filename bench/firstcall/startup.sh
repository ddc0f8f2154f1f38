#!/usr/bin/env bash
# What a short process pays for the wrapper: a program that makes 10 calls of libtiny
# (tinyapp calls 10), run 50 times a round, plain and with the default wrapper (time and
# trace); with OLD_RUNTIME_DIR (a build/ folder holding another checkout's libdylrt.so)
# the same wrapper a third time on that runtime; uftrace and ltrace where installed.
#   bench/firstcall/startup.sh [ROUNDS] [OLD_RUNTIME_DIR]      (default 11 rounds)
# Prints, per variant, the median and range over the rounds of the CPU time and minor
# page faults per process (start-up, the calls, the trace written, exit).
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-11}
OLD=${2:-}
. ../lib.sh	# scratch, med
scratch
A="$ROOT/tests/apps"
cc -O2 -o "$W/startup" startup.c
cc -O2 -fPIC -shared -Wl,-soname,libtiny.so -o "$W/libtiny.so" "$A/libtiny.c"
cc -O2 -I"$A" -o "$W/tinyapp" "$A/tinyapp.c" -L"$W" -ltiny -Wl,-rpath,"$W" -lpthread
"$ROOT/bin/dyliberator" -q --lib "$W/libtiny.so" --header "$A/tiny.h" -o "$W/wrap.so"
variants="plain wrapped"
[ -n "$OLD" ] && variants+=" old"
command -v uftrace >/dev/null && variants+=" uftrace"
command -v ltrace >/dev/null && variants+=" ltrace"
run() {	# VARIANT -> "cpu_us faults"
	local app=("$W/tinyapp" calls 10)
	case $1 in
	plain) "$W/startup" 50 env "${app[@]}" ;;
	wrapped) "$W/startup" 50 env DYL_TRACE="$W/t.csv" LD_PRELOAD="$W/wrap.so" "${app[@]}" ;;
	old) "$W/startup" 50 env DYL_TRACE="$W/o.csv" LD_LIBRARY_PATH="$OLD" LD_PRELOAD="$W/wrap.so" "${app[@]}" ;;
	uftrace) "$W/startup" 50 uftrace record --force -d "$W/uftrace.data" "${app[@]}" ;;
	ltrace) "$W/startup" 50 ltrace -e 'tiny_*' -o /dev/null "${app[@]}" ;;
	esac
}
declare -A cpu flt
for r in $(seq "$ROUNDS"); do
	for v in $variants; do
		read -r c f < <(run "$v")
		cpu[$v]+="$c " flt[$v]+="$f "
	done
done
echo "per process (plain, wrapped, old through env), medians of $ROUNDS rounds of 50 (range)"
printf '%-8s %26s %26s\n' variant "CPU us" "minor faults"
for v in $variants; do
	printf '%-8s %26s %26s\n' "$v" "$(med 1 <<<"${cpu[$v]}")" "$(med 1 <<<"${flt[$v]}")"
done
