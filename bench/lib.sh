# bench/lib.sh - what the bench scripts share; they source it.

# scratch: ROOT, the checkout, and W, a scratch directory removed when the script exits
# (for a script one level below bench/ that has cd'ed into its own directory)
scratch() {
	ROOT=$(cd ../.. && pwd)
	W=$(mktemp -d)
	trap 'rm -rf "$W"' EXIT
}

# old_checkout REV: this checkout and REV (a commit), both built; REV's tree in $W/old
# (for the scripts that compare a change with the code before it, interleaved)
old_checkout() {
	make -s -C "$ROOT" all
	mkdir -p "$W/old"
	git -C "$ROOT" archive "$1" | tar x -C "$W/old"
	make -s -C "$W/old" all >/dev/null 2>&1
}

# killed_run THREADS N: tests/apps/tinyapp under the default wrapper makes N calls in
# each of THREADS threads and its main thread, says "ready", and is killed with SIGKILL
# while it waits on its stdin.  Its spool stays: $W/.t.csv.dylspool.
killed_run() {
	cc -O2 -fPIC -shared -Wl,-soname,libtiny.so -o "$W/libtiny.so" "$ROOT/tests/apps/libtiny.c"
	cc -O2 -I"$ROOT/tests/apps" -o "$W/tinyapp" "$ROOT/tests/apps/tinyapp.c" -L"$W" -ltiny \
		-Wl,-rpath,"$W" -lpthread
	"$ROOT/bin/dyliberator" -q --lib "$W/libtiny.so" --header "$ROOT/tests/apps/tiny.h" \
		-o "$W/wrap.so"
	mkfifo "$W/in"
	DYL_TRACE="$W/t.csv" LD_PRELOAD="$W/wrap.so" "$W/tinyapp" kill-me "$1" "$2" \
		< "$W/in" > "$W/out" &
	local pid=$!
	exec 3> "$W/in"
	while ! grep -q ready "$W/out" 2>/dev/null; do sleep 0.1; done
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	exec 3>&-
}

# med [DIGITS]: the median of the numbers on standard input (separated by spaces or
# lines) and their range, as "M (LO-HI)" with DIGITS decimals (default 1)
med() {
	tr ' ' '\n' | grep . | sort -g | awk -v d="${1:-1}" '{a[NR]=$1} END {
		f = "%." d "f"; m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		printf f " (" f "-" f ")", m, a[1], a[NR]}'
}

# minus A B: the round-by-round differences A - B of two lists of figures (separated by
# spaces or lines, in the same round order), one a line: the paired figures of
# interleaved runs
minus() {
	paste -d' ' <(tr ' ' '\n' <<<"$1" | grep .) <(tr ' ' '\n' <<<"$2" | grep .) | awk '{print $1 - $2}'
}
