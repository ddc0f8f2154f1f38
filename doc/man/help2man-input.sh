#!/bin/sh
# help2man-input.sh CMD OPTION: CMD's --help or --version as help2man reads them (make
# man).  Our usage block ("usage: cmd A", "       cmd B", continuation lines indented
# deeper) becomes help2man's ("Usage: cmd A", "  or:  cmd B"), so that it lands under
# SYNOPSIS; the rest passes as it is.
cmd=$1
shift
"$cmd" "$@" 2>&1 | awk -v name="$(basename "$cmd")" '
function flush(   i) {
	for (i = 1; i <= n; i++)
		print (i == 1 ? "Usage: " : "  or:  ") entry[i]
	inusage = 0
}
NR == 1 && /^usage: / { inusage = 1; s = $0; sub(/^usage: +/, "", s); entry[n = 1] = s; next }
inusage && NF == 0 { flush(); print; next }
inusage {
	s = $0; sub(/^ +/, "", s)
	if (index(s, name " ") == 1 || s == name) entry[++n] = s
	else entry[n] = entry[n] " " s
	next
}
{ print }
END { if (inusage) flush() }'
