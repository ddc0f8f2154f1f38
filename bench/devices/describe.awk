# describe.awk - bench/devices/host.sh's medians ("KIND N VALUE" a line, sizes increasing)
# written as a device description (doc/devices.md).  Variables: date, cpu, cmd, rounds,
# blas, mem, cores, quick.
{ val[$1, $2] = $3; if (!(($1) in count)) count[$1] = 0; size[$1, ++count[$1]] = $2 }

# The tag and provenance every row's source starts with.
function src(what) {
	return sprintf("[M] bench/devices/host.sh on %s, %s (/proc/cpuinfo), \"%s\": %s",
		       date, cpu, cmd, what)
}

# The best rate of KIND (dgemm, sgemm) over its sizes; its size in best_n.
function best(kind,    i, b) {
	for (i = 1; i <= count[kind]; i++)
		if (val[kind, size[kind, i]] > b) {
			b = val[kind, size[kind, i]]
			best_n = size[kind, i]
		}
	return b
}

function frac(x) {
	return x > 1 ? 1 : x < 0.001 ? 0.001 : x
}

function precision(p, kind, axpy,    b, i, n, name) {
	name = kind "_"
	b = best(kind)
	printf "peak,%s,matrix,,%.4g,%s\n", p, b, src(sprintf("the best %s median, at n = %d " \
		"(%.1f GFLOP/s)", name, best_n, b / 1e9))
	printf "peak,%s,vector,,%.4g,%s\n", p, b, src("the matrix peak: a CPU's BLAS 1 and 2 " \
		"run on the same FMA units")
	for (i = 1; i <= count[kind]; i++) {
		n = size[kind, i]
		printf "eff,%s,matrix,%.0f,%.3f,%s\n", p, 2 * n * n * n, frac(val[kind, n] / b),
			src(sprintf("%s %d^3, %.1f GFLOP/s", name, n, val[kind, n] / 1e9))
	}
	n = size[axpy, 1]
	printf "eff,%s,vector,%.0f,%.3f,%s\n", p, 2 * n, frac(val[axpy, n] / b),
		src(sprintf("%s_ of %d elements, in cache, %.1f GFLOP/s", axpy, n, val[axpy, n] / 1e9))
}

END {
	last = size["triad", count["triad"]]
	bw = val["triad", last]
	print "# This machine's CPU, measured by bench/devices/host.sh on " date " (doc/devices.md)."
	print "# CPU: " cpu " (/proc/cpuinfo), " cores " cores; one used by the BLAS:"
	print "# " blas
	print "# Command: " cmd
	print "# Each figure: the median of " rounds " interleaved rounds, in the thread's CPU time."
	print "# No link row: the host's data does not move, so no transfers."
	if (quick)
		print "# --quick: tiny sizes and short repeats, for the tests; not this machine's figures."
	print "item,precision,unit,size,value,source"
	printf "name,,,,the CPU (%s)%s,%s\n", cpu, quick ? " (--quick)" : "",
		src("one core, the BLAS named above")
	precision("d", "dgemm", "daxpy")
	precision("s", "sgemm", "saxpy")
	printf "bandwidth,,,,%.4g,%s\n", bw, src(sprintf("triad on %d bytes%s, %.2f GB/s", last,
		quick ? " (in cache: --quick)" : ", 8 times the last-level cache at least", bw / 1e9))
	if (mem > 0)
		printf "capacity,,,,%.0f,%s\n", mem, src("MemTotal in /proc/meminfo")
	printf "launch_ns,,,,%.1f,%s\n", val["call", 1], src("one daxpy_ of n = 1, the cost of a call")
	for (i = 1; i <= count["triad"]; i++) {
		n = size["triad", i]
		printf "mem_eff,,,%d,%.3f,%s\n", n, frac(val["triad", n] / bw),
			src(sprintf("triad on %d bytes, %.2f GB/s%s", n, val["triad", n] / 1e9,
			val["triad", n] > bw ? " (faster than the memory: at most 1, the format's limit)" : ""))
	}
}
