#!/usr/bin/python3
"""A model keyed on two sizes (flops and bytes moved) against one keyed on flops alone:
how far each model's time is from the accelerated calls' real time, per kind of call.

    bench/validate/twod.py [--runs N] [--scale F] [--out DIR]

The accelerator is OpenBLAS serial in place of reference BLAS's dgemm_ (a std.redirect
wrapper, as in make validate).  Each round, interleaved, order rotated:
  sweep 2-D   gemm_shapes over square products (run.py's square grid, 4..640) AND thin
              ones (m = k over 64..3072, n = 8, 32, 128), traced: dyl-model --bytes
  sweep 1-D   the square products alone (run.py's "square sweep"): dyl-model
  apps        the products to predict, run with the accelerator and traced: their calls'
              own t_ns are the truth.  2000x8x2000 and 1200x16x1200 are on no grid (the
              second lies between the n = 8 and n = 32 families); 512^3 and 16..40^3
              are on the square grid, as in make validate.
Models are pooled over the rounds' sweeps (as run.py pools them).  For each app and round,
dyl-speedup --json of the app's accelerated trace with a model gives sum f over exactly
the calls whose sum t it also gives: error = sum f / sum t - 1.  Reported: the median over
the rounds and its range, and the same with each round's own model (model noise too).
Also the 1-D model made from the 2-D sweep (flops alone, mixed shapes), to show why the
second key is needed rather than a wider sweep.

Writes DIR (build/twod): traces, models, results.json, table.md.  Results: BENCHMARKS.md.

For make validate: the 2-D model's sweep is square_shapes() + thin_shapes() below, in one
gemm_shapes run (operands rewritten before each call, no --sweep) under the std.redirect
wrapper; the model is `dyl-model -f dgemm_ --bytes TRACES...`; dyl-speedup needs no flag
(the model's bytes column says it is keyed on bytes; --json kernels[].model_keys tells)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.join(ROOT, "bin")
LIBDIR = "/usr/lib/x86_64-linux-gnu"
REF_BLAS = LIBDIR + "/blas/libblas.so.3"
SERIAL = LIBDIR + "/openblas-serial/libblas.so.3"

SQUARE_N = (4, 8, 12, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 128, 160, 192, 256, 320, 384,
            448, 512, 576, 640)
sys.path.insert(0, HERE)
from run import THIN_M  # noqa: E402  (make validate's thin grid: why it is dense above 1024)
from run import coretype  # noqa: E402  (the same kernels as make validate's runs)
THIN_N = (8, 32, 128)

APPS = [
    ("thin 2000x8x2000", ["40:2000x8x2000"]),
    ("large 512^3", ["16:512x512x512"]),
    ("small 16..40^3", ["%d:%dx%dx%d" % (25000, n, n, n) for n in (16, 24, 32, 40)]),
    ("between families 1200x16x1200", ["40:1200x16x1200"]),
]


def scaled(n, scale, lo=3):
    return max(lo, int(round(n * scale)))


def square_shapes(scale):
    """run.py's square_sweep(scale) (refill mode): the grid, enough calls for a steady median."""
    out = []
    for n in SQUARE_N:
        t = 2.0 * n ** 3 / 40e9 + 0.5e-6
        out.append("%d:%dx%dx%d" % (scaled(min(2000, max(5, int(0.02 / t))), scale), n, n, n))
    return out


def thin_shapes(scale, min_calls):
    """run.py's thin_sweep(scale, n) for each n of THIN_N, with at least
    MIN_CALLS calls a shape (5 left the medians of the large ones 10-20 % high: the first
    calls of a shape in a process are slower)."""
    out = []
    for nv in THIN_N:
        for m in THIN_M:
            t = 2.0 * m * m * nv / 20e9 + 0.5e-6 + 3e-9 * m * m
            out.append("%d:%dx%dx%d" % (scaled(min(2000, max(min_calls, int(0.05 / t))), scale), m, nv, m))
    return out


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def traced(out, args, trace, env):
    full = {k: v for k, v in os.environ.items()
            if k not in ("LD_PRELOAD", "DYL_TRACE", "DYL_OFF", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    full.update(env, LD_PRELOAD=os.path.join(out, "blas-serial.so"), DYL_TRACE=trace)
    sh([os.path.join(out, "gemm_shapes")] + args, env=full, cwd=out, stdout=subprocess.DEVNULL)
    return trace


def build(out):
    os.makedirs(out, exist_ok=True)
    exe = os.path.join(out, "gemm_shapes")
    src = os.path.join(HERE, "gemm_shapes.c")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        sh(["cc", "-O2", "-o", exe, src, REF_BLAS, "-Wl,-rpath," + os.path.dirname(REF_BLAS)])
    so = os.path.join(out, "blas-serial.so")
    if not os.path.exists(so):
        sh([os.path.join(BIN, "dyliberator"), "--lib", REF_BLAS, "--header",
            os.path.join(ROOT, "examples/blas.h"), "--defs", os.path.join(ROOT, "examples/blas.defs"),
            "-f", "dgemm_", "-g", "std.redirect:lib=" + SERIAL, "-o", so],
           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def dyl_model(path, traces, *flags):
    with open(path, "w") as f:
        sh([os.path.join(BIN, "dyl-model"), "-f", "dgemm_", *flags] + traces, stdout=f,
           stderr=subprocess.DEVNULL)
    return path


def kernel(trace, model):
    p = sh([os.path.join(BIN, "dyl-speedup"), "--json", trace, model], capture_output=True, text=True)
    return json.loads(p.stdout)["kernels"][0]


def mrange(xs):
    return [statistics.median(xs), min(xs), max(xs)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7, help="rounds (default 7)")
    ap.add_argument("--scale", type=float, default=1.0, help="scale the sweeps' call counts")
    ap.add_argument("--out", default=os.path.join(ROOT, "build/twod"))
    ap.add_argument("--min-calls", type=int, default=15, help="calls per thin shape, at least (default 15)")
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    t0 = time.time()
    build(out)
    env = {"OPENBLAS_CORETYPE": coretype(out)}
    sq_args, thin_args = square_shapes(args.scale), thin_shapes(args.scale, args.min_calls)
    sweeps = {"2d": [], "1d": []}
    apps = {name: [] for name, _ in APPS}
    for r in range(args.runs):
        jobs = [("2d", sq_args + thin_args), ("1d", sq_args)] + [(name, a) for name, a in APPS]
        k = r % len(jobs)
        for name, a in jobs[k:] + jobs[:k]:
            tag = name if name in sweeps else "app-" + name.split()[0]
            tr = traced(out, a, os.path.join(out, "%s.%d.csv" % (tag, r)), env)
            (sweeps[name] if name in sweeps else apps[name]).append(tr)
        print("twod: round %d of %d done" % (r + 1, args.runs), file=sys.stderr)
    models = {
        "2-D (flops, bytes): squares + thin sweep, --bytes": dyl_model(os.path.join(out, "model-2d.csv"), sweeps["2d"], "--bytes"),
        "1-D (flops): square sweep": dyl_model(os.path.join(out, "model-1d.csv"), sweeps["1d"]),
        "1-D (flops): squares + thin sweep": dyl_model(os.path.join(out, "model-1d-mixed.csv"), sweeps["2d"]),
    }
    own = {  # each round's own models
        "2-D (flops, bytes): squares + thin sweep, --bytes": [dyl_model(os.path.join(out, "model-2d.%d.csv" % r), [t], "--bytes") for r, t in enumerate(sweeps["2d"])],
        "1-D (flops): square sweep": [dyl_model(os.path.join(out, "model-1d.%d.csv" % r), [t]) for r, t in enumerate(sweeps["1d"])],
    }
    results = []
    for name, a in APPS:
        row = {"app": name, "args": a, "models": {}}
        ks = None
        for mname, model in models.items():
            ks = [kernel(t, model) for t in apps[name]]
            errs = [100 * (k["predicted_ns"] / k["t_ns"] - 1) for k in ks]
            m = {"error_pct": mrange(errs), "out_of_range_calls": max(k["out_of_range_calls"] for k in ks)}
            if mname in own:
                e = [100 * (kernel(t, mo)["predicted_ns"] / kernel(t, mo)["t_ns"] - 1)
                     for t, mo in zip(apps[name], own[mname])]
                m["own_round_error_pct"] = mrange(e)
            row["models"][mname] = m
        row["calls"] = ks[0]["calls"]
        row["real_kernel_ms"] = mrange([k["t_ns"] / 1e6 for k in ks])
        results.append(row)
    meta = {"runs": args.runs, "scale": args.scale, "OPENBLAS_CORETYPE": env["OPENBLAS_CORETYPE"],
            "sweep_2d": sq_args + thin_args, "sweep_1d": sq_args, "seconds": time.time() - t0,
            "inherited_env": {k: v for k, v in os.environ.items() if k.startswith(("OPENBLAS_", "GOTO", "OMP_"))}}
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"meta": meta, "apps": results}, f, indent=1)
    lines = ["%d rounds, scale %g, OPENBLAS_CORETYPE=%s, %.0f s%s" % (
        args.runs, args.scale, env["OPENBLAS_CORETYPE"], meta["seconds"],
        "; inherited " + " ".join("%s=%s" % kv for kv in sorted(meta["inherited_env"].items()))
        if meta["inherited_env"] else ""), "",
        "| calls (accelerated, traced) | real kernel time | model | error of sum f, pooled model | "
        "error, each round's own model | out of range |",
        "| --- | ---: | --- | ---: | ---: | ---: |"]
    fmt = lambda x, d=1: "%+.*f %% (%+.*f..%+.*f)" % (d, x[0], d, x[1], d, x[2])  # noqa: E731
    for row in results:
        for i, (mname, m) in enumerate(row["models"].items()):
            lines.append("| %s | %s | %s | %s | %s | %s |" % (
                "%s: %d" % (row["app"], row["calls"]) if i == 0 else "",
                "%.2f ms (%.2f-%.2f)" % tuple(row["real_kernel_ms"]) if i == 0 else "", mname,
                fmt(m["error_pct"]), fmt(m["own_round_error_pct"]) if "own_round_error_pct" in m else "-",
                m["out_of_range_calls"]))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
