#!/usr/bin/env bash
# NVBLAS on a real program: examples/apps/matmul_mix (many small dgemm_, a few large ones)
# run on the host BLAS, then with LD_PRELOAD=libnvblas.so, each timed by the host (wall,
# best of 2).  Prints one line per run, for the '#' lines of run.sh's CSV:
#   bench/devices/gpu/nvblas.sh BUILD_DIR
# NVBLAS sends the large products to the GPU and the others to NVBLAS_CPU_BLAS_LIB;
# the times include its transfers.
set -euo pipefail
BUILD=$1
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
CPU_BLAS=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3
NVBLAS=$(ls /usr/local/cuda/lib*/libnvblas.so* 2>/dev/null | head -n 1)
ARGS="2000 1500"	# the demo's 2000 small products; 3 of n = 1500 (about 10 s on the host)
if [ ! -e "$CPU_BLAS" ] || [ -z "$NVBLAS" ]; then
	echo "nvblas: skipped (needs $CPU_BLAS and /usr/local/cuda/lib*/libnvblas.so)"
	exit 0
fi
cc -O2 -o "$BUILD/matmul_mix" "$ROOT/examples/apps/matmul_mix.c" "$CPU_BLAS"
# The BLAS the program really loads (Debian's alternatives may make it OpenBLAS): the
# host run's, and NVBLAS's for the calls it leaves on the CPU.
CPU_BLAS=$(readlink -f "$(ldd "$BUILD/matmul_mix" | awk '$1 == "libblas.so.3" {print $3}')")
cat > "$BUILD/nvblas.conf" <<EOF
NVBLAS_LOGFILE $BUILD/nvblas.log
NVBLAS_CPU_BLAS_LIB $CPU_BLAS
NVBLAS_GPU_LIST ALL
NVBLAS_AUTOPIN_MEM_ENABLED
EOF
best() {	# OUT COMMAND...: best wall time of 2 runs, seconds; the output in OUT
	local b= t0 t1 t out=$1
	shift
	for _ in 1 2; do
		t0=$(date +%s%N)
		"$@" > "$out"
		t1=$(date +%s%N)
		t=$(( (t1 - t0) / 1000000 ))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	printf '%d.%03d' $((b / 1000)) $((b % 1000))
}
host=$(best "$BUILD/host.out" "$BUILD/matmul_mix" $ARGS)
gpu=$(NVBLAS_CONFIG_FILE=$BUILD/nvblas.conf best "$BUILD/nvblas.out" env LD_PRELOAD="$NVBLAS" "$BUILD/matmul_mix" $ARGS)
echo "nvblas: examples/apps/matmul_mix $ARGS, wall, best of 2: host BLAS ($CPU_BLAS) $host s; NVBLAS ($NVBLAS) $gpu s"
# The same checksum says NVBLAS computed the products (without a GPU it may skip them).
echo "nvblas: checksum host $(cat "$BUILD/host.out"), NVBLAS $(cat "$BUILD/nvblas.out")"
