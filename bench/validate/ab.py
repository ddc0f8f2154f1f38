#!/usr/bin/python3
"""Does tracing slow the program down?  The baseline of make validate's scenarios run
plain, traced (their tracing wrapper, as make validate's traced baseline) and with the
wrapper loaded but off (DYL_OFF=1), interleaved with the order rotated, one process at
a time; CPU seconds (user + sys) per kind: median, min and max.

    bench/validate/ab.py [--rounds N] [--out DIR] SCENARIO...

SCENARIO: a scenario's name in make validate ('dgemm small', 'dgemm large', ...).
Uses the programs and wrappers a make validate run left in DIR (default build/validate)."""
import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import run as V  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=7, metavar="N")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "validate"), metavar="DIR")
    ap.add_argument("scenarios", nargs="+", metavar="SCENARIO")
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    scs = {s["name"]: s for s in V.scenarios(1.0, out)}
    for n in args.scenarios:
        if n not in scs:
            sys.exit("ab: no scenario '%s' (there are: %s)" % (n, ", ".join(scs)))
        if not os.path.exists(os.path.join(out, scs[n]["base_wrap"])):
            sys.exit("ab: %s has no %s: run make validate first" % (out, scs[n]["base_wrap"]))
    trace = os.path.join(out, "ab-trace.csv")
    res = {}
    for r in range(args.rounds):
        for n in args.scenarios:
            sc = scs[n]
            wrap = os.path.join(out, sc["base_wrap"])
            kinds = [("plain", {}), ("traced", {"LD_PRELOAD": wrap, "DYL_TRACE": trace}),
                     ("off", {"LD_PRELOAD": wrap, "DYL_OFF": "1"})]
            for k, env in kinds[r % 3:] + kinds[:r % 3]:
                _, cpu = V.run(sc["cmd"], dict(sc["base_env"], **env), out)
                res.setdefault((n, k), []).append(cpu)
    if os.path.exists(trace):
        os.remove(trace)
    for (n, k), v in sorted(res.items()):
        print("%-22s %-7s median %.3f  min %.3f  max %.3f  (%d runs)"
              % (n, k, statistics.median(v), min(v), max(v), len(v)))


if __name__ == "__main__":
    main()
