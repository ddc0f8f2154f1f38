#!/usr/bin/python3
"""make accuracy: how exact the automatic estimates of bytes in and out per call are
(issue 4; the paper's Figs. 5-7 and their RMS errors).

    bench/accuracy/run.py [--quick] [--only LIB]... [--method M]... [--block N]
                          [--typed on|off] [--funcs-only] [--out DIR]

Three programs of ours call three real libraries, the same deterministic calls on every
run, with new data before every call:
  blas     gemm_calls: dgemm_ of reference BLAS, 176 shapes, 76 chosen and 100 drawn
           (1x1x1 to 512^3, thin ones, transposes, beta 0 and 1; heap blocks, tiles of
           bigger blocks, one workspace block, the stack, static arrays; scalars as
           locals or as literals and static constants);
  openssl  evp_calls: AES-256-CBC EVP_{En,De}cryptUpdate and _Final_ex, 16 B to 256 KiB,
           one message per buffer or streams into one big buffer (89 cases, ~600 calls);
  jpeg     jpeg_calls: jpeg_write_scanlines and jpeg_read_scanlines (libjpeg62-turbo),
           24 images of 8x8 to 1024x768, gray and RGB, 1 to 64 rows per call, scaled
           output, row arrays of the program's and of libjpeg's pool (~3000 calls).
The cases are in this file; the "drawn" ones come from a seeded random.Random.
Each runs once under every wrapper of the library's functions that the app calls
(`dyliberator --app APP`: every one the app imports, not only the measured ones; the same
figures as wrapping the whole library, measured for libjpeg and OpenSSL, in seconds of
build instead of 37 s for libcrypto; --funcs-only: the measured functions alone):
  expected   --defs bench/accuracy/LIB.defs: the exact bytes each call reads and writes
             (the convention is written at the top of each .defs file), with std.args;
  regions    -g std.regions, the paper's fast method;
  diff       -g std.diff, the full method (block=N with --block, typed=off with --typed
             off: stale words in stack arrays of doubles counted); "not available" when
             bin/dyliberator --list-microgens does not list it.
The measured functions' calls at depth 0 are paired by their order (the n-th such call
of each run, the app's call n); the error of a point is estimated - expected bytes.
Why the app's other calls too: the full method takes what the library's other calls wrote
in the program's memory (libjpeg's start_decompress filling its pool) as seen after those
calls; a wrapper blind to them charges it to the next measured call as the program's
input (libjpeg 89 -> 61 B input RMS, OpenSSL 26 -> 24 B).
Per library, method and direction (input, output, both: the two points of every
call together) it reports the points, the RMS error, the mean error, the median and the
largest |error| and the share of exact points; then the same per function and kind of
case (the storage of dgemm_'s matrices, msg or stream), per kind of buffer (whole regions,
or region-end cases: a part of a region, which a region method charges to the region's
end; each library's "region_end" says which cases), and the worst points with their
case and arguments.  Each app prints which calls each case made, and must print the
same under every wrapper.

Writes DIR (default build/accuracy): table.md, results.json, one LIB-METHOD.svg scatter
plot per library and method (expected x, estimated y, log-log, identity line), and its
work folders apps/, wrappers/, traces/, work/.  Nothing outside DIR.  About 10 s;
--quick runs a handful of calls per library (the harness's own test)."""
import argparse
import csv
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True        # no __pycache__ in bench/validate
sys.path.insert(0, os.path.join(ROOT, "bench", "validate"))
import svg  # noqa: E402

DYLIBERATOR = os.path.join(ROOT, "bin", "dyliberator")
REF_BLAS = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3"    # reference BLAS, by path
METHODS = {"regions": ("std.regions", "fast method"), "diff": ("std.diff", "full method")}
DIRECTIONS = ("input", "output", "both")


# ---------------------------------------------------------------- the calls

def log_uniform(rng, lo, hi):
    """an integer between LO and HI, evenly spread on a log scale (random() only: the
    same sequence on every Python 3)"""
    return int(math.exp(math.log(lo) + rng.random() * (math.log(hi + 1) - math.log(lo))))


def blas_cases(quick):
    """STORAGE:TT:MxNxK:BETA for gemm_calls (see its comment)."""
    if quick:
        return ["heap:NN:4x4x4:0", "heap:NT:16x8x12:1", "stack:TN:3x3x3:1", "static:NN:5x6x7:0"]
    tts = ("NN", "NT", "TN", "TT")
    cases = ["heap:NN:%dx%dx%d:%d" % (n, n, n, i % 2) for i, n in enumerate(
        (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256, 320,
         384, 448, 512))]
    cases += ["heap:%s:%dx%dx%d:%d" % (tts[1 + i % 3], n, n, n, (i + 1) % 2)
              for i, n in enumerate((2, 7, 16, 33, 64, 100, 200, 300))]
    cases += ["heap:%s:%dx%dx%d:%d" % (tts[i % 4], m, n, k, i % 2) for i, (m, n, k) in enumerate(
        ((1000, 1, 1000), (1000, 4, 500), (4, 1000, 500), (512, 8, 512), (8, 8, 4096), (4096, 2, 64),
         (64, 4096, 2), (2000, 16, 100), (1, 1, 10000), (100, 100, 1), (1, 300, 300), (300, 1, 1)))]
    for storage, sizes in (("lit", (1, 4, 16, 64, 256)), ("sub", (3, 10, 50, 150, 400)),
                           ("pool", (2, 9, 40, 120, 300)), ("stack", (1, 2, 4, 8, 12, 16, 20, 24)),
                           ("static", (1, 4, 8, 16, 32, 48, 64))):
        cases += ["%s:%s:%dx%dx%d:%d" % (storage, tts[i % 4], n, n, n, i % 2) for i, n in enumerate(sizes)]
    rng = random.Random(5)      # and 100 shapes of every kind, up to 300 in each dimension
    for _ in range(100):
        m, n, k = (log_uniform(rng, 1, 300) for _ in range(3))
        storage = ("heap", "heap", "heap", "lit", "sub", "pool")[int(rng.random() * 6)]
        if max(m, n, k) <= 24 and rng.random() < 0.5:
            storage = "stack" if rng.random() < 0.5 else "static"
        cases.append("%s:%s:%dx%dx%d:%d" % (storage, tts[int(rng.random() * 4)], m, n, k, rng.random() < 0.5))
    return cases


def openssl_cases(quick):
    """msg:SIZE and stream:SIZE:N for evp_calls."""
    if quick:
        return ["msg:16", "msg:100", "stream:64:2"]
    sizes = (16, 17, 31, 32, 48, 64, 100, 128, 255, 256, 512, 1000, 1024, 2048, 4096, 5000, 8192,
             16384, 32768, 65536, 100000, 131072, 262144)
    cases = ["msg:%d" % s for s in sizes] + ["stream:%d:%d" % sn for sn in (
        (16, 8), (100, 10), (1024, 8), (4096, 4), (5000, 5), (65536, 3))]
    rng = random.Random(6)      # and 60 messages or streams of sizes between
    for _ in range(60):
        size = log_uniform(rng, 16, 262144)
        cases.append("msg:%d" % size if rng.random() < 0.7 else
                     "stream:%d:%d" % (size, 1 + int(rng.random() * min(8, (1 << 20) // size))))
    return cases


def jpeg_cases(quick):
    """WxHxC:CL:DL:S:BUF for jpeg_calls."""
    if quick:
        return ["16x8x3:8:8:1:app", "8x8x1:4:1:2:pool"]
    return ["8x8x1:1:1:1:app", "16x16x3:1:1:1:pool", "33x17x3:4:2:1:app", "64x48x3:8:8:1:pool",
            "100x75x3:16:4:2:app", "160x120x1:8:8:1:app", "320x240x3:1:1:1:pool",
            "333x222x1:7:3:8:app", "640x480x3:16:16:1:app", "800x600x3:64:8:2:pool",
            "1024x768x3:32:32:4:app", "1024x768x1:64:64:1:pool"] + [
        "%dx%dx%d:%d:%d:%d:%s" % (log_uniform(rng, 8, 600), log_uniform(rng, 8, 400), 1 + 2 * (rng.random() < 0.6),
                                  log_uniform(rng, 1, 32), log_uniform(rng, 1, 32), 1 << int(rng.random() * 4),
                                  "pool" if rng.random() < 0.5 else "app")
        for rng in [random.Random(7)] for _ in range(12)]


LIBRARIES = {
    "blas": {"title": "BLAS dgemm_ (reference BLAS)", "lib": REF_BLAS,
             "gen": ["--header", os.path.join(ROOT, "examples", "blas.h")], "funcs": ["dgemm_"],
             "app": "gemm_calls", "link": [REF_BLAS, "-Wl,-rpath," + os.path.dirname(REF_BLAS)],
             "cases": blas_cases, "kind": lambda case: case.split(":")[0],
             "region_end": lambda case, func: case.split(":")[0] in ("sub", "pool", "stack"),
             "show": ("transa", "transb", "m", "n", "k", "lda", "beta")},
    "openssl": {"title": "OpenSSL EVP AES-256-CBC", "lib": "libcrypto.so.3",
                "gen": ["--header", "/usr/include/openssl/evp.h"],
                "funcs": ["EVP_EncryptUpdate", "EVP_DecryptUpdate", "EVP_EncryptFinal_ex",
                          "EVP_DecryptFinal_ex"],
                "app": "evp_calls", "link": ["-lcrypto"], "cases": openssl_cases,
                "kind": lambda case: case.split(":")[0], "show": ("inl",),
                "region_end": lambda case, func: case.startswith("stream:")},
    "jpeg": {"title": "libjpeg scanlines (libjpeg62-turbo)", "lib": "libjpeg.so.62", "gen": [],
             "funcs": ["jpeg_write_scanlines", "jpeg_read_scanlines"],
             "app": "jpeg_calls", "link": ["-ljpeg"], "cases": jpeg_cases,
             "kind": lambda case: "", "show": ("num_lines", "max_lines"),
             "region_end": lambda case, func: func == "jpeg_read_scanlines" and case.endswith(":pool")},
}


# ---------------------------------------------------------------- building and running

def check(cmd, what, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit("accuracy: %s failed (status %d):\n%s" % (what, r.returncode, (r.stderr or r.stdout).strip()))
    return r


def microgens():
    """The micro-generator names bin/dyliberator knows."""
    out = check([DYLIBERATOR, "--list-microgens"], "dyliberator --list-microgens").stdout
    return {line.split()[0] for line in out.splitlines() if line and not line[0].isspace()}


def build_app(lib, out):
    exe = os.path.join(out, "apps", lib["app"])
    src = os.path.join(HERE, lib["app"] + ".c")
    check(["cc", "-O2", "-g", "-Wall", "-o", exe, src] + lib["link"], "building " + lib["app"])
    return exe


def build_wrapper(name, lib, method, out, diff_params, exe, funcs_only=False):
    """The wrapper for METHOD ('expected' or a key of METHODS) of LIB's functions that EXE
    imports (with FUNCS_ONLY: of the measured ones); DIFF_PARAMS: std.diff's K=V."""
    so = os.path.join(out, "wrappers", "%s-%s.so" % (name, method))
    cmd = [DYLIBERATOR, "-q", "--lib", lib["lib"]] + lib["gen"]
    if funcs_only:
        for f in lib["funcs"]:
            cmd += ["-f", f]
    else:
        cmd += ["--app", exe]
    if method == "expected":
        cmd += ["--defs", os.path.join(HERE, name + ".defs"), "-g", "std.args"]
    else:
        mg = METHODS[method][0]
        cmd += ["-g", mg + (":" + ",".join(diff_params) if diff_params and method == "diff" else "")]
    check(cmd + ["-o", so], "generating the %s wrapper for %s" % (method, name), cwd=out)
    return so


def run_app(exe, cases, wrapper, trace, work):
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD" and not k.startswith("DYL_")}
    if wrapper:
        env.update(LD_PRELOAD=wrapper, DYL_TRACE=trace)
    r = check([exe] + cases, "%s%s" % (os.path.basename(exe), " under " + os.path.basename(wrapper) if wrapper else ""),
              cwd=work, env=env, timeout=900)
    return r.stdout


def case_of_call(stdout, ncalls):
    """{seq: case} from the app's "case CASE FIRST COUNT" lines."""
    seqs = {}
    for line in stdout.splitlines():
        if line.startswith("case "):
            _, case, first, count = line.split()
            seqs.update((q, case) for q in range(int(first), int(first) + int(count)))
    if sorted(seqs) != list(range(ncalls)):
        sys.exit("accuracy: the app's case lines account for %d calls, the trace has %d" % (len(seqs), ncalls))
    return seqs


def read_trace(path, funcs):
    """{(func, n): (in_bytes, out_bytes, args)} of the calls of FUNCS at depth 0, N their
    order (the app's call number; seq counts the library's other calls too) (None: empty)."""
    calls = []
    with open(path, newline="") as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            if row.get("depth", "0") != "0" or row["func"] not in funcs:
                continue
            num = [int(row[k]) if row[k] else None for k in ("in_bytes", "out_bytes")]
            calls.append((int(row["seq"]), row["func"], num[0], num[1], row.get("args") or ""))
    calls.sort()
    return {(c[1], n): c[2:] for n, c in enumerate(calls)}


# ---------------------------------------------------------------- errors

def stats(errs):
    n = len(errs)
    if not n:
        return {"points": 0, "rms": None, "mean": None, "median_abs": None, "max_abs": None, "exact": None}
    return {"points": n, "rms": math.sqrt(sum(e * e for e in errs) / n), "mean": sum(errs) / n,
            "median_abs": statistics.median(abs(e) for e in errs), "max_abs": max(abs(e) for e in errs),
            "exact": sum(1 for e in errs if e == 0) / n}


def short_args(args, show):
    """The arguments named in SHOW from std.args' column, without addresses:
    m=0x7ffc...(*=4) -> m=4."""
    args = re.sub(r"=0x[0-9a-f]+\(\*=([^)]*)\)", r"=\1", args)
    return " ".join(a for a in args.split() if a.split("=")[0] in show)


def compare(expected, estimated):
    """Pairs the calls; returns the points [(func, n, direction, expected, estimated, args)]
    (the error of a point is estimated - expected) and the count of calls without an
    estimate."""
    if set(expected) != set(estimated):
        sys.exit("accuracy: the runs made different calls (%d and %d rows at depth 0, %d in common)"
                 % (len(expected), len(estimated), len(set(expected) & set(estimated))))
    points, missing = [], 0
    for key in sorted(expected, key=lambda k: k[1]):
        e_in, e_out, args = expected[key]
        g_in, g_out, _ = estimated[key]
        if e_in is None or e_out is None:
            sys.exit("accuracy: the expected trace has no sizes for %s call %d" % key)
        if g_in is None or g_out is None:
            missing += 1
            continue
        points.append((key[0], key[1], "input", e_in, g_in, args))
        points.append((key[0], key[1], "output", e_out, g_out, args))
    return points, missing


def errors(points, direction):
    return [p[4] - p[3] for p in points if direction == "both" or p[2] == direction]


def summarize(points, lib, case):
    """stats per direction; per function and kind of case ("func" or "func, kind"); the
    worst points.  CASE: {seq: the app's case}."""
    res = {"stats": {d: stats(errors(points, d)) for d in DIRECTIONS}, "by_kind": {}}
    group = lambda p: ", ".join(x for x in (p[0], lib["kind"](case[p[1]])) if x)  # noqa: E731
    for g in sorted({group(p) for p in points}):
        mine = [p for p in points if group(p) == g]
        res["by_kind"][g] = {d: stats(errors(mine, d)) for d in DIRECTIONS}
    res["by_buffer"] = {}
    for label, want in (("whole", False), ("region_end", True)):
        mine = [p for p in points if lib["region_end"](case[p[1]], p[0]) == want]
        res["by_buffer"][label] = {d: stats(errors(mine, d)) for d in DIRECTIONS}
    worst = sorted(points, key=lambda p: (-abs(p[4] - p[3]), p[1], p[2]))[:5]
    res["worst"] = [{"func": p[0], "seq": p[1], "direction": p[2], "expected": p[3], "estimated": p[4],
                     "error": p[4] - p[3], "case": case[p[1]], "args": short_args(p[5], lib["show"])}
                    for p in worst]
    return res


# ---------------------------------------------------------------- report

def num(v, fmt="%.0f"):
    return "-" if v is None else fmt % v


def table(results):
    lines = ["| library | method | direction | points | RMS error (B) | mean error (B) | median abs error (B) "
             "| max abs error (B) | exact |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, lib in results.items():
        for method, m in lib["methods"].items():
            label = "%s (%s)" % (METHODS[method][0], METHODS[method][1])
            if m["status"] != "ok":
                lines.append("| %s | %s | - | - | %s | | | | |" % (name, label, m["status"]))
                continue
            for d in DIRECTIONS:
                s = m["stats"][d]
                lines.append("| %s | %s | %s | %d | %s | %s | %s | %s | %s |" % (
                    name, label, d, s["points"], num(s["rms"]), num(s["mean"], "%+.0f"), num(s["median_abs"]),
                    num(s["max_abs"]),
                    num(None if s["exact"] is None else 100 * s["exact"], "%.0f %%")))
    return "\n".join(lines)


def by_kind(results):
    lines = ["| library | method | calls of | calls | RMS input (B) | RMS output (B) | mean input | mean output "
             "| median abs input | median abs output |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, lib in results.items():
        for method, m in lib["methods"].items():
            for g, st in m.get("by_kind", {}).items():
                i, o = st["input"], st["output"]
                lines.append("| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |" % (
                    name, METHODS[method][0], g, i["points"], num(i["rms"]), num(o["rms"]), num(i["mean"], "%+.0f"),
                    num(o["mean"], "%+.0f"), num(i["median_abs"]), num(o["median_abs"])))
    return "\n".join(lines)


BUFFERS = {"whole": "buffers that are whole regions",
           "region_end": "region-end cases (the call's buffer is part of a region)"}


def by_buffer(results):
    lines = ["| library | method | calls with | calls | RMS input (B) | RMS output (B) | RMS both (B) "
             "| median abs both (B) |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for name, lib in results.items():
        for method, m in lib["methods"].items():
            for g, st in m.get("by_buffer", {}).items():
                lines.append("| %s | %s | %s | %d | %s | %s | %s | %s |" % (
                    name, METHODS[method][0], BUFFERS[g], st["input"]["points"], num(st["input"]["rms"]),
                    num(st["output"]["rms"]), num(st["both"]["rms"]), num(st["both"]["median_abs"])))
    return "\n".join(lines)


def worst(results):
    lines = []
    for name, lib in results.items():
        for method, m in lib["methods"].items():
            for w in m.get("worst", [])[:3]:
                lines.append("- %s, %s: %s #%d (%s) %s: expected %d, estimated %d (%+d)  %s" % (
                    name, METHODS[method][0], w["func"], w["seq"], w["case"], w["direction"], w["expected"],
                    w["estimated"], w["error"], w["args"]))
    return "\n".join(lines)


def plot(name, lib, method, m, points, out):
    s = m["stats"]
    note = "%d calls\nRMS input %s B, output %s B\nRMS both %s B" % (
        s["input"]["points"], num(s["input"]["rms"]), num(s["output"]["rms"]), num(s["both"]["rms"]))
    path = os.path.join(out, "%s-%s.svg" % (name, method))
    svg.scatter(path, "%s: %s (%s)" % (lib["title"], METHODS[method][0], METHODS[method][1]),
                "expected bytes per call (--defs)", "estimated bytes per call",
                [{"label": d, "points": [(p[3], p[4]) for p in points if p[2] == d]} for d in ("input", "output")],
                note)
    return os.path.basename(path)


# ---------------------------------------------------------------- main

def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", metavar="DIR", default=os.path.join(ROOT, "build", "accuracy"),
                    help="where everything goes (default build/accuracy)")
    ap.add_argument("--quick", action="store_true", help="a handful of small calls per library (seconds)")
    ap.add_argument("--only", action="append", choices=sorted(LIBRARIES), metavar="LIB", help="only this library: blas, openssl or jpeg (repeatable)")
    ap.add_argument("--method", action="append", choices=sorted(METHODS), metavar="M",
                    help="only this estimate: regions or diff (repeatable; default: both)")
    ap.add_argument("--block", type=int, metavar="N", help="std.diff's block=N (default: its own default)")
    ap.add_argument("--typed", choices=("on", "off"),
                    help="std.diff's typed= (default: its own default, on)")
    ap.add_argument("--funcs-only", action="store_true",
                    help="wrap only the measured functions, not all the app calls (the full method then "
                         "takes what the library's other calls wrote as the program's input)")
    return ap.parse_args()


def clean_out(out):
    """Empties the working folders under OUT and removes the last run's results."""
    for sub in ("apps", "wrappers", "traces", "work"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
        os.makedirs(os.path.join(out, sub))
    for f in os.listdir(out):
        if f.endswith(".svg") or f in ("table.md", "results.json"):
            os.remove(os.path.join(out, f))


def measure(name, args, out, methods, known, diff_params):
    """One library: its app run plain and under each wrapper, each estimate against the
    exact bytes (--defs).  Returns the library's results."""
    lib = LIBRARIES[name]
    t1 = time.time()
    cases = lib["cases"](args.quick)
    exe = build_app(lib, out)
    plain = run_app(exe, cases, None, None, os.path.join(out, "work"))
    print("%s: %s, %d cases" % (name, lib["app"], len(cases)), file=sys.stderr)
    traces = {}
    for method in ["expected"] + methods:
        if method != "expected" and METHODS[method][0] not in known:
            continue
        so = build_wrapper(name, lib, method, out, diff_params, exe, args.funcs_only)
        traces[method] = os.path.join(out, "traces", "%s-%s.csv" % (name, method))
        got = run_app(exe, cases, so, traces[method], os.path.join(out, "work"))
        if got != plain:
            sys.exit("accuracy: %s printed other output under %s:\n%s\n%s" % (lib["app"], so, plain, got))
    funcs = set(lib["funcs"])
    expected = read_trace(traces["expected"], funcs)
    case = case_of_call(plain, len(expected))
    res = {"title": lib["title"], "library": lib["lib"], "functions": lib["funcs"], "cases": cases,
           "calls": len(expected), "wrapped": "measured functions" if args.funcs_only else "functions the app imports",
           "methods": {}}
    for method in methods:
        if method not in traces:
            res["methods"][method] = {"status": "not available"}
            continue
        points, missing = compare(expected, read_trace(traces[method], funcs))
        m = dict({"status": "ok", "microgen": METHODS[method][0], "no_estimate": missing}, **summarize(points, lib, case))
        m["svg"] = plot(name, lib, method, m, points, out)
        res["methods"][method] = m
    res["seconds"] = time.time() - t1
    return res


def report(results, args, seconds):
    """table.md's text."""
    text = ("Bytes per call: automatic estimate - exact (--defs)%s;\n%s.  The paper's full method: RMS\n"
            "284 B (BLAS), 335 B (OpenSSL), 482 B (libjpeg), both directions; the goal here: 64 B.\n\n%s\n\n"
            "Per function and kind of case:\n\n%s\n\n"
            "By kind of buffer: region-end cases are those where the buffer a call uses is a part of\n"
            "the region that holds it, which a region method charges to the region's end: BLAS tiles\n"
            "(sub), a workspace block (pool) and the three stack matrices in one frame (stack); EVP\n"
            "stream pieces; libjpeg's output rows in its own pool.  The rest are whole regions.\n\n%s\n\n"
            "Worst points (the app's case; arguments from the expected run's std.args):\n\n%s\n"
            % (", --quick" if args.quick else "",
               "wrappers of the measured functions only (--funcs-only)" if args.funcs_only
               else "wrappers of every function the app imports from the library",
               table(results), by_kind(results), by_buffer(results),
               worst(results)))
    for name, r in results.items():
        if any(m.get("no_estimate") for m in r["methods"].values()):
            text += "\n%s: calls without an estimate (left out): %s\n" % (name, ", ".join(
                "%s %d" % (k, m["no_estimate"]) for k, m in r["methods"].items() if m.get("no_estimate")))
    text += "\n%.0f s (%s)\n" % (seconds, ", ".join("%s %.0f s" % (n, r["seconds"]) for n, r in results.items()))
    return text


def main():
    args = parse_args()
    t0 = time.time()
    out = os.path.abspath(args.out)
    clean_out(out)

    diff_params = (["block=%d" % args.block] if args.block else []) + (
        ["typed=" + args.typed] if args.typed else [])
    known = microgens()
    methods = args.method or list(METHODS)
    results = {}
    for name in args.only or list(LIBRARIES):
        results[name] = measure(name, args, out, methods, known, diff_params)

    seconds = time.time() - t0
    text = report(results, args, seconds)
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"quick": args.quick, "block": args.block, "typed": args.typed, "funcs_only": args.funcs_only, "seconds": seconds, "libraries": results}, f, indent=1)
    print(text)
    print("(table.md, results.json and the SVG charts in %s)" % out)


if __name__ == "__main__":
    main()
