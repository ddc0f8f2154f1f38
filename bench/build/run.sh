#!/usr/bin/env bash
# How long a user waits for a wrapper: dyliberator generating and building the wrappers
# of libcrypto (5,335 functions: the main unit and 11 of 512 wrappers) and libblas (150, one unit).
#   bench/build/run.sh [ROUNDS]        (default 3)
#   OLD=/path/to/other/checkout bench/build/run.sh: also its fresh builds, interleaved
# Each round, per library: fresh (no OUT.d), again with the same options (nothing to do),
# after a change of one --defs block (one unit compiled), after a change of an option
# that changes every wrapper (-g std.time:clock=thread: every unit compiled).  Printed:
# median (range) of the CPU seconds (user+sys, dyliberator and all it ran) and of the
# wall seconds (both cores; on a shared machine the wall time is the noisier).
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${1:-3}
. ../lib.sh	# scratch, med
scratch
BLAS_H="$ROOT/examples/blas.h"
libs=(crypto blas)
declare -A cpu wall
one() {	# KEY ROOT OUT args... -> appends the CPU and wall seconds to cpu[KEY], wall[KEY]
	local key=$1 root=$2 out=$3; shift 3
	local t
	t=$( { /usr/bin/time -f 'T %U %S %e' "$root/bin/dyliberator" -q -o "$out" "$@" >/dev/null; } 2>&1 | awk '/^T / {print $2 + $3, $4}')
	cpu[$key]+="${t% *} " wall[$key]+="${t#* } "
	echo "# $key: CPU ${t% *} s, wall ${t#* } s" >&2	# (progress: a long run can be read as it goes)
}
args_of() {
	case $1 in
	crypto) echo --lib libcrypto.so.3 ;;
	blas) echo --lib libblas.so.3 --header "$BLAS_H" ;;
	esac
}
defs_of() {	# LIB N -> a --defs file whose one block differs with N
	case $1 in
	crypto) echo "libcrypto*::EVP_DigestUpdate::postfix { work_size = (int64_t)cnt * $2; }" ;;
	blas) echo "libblas*::dgemm_::postfix { work_size = (int64_t)*m * *n * *k * $2; }" ;;
	esac > "$W/$1.defs"
}
keys=()
for l in "${libs[@]}"; do keys+=("$l fresh" "$l same" "$l defs" "$l option"); done
[ -n "${OLD:-}" ] && keys+=("crypto fresh (OLD)" "blas fresh (OLD)")
for r in $(seq "$ROUNDS"); do
	for l in "${libs[@]}"; do
		read -ra a <<<"$(args_of "$l")"
		rm -rf "$W/$l.so" "$W/$l.d"
		defs_of "$l" 1
		one "$l fresh" "$ROOT" "$W/$l.so" "${a[@]}" --defs "$W/$l.defs"
		one "$l same" "$ROOT" "$W/$l.so" "${a[@]}" --defs "$W/$l.defs"
		defs_of "$l" 2
		one "$l defs" "$ROOT" "$W/$l.so" "${a[@]}" --defs "$W/$l.defs"
		one "$l option" "$ROOT" "$W/$l.so" "${a[@]}" --defs "$W/$l.defs" -g std.time:clock=thread
		if [ -n "${OLD:-}" ]; then
			rm -rf "$W/old.so" "$W/old.d"
			one "$l fresh (OLD)" "$OLD" "$W/old.so" "${a[@]}" --defs "$W/$l.defs"
		fi
	done
done
printf '%-20s %-22s %-22s\n' "" "CPU s" "wall s"
for k in "${keys[@]}"; do
	printf '%-20s %-22s %-22s\n' "$k" "$(med 2 <<<"${cpu[$k]}")" "$(med 2 <<<"${wall[$k]}")"
done
echo "($ROUNDS rounds; $(nproc) CPUs; make -j$(nproc))"
