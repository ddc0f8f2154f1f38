#!/bin/bash
# bench/flow/names.sh - std.flow's fixed cost on short numpy runs, over std.regions, and
# what the tool then pays to name the sites (issue 38: names made offline).
#
#   bench/flow/names.sh [ROUNDS [REV]]      (default 7 rounds; REV: also REV's runtime)
#
# Wrappers of the BLAS numpy uses (libblas.so.3, cblas.h) with -g std.regions and with
# -g std.flow (and with REV's std.flow, e.g. e52bcc7, from before issue 33, which named
# sites in the process at its exit).  ROUNDS interleaved rounds of `import numpy` and of
# examples/numpy_power.py 64 5 and 300 20 under each; the medians (ranges) of the
# process's CPU ms (user + system), and of dyl-flow --objects on the 300 x 20 run.
set -euo pipefail
cd "$(dirname "$0")"
. ../lib.sh
scratch
ROUNDS=${1:-7}
REV=${2:-}
PY=/usr/bin/python3
BLAS=/usr/lib/x86_64-linux-gnu/libblas.so.3
CBLAS=/usr/include/x86_64-linux-gnu/cblas.h
make -s -C "$ROOT" all
gens=(regions flow)
for g in regions flow; do
	"$ROOT/bin/dyliberator" -q --lib $BLAS --header $CBLAS -g std.$g -o "$W/$g.so"
done
if [ -n "$REV" ]; then
	old_checkout "$REV"
	"$W/old/bin/dyliberator" -q --lib $BLAS --header $CBLAS -g std.flow -o "$W/before.so"
	gens+=(before)
fi

cpu_ms() {	# cpu_ms PRELOAD COMMAND...: the CPU ms of one run (PRELOAD '' for none)
	local pre=$1; shift
	rm -f "$W/t.csv" "$W/t.csv.flow"
	/usr/bin/time -f '%U %S' -o "$W/time" env ${pre:+LD_PRELOAD=$pre DYL_TRACE=$W/t.csv} \
		"$@" >/dev/null
	awk '{printf "%.0f\n", ($1 + $2) * 1000}' "$W/time"
}

for run in "import" "64 5" "300 20"; do
	if [ "$run" = import ]; then cmd=($PY -c 'import numpy'); else
		cmd=($PY "$ROOT/examples/numpy_power.py" $run); fi
	declare -A t=()
	for _ in $(seq "$ROUNDS"); do
		t[plain]+=" $(cpu_ms '' "${cmd[@]}")"
		for g in "${gens[@]}"; do t[$g]+=" $(cpu_ms "$W/$g.so" "${cmd[@]}")"; done
	done
	echo "## ${cmd[*]#$ROOT/}: process CPU ms, medians (ranges) of $ROUNDS rounds"
	for g in plain "${gens[@]}"; do echo "$g: $(med 0 <<<"${t[$g]}")"; done
	echo "std.flow over std.regions: $(minus "${t[flow]}" "${t[regions]}" | med 0)"
	[ -n "$REV" ] && echo "$REV's std.flow over std.regions: $(minus "${t[before]}" "${t[regions]}" | med 0)"
	unset t
done
LD_PRELOAD=$W/flow.so DYL_TRACE=$W/n.csv $PY "$ROOT/examples/numpy_power.py" 300 20 >/dev/null
tool=""
for _ in $(seq "$ROUNDS"); do
	/usr/bin/time -f '%U %S' -o "$W/time" "$ROOT/bin/dyl-flow" --objects "$W/n.csv" >/dev/null 2>&1
	tool+=" $(awk '{printf "%.0f", ($1 + $2) * 1000}' "$W/time")"
done
echo "dyl-flow --objects on the 300 x 20 run: $(med 0 <<<"$tool") CPU ms"
