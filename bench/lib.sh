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
