#!/bin/sh
# logcc.sh: cc, with each command line appended to $LOGCC (test_build_units.py counts
# the compiler runs of a rebuild with it).
printf '%s\n' "$*" >> "$LOGCC"
exec cc "$@"
