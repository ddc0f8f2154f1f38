#!/usr/bin/env bash
# Per-call overhead of the wrappers, beside ltrace and uftrace.
#   bench/percall/run.sh [ROUNDS [N]]     (defaults: 7 rounds, N = 10^7 calls)
#   CONFIGS="time_trace time_exit time_later" bench/percall/run.sh ...   (only these)
# time_trace is the default wrapper as a user runs it (DYL_CONVERT=auto: the CSV at exit
# for a spool of at most 64M, about 4 million calls; for more, the rows stay in the
# spool); time_exit is the same with DYL_CONVERT=exit (the CSV at exit, whatever the
# size: the default before auto); time_later with DYL_CONVERT=later (the rows always stay
# in the spool).  For these three the previous run's trace and spool are removed before
# each run, outside the measure; time_later_old leaves them, so the run pays for
# truncating the old spool (the case of running the program again before `dyl-trace
# convert`).
# Each round runs every configuration once, interleaved; the table gives the median and
# range over the rounds of: the loop's CPU time per call (the app measures it around the
# loop, so start-up and the final trace write are excluded), the whole process's CPU time
# per call (user+sys from /usr/bin/time: includes writing the trace), and peak RSS.
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-7}
N=${2:-10000000}
. ../lib.sh	# scratch, med
scratch
cc -O2 -fPIC -shared -Wl,-soname,libnop.so -o "$W/libnop.so" libnop.c
cc -O2 -o "$W/loop" loop.c -I. "$W/libnop.so" -Wl,-rpath,"$W"
configs=(plain forward time_trace time_exit time_later time_later_old time_mono papi args faults)
command -v uftrace >/dev/null && configs+=(uftrace)
command -v ltrace >/dev/null && configs+=(ltrace)
[ -n "${CONFIGS:-}" ] && read -r -a configs <<<"$CONFIGS"
want() { [[ " ${configs[*]} " == *" $1 "* ]]; }
gen() { "$ROOT/bin/dyliberator" -q --lib "$W/libnop.so" --header nop.h -o "$W/$1.so" "${@:2}"; }
want forward && gen forward --no-default
gen time_trace
want papi && gen papi -g std.papi
want args && gen args -g std.args
want faults && gen faults -g std.faults	# time_trace + the page faults of each call

declare -A loop proc rss wall
run_one() {	# config -> appends "loop proc rss"
	local c=$1 n=$N pre=() env=(DYL_TRACE="$W/t.csv")
	case $c in
	plain) ;;
	uftrace) pre=(uftrace record --force -d "$W/uftrace.data") ;;
	ltrace) n=$((N / 1000)); pre=(ltrace -e nop -o /dev/null) ;;	# ptrace: wall time is its cost
	time_mono) env+=(LD_PRELOAD="$W/time_trace.so" DYL_CLOCK=monotonic) ;;	# the clock_gettime clock
	time_trace) rm -f "$W/tt.csv" "$W/.tt.csv.dylspool"
		env=(DYL_TRACE="$W/tt.csv" LD_PRELOAD="$W/time_trace.so") ;;
	time_exit) rm -f "$W/te.csv" "$W/.te.csv.dylspool"
		env=(DYL_TRACE="$W/te.csv" LD_PRELOAD="$W/time_trace.so" DYL_CONVERT=exit) ;;
	time_later) rm -f "$W/tl.csv" "$W/.tl.csv.dylspool"
		env=(DYL_TRACE="$W/tl.csv" LD_PRELOAD="$W/time_trace.so" DYL_CONVERT=later) ;;
	time_later_old) env=(DYL_TRACE="$W/tlo.csv" LD_PRELOAD="$W/time_trace.so" DYL_CONVERT=later) ;;
	*) env+=(LD_PRELOAD="$W/$c.so") ;;
	esac
	local out
	out=$(env "${env[@]}" /usr/bin/time -f "TIME %U %S %M %e" "${pre[@]}" "$W/loop" "$n" 2>&1 >/dev/null)
	local l=$(awk '/loop_ns_per_call/ {print $2}' <<<"$out")
	local t=$(awk -v n="$n" '/^TIME/ {printf "%.2f", ($2 + $3) * 1e9 / n}' <<<"$out")
	local m=$(awk '/^TIME/ {print $4}' <<<"$out")
	local el=$(awk -v n="$n" '/^TIME/ {printf "%.2f", $5 * 1e9 / n}' <<<"$out")
	loop[$c]+="$l " proc[$c]+="$t " rss[$c]+="$m " wall[$c]+="$el "
}
for r in $(seq "$ROUNDS"); do
	for c in "${configs[@]}"; do run_one "$c"; done
done
printf '%-11s %-24s %-24s %-26s %-22s\n' config "loop CPU ns/call" "process CPU ns/call" "wall ns/call" "peak RSS KiB"
for c in "${configs[@]}"; do
	printf '%-11s %-24s %-24s %-26s %-22s\n' "$c" "$(med <<<"${loop[$c]}")" "$(med <<<"${proc[$c]}")" \
		"$(med <<<"${wall[$c]}")" "$(med <<<"${rss[$c]}")"
done
echo "(N = $N calls; ltrace runs N/1000 calls; loop ns/call includes the bare call, ~1-2 ns)"
if want time_trace; then	# where the default run left its rows
	[ -e "$W/.tt.csv.dylspool" ] && where="the spool (rows_in_spool)" || where="the CSV"
	echo "time_trace (DYL_CONVERT=auto) left its rows in $where"
fi
if want time_later; then	# what the conversion costs when the user asks for it
	t=$(/usr/bin/time -f "%U %S" "$ROOT/bin/dyl-trace" convert "$W/tl.csv" 2>&1 >/dev/null | tail -1)
	awk -v n="$N" '{printf "dyl-trace convert of the last time_later trace: %.1f ns a row (CPU)\n", ($1 + $2) * 1e9 / n}' <<<"$t"
fi
