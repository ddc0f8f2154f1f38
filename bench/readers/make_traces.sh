#!/bin/bash
# The traces bench/readers/run.sh reads (kept in /tmp, made once):
#   /tmp/dyl-readers-syn-ROWS.csv   bench/gen_trace.py's synthetic LAPACK-like trace (4
#                                   threads, nested calls, rows in end order)
#   /tmp/dyl-readers-tiny-ROWS/t.csv   a real run: tests/apps/tinyapp under the default wrapper,
#   .../.t.csv.dylspool             4 threads making ROWS/4 calls each, with
#                                   DYL_CONVERT=keep: the same rows as CSV and as the spool
#   bench/readers/make_traces.sh [ROWS]     (default 10000000)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
rows=${1:-10000000}
syn=/tmp/dyl-readers-syn-$rows.csv
W=/tmp/dyl-readers-tiny-$rows
[ -s "$syn" ] || /usr/bin/python3 bench/gen_trace.py -n "$rows" -o "$syn"
if [ ! -s "$W/.t.csv.dylspool" ]; then
	mkdir -p "$W"
	cc -O2 -fPIC -shared -Wl,-soname,libtiny.so -o "$W/libtiny.so" tests/apps/libtiny.c
	cc -O2 -Itests/apps -o "$W/tinyapp" tests/apps/tinyapp.c -L"$W" -ltiny \
		-Wl,-rpath,"$W" -lpthread
	bin/dyliberator -q --lib "$W/libtiny.so" --header tests/apps/tiny.h -o "$W/wrap.so"
	DYL_CONVERT=keep DYL_TRACE="$W/t.csv" LD_PRELOAD="$W/wrap.so" \
		"$W/tinyapp" threads 4 $((rows / 4)) > /dev/null
fi
ls -l "$syn" "$W/t.csv" "$W/.t.csv.dylspool"
