#!/usr/bin/env bash
# The spool's conversion and reading: this checkout against an older one, interleaved.
#   bench/spool/run.sh [CALLS [THREADS [ROUNDS [OLD]]]]
#     (defaults: 2500000 calls in each of 3 threads and the main thread, 5 rounds,
#      OLD = the commit before runtime/format/, d60f8e6; a later one, main's say, works too)
# A process that made CALLS x (THREADS + 1) calls is killed with SIGKILL: its spool stays.
# Then, per round and per checkout:
#   convert: spool2csv (bench/spool/spool2csv.c: what the runtime does at exit), CPU ns
#            a row, into /dev/null;
#   to file: the same into a file beside the spool (the runtime's case: the kernel's copy
#            of the bytes into the page cache counted too; the file removed after);
#   floor:   (once, not per checkout) writefloor (bench/spool/writefloor.c): the same
#            bytes written with write(2) alone into such a file, in the runtime's blocks:
#            what a conversion into a file costs at least on this machine;
#   read:    readrows (bench/spool/readrows.c): the killed trace's rows through the tools'
#            reader (rows.h) and nothing else, CPU ns a row;
#   cat, summary: `dyl-trace cat|summary` of the killed trace, CPU (user + sys) and
#            millions of rows a second.
# The CSV of both checkouts is compared (cmp) first: the bytes must be the same.
set -euo pipefail
cd "$(dirname "$0")"
N=${1:-2500000}
THREADS=${2:-3}
ROUNDS=${3:-5}
OLD=${4:-d60f8e6}
. ../lib.sh	# scratch, old_checkout, killed_run, med
scratch
old_checkout "$OLD"
# (a checkout with csvconv.c: the runtime's own conversion loop)
conv() { [ -f "$1/runtime/format/csvconv.c" ] && echo -DHAVE_CONVERT || true; }
cc -O2 -std=gnu11 $(conv "$ROOT") -I"$ROOT/runtime/format" -I"$ROOT/runtime/include" -o "$W/s2c-new" \
	spool2csv.c "$ROOT"/runtime/format/*.c
if [ -d "$W/old/runtime/format" ]; then	# OLD after runtime/format/ (main's, say)
	cc -O2 -std=gnu11 $(conv "$W/old") -I"$W/old/runtime/format" -I"$W/old/runtime/include" -o "$W/s2c-old" \
		spool2csv.c "$W"/old/runtime/format/*.c
	cc -O2 -std=gnu11 -I"$W/old/speedup/lib" -I"$W/old/runtime/format" \
		-I"$W/old/runtime/include" -o "$W/read-old" readrows.c \
		"$W"/old/speedup/lib/*.c "$W"/old/runtime/format/*.c -lm
else
	cc -O2 -std=gnu11 -I"$W/old/runtime/include" -o "$W/s2c-old" spool2csv.c "$W/old/runtime/convert.c"
	cc -O2 -std=gnu11 -I"$W/old/speedup" -I"$W/old/runtime/include" -o "$W/read-old" readrows.c \
		$(ls "$W"/old/speedup/*.c | grep -v /dyl-) "$W/old/runtime/convert.c" -lm
fi
cc -O2 -o "$W/writefloor" writefloor.c
cc -O2 -std=gnu11 -I"$ROOT/speedup/lib" -I"$ROOT/runtime/format/read" -I"$ROOT/runtime/format" \
	-I"$ROOT/runtime/include" -o "$W/read-new" readrows.c \
	"$ROOT"/speedup/lib/*.c "$ROOT"/runtime/format/read/*.c "$ROOT"/runtime/format/*.c -lm -ldw -lelf
killed_run "$THREADS" "$N"
spool="$W/.t.csv.dylspool"
rows=$(( N * (THREADS + 1) ))
"$W/s2c-old" "$spool" "$W/old.csv" 2>/dev/null
"$W/s2c-new" "$spool" "$W/new.csv" 2>/dev/null
cmp "$W/old.csv" "$W/new.csv" && echo "the CSV of both: identical ($(wc -l < "$W/new.csv") lines)"
"$W/old/bin/dyl-trace" cat "$W/t.csv" > "$W/old-cat.csv" 2>/dev/null
"$ROOT/bin/dyl-trace" cat "$W/t.csv" > "$W/new-cat.csv" 2>/dev/null
cmp "$W/old-cat.csv" "$W/new-cat.csv" && echo "dyl-trace cat of both: identical"
declare -A f
cpu() { /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'; }
for _ in $(seq "$ROUNDS"); do
	for v in old new; do
		f[convert-$v]+="$("$W/s2c-$v" "$spool" /dev/null 2>&1 | awk '{print $4}') "
		f[tofile-$v]+="$("$W/s2c-$v" "$spool" "$W/round.csv" 2>&1 | awk '{print $4}') "
		rm -f "$W/round.csv"
		if [ $v = new ]; then
			f[floor]+="$("$W/writefloor" "$W/new.csv" "$W/round.csv" "$rows" 2>&1 |
				awk '{print $2}') "
			rm -f "$W/round.csv"
		fi
		f[read-$v]+="$("$W/read-$v" "$W/t.csv" 2>&1 | awk '/read_ns/ {print $4}') "
		bin=$ROOT/bin; [ $v = old ] && bin=$W/old/bin
		f[cat-$v]+="$(cpu "$bin/dyl-trace" cat "$W/t.csv") "
		f[summary-$v]+="$(cpu "$bin/dyl-trace" summary "$W/t.csv") "
	done
done
echo "$rows rows ($THREADS + 1 threads), $ROUNDS rounds; median (range)"
printf '%-8s %-4s %s ns a row\n' floor "" "$(med 2 <<<"${f[floor]}")"
for k in convert tofile read cat summary; do
	for v in old new; do
		m=$(med 2 <<<"${f[$k-$v]}")
		case $k in
		convert | tofile) printf '%-8s %-4s %s ns a row\n' "$k" "$v" "$m" ;;
		read) printf '%-8s %-4s %s ns a row, %s M rows/s\n' "$k" "$v" "$m" \
			"$(awk -v n="${m%% *}" 'BEGIN{printf "%.1f", 1e3 / n}')" ;;
		*) printf '%-8s %-4s %s s CPU, %s M rows/s\n' "$k" "$v" "$m" \
			"$(awk -v r="$rows" -v s="${m%% *}" 'BEGIN{printf "%.1f", r / s / 1e6}')" ;;
		esac
	done
done
