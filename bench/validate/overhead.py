#!/usr/bin/python3
"""What tracing costs a program, two ways: the wrapper's own measure ('# overhead_ns=',
which dyl-speedup takes out of T) against the outside view, (T of the trace - CPU time
of the untraced run) / rows; medians of N interleaved pairs of runs.

    bench/validate/overhead.py [--runs N] evp N SIZE STREAMS   # evp_encrypt, AES-NI off
    bench/validate/overhead.py [--runs N] blas SHAPE...        # gemm_shapes, ref BLAS

Uses the programs and wrappers `make validate` builds in build/validate."""
import argparse
import os
import statistics as st
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as R  # noqa: E402

OUT = os.path.join(R.ROOT, "build", "validate")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("kind", choices=["evp", "blas"])
    ap.add_argument("args", nargs="+")
    a = ap.parse_args()
    R.build(OUT)
    if a.kind == "evp":
        env, so, cmd = {"OPENSSL_ia32cap": R.AESNI_OFF}, "evp.so", [os.path.join(OUT, "evp_encrypt")] + a.args
    else:
        env, so, cmd = {}, "blas-base.so", [os.path.join(OUT, "gemm_shapes")] + a.args
    tr = os.path.join(OUT, "overhead.csv")
    untraced, T, over = [], [], []
    for _ in range(a.runs):
        untraced.append(R.run(cmd, env, OUT)[1])
        R.run(cmd, dict(env, LD_PRELOAD=os.path.join(OUT, so), DYL_TRACE=tr), OUT)
        t, rows, _, o = R.summary(tr, "cpu", keep_overhead=True)
        T.append(t / 1e9)
        over.append(o / 1e9)
    f = lambda xs: "%.2f ms (%.2f-%.2f)" % (st.median(xs) * 1e3, min(xs) * 1e3, max(xs) * 1e3)  # noqa: E731
    print(" ".join([a.kind] + a.args), "rows", rows)
    print("  untraced CPU", f(untraced), "  T of the trace", f(T), "  overhead_ns", f(over))
    print("  a row: wrapper's measure %.1f ns, outside view %.1f ns; (T - overhead) / untraced - 1: %+.2f %%" % (
        st.median(over) / rows * 1e9, (st.median(T) - st.median(untraced)) / rows * 1e9,
        (st.median([t - o for t, o in zip(T, over)]) / st.median(untraced) - 1) * 100))


if __name__ == "__main__":
    main()
