#!/usr/bin/env bash
# std.flow on long runs over a fixed live set (issue 38): streambench.c makes N calls
# (one a round) over 8 live 64 KiB heap blocks under a std.flow wrapper; for N = 0.3 M
# and 3 M: the process's peak RSS (the exit's TRACE.flow included), its CPU time, that
# of its exit (after main returned: the trace's CSV and TRACE.flow), the bytes it left on
# disk a call (trace, spool if any, TRACE.flow) and TRACE.flow's alone, medians over ROUNDS
# interleaved rounds.  With OLD (a built checkout: make all done), the same with OLD's
# wrapper in each round, interleaved: before and after.
#   bench/flow/stream.sh [ROUNDS [OLD]]        (default 5 rounds)
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-5}
OLD=${2:-}
. ../lib.sh	# scratch, med
scratch
make -s -C "$ROOT" all
cc -O2 -fPIC -shared -Wl,-soname,libptrs.so -o "$W/libptrs.so" libptrs.c
cc -O2 -o "$W/streambench" streambench.c -I. "$W/libptrs.so" -Wl,-rpath,"$W"
"$ROOT/bin/dyliberator" -q --lib "$W/libptrs.so" --header ptrs.h -o "$W/new.so" -g std.flow
trees=(new)
if [ -n "$OLD" ]; then
	"$OLD/bin/dyliberator" -q --lib "$W/libptrs.so" --header ptrs.h -o "$W/old.so" -g std.flow
	trees=(old new)
fi
declare -A rss cpu bpc ex fl
for r in $(seq "$ROUNDS"); do
	for n in 300000 3000000; do
		for t in "${trees[@]}"; do
			rm -rf "$W/run" && mkdir "$W/run"
			s=$( { /usr/bin/time -f "%M %U %S" env LD_PRELOAD="$W/$t.so" DYL_TRACE="$W/run/t.csv" \
				"$W/streambench" "$n" >"$W/out"; } 2>&1 | tail -1)
			read -r m u sy <<<"$s"
			read -r _ main <"$W/out"
			ex[$t.$n]+="$(awk -v u="$u" -v s="$sy" -v m="$main" 'BEGIN{print u+s-m}') "
			fl[$t.$n]+="$(awk -v b="$(stat -c %s "$W/run/t.csv.flow")" -v n="$n" 'BEGIN{print b/n}') "
			rss[$t.$n]+="$(awk -v m="$m" 'BEGIN{print m/1024}') "
			cpu[$t.$n]+="$(awk -v u="$u" -v s="$sy" 'BEGIN{print u+s}') "
			bytes=$(du -sb --apparent-size "$W/run" | cut -f1)
			bpc[$t.$n]+="$(awk -v b="$bytes" -v n="$n" 'BEGIN{print b/n}') "
		done
	done
done
for t in "${trees[@]}"; do
	for n in 300000 3000000; do
		echo "$t N=$n: peak RSS $(med <<<"${rss[$t.$n]}") MiB, CPU $(med 2 <<<"${cpu[$t.$n]}") s" \
			"(exit $(med 2 <<<"${ex[$t.$n]}") s), on disk $(med <<<"${bpc[$t.$n]}") B a call," \
			"TRACE.flow $(med <<<"${fl[$t.$n]}") B a call"
	done
done
