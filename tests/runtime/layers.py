#!/usr/bin/python3
"""The runtime's include and call graph, by layer.  LAYERS below is the one list of the
runtime's layers (runtime/internal.h points here).

Each runtime file belongs to one layer.  A file may include and call files of its own
layer and of the layers its layer lists below; anything else (a call up, or across to
another feature) is a violation, and so is a circle between layers.

Calls come from the object files: each runtime source is compiled on its own and `nm`
says which global symbols it defines and which it needs.  Includes come from the
sources' #include "..." lines.

    /usr/bin/python3 tests/runtime/layers.py            # check; one line per violation, exit 1
    /usr/bin/python3 tests/runtime/layers.py --dot      # the file graph in Graphviz DOT
    /usr/bin/python3 tests/runtime/layers.py --dot | dot -Tsvg > layers.svg
    /usr/bin/python3 tests/runtime/layers.py --summary  # which layer uses which, with counts
"""
import fnmatch
import os
import re
import sys

def _root():
    """The checkout: the first folder above this file that holds runtime/internal.h."""
    d = os.path.dirname(os.path.abspath(__file__))
    while not os.path.exists(os.path.join(d, "runtime", "internal.h")) and d != "/":
        d = os.path.dirname(d)
    return d


ROOT = _root()
sys.path.insert(0, os.path.join(ROOT, "tests", "docs"))
import callgraph  # noqa: E402  (the objects' symbols, one reader for both checks)

# (layer, the file patterns it holds, the layers below it that it may use), bottom up.
# The core: state (the process-wide structs, one per owner), settings (every DYL_*
# variable), clock, output (output.c drives the spool, spool.c, then the trace, trace.c;
# funcs.c names), calls (the per-call path, threads, fork, exit).
LAYERS = [
    ("api", ["runtime/include/dyl.h", "runtime/include/dyl_regions.h",
             "runtime/include/dyl_limits.h", "runtime/include/dyl_handles.h",
             # (its declarations; its interposers are compiled into wrappers only)
             "runtime/include/dyl_hostio.h"], []),
    ("format", ["runtime/format/*"],
     ["api"]),
    ("state", ["runtime/state.c", "runtime/internal.h"], ["api", "format"]),
    ("settings", ["runtime/env.c"], ["api", "format", "state"]),
    ("clock", ["runtime/clock.c"], ["api", "format", "state", "settings"]),
    # (record.c writes the per-call record; it joins format/ when it stops needing
    # internal.h)
    ("output", ["runtime/funcs.c", "runtime/spool.c", "runtime/trace.c", "runtime/record.c",
                "runtime/output.c"],
     ["api", "format", "state", "settings", "clock"]),
    ("calls", ["runtime/runtime.c", "runtime/notes.c", "runtime/exit.c", "runtime/fatal.c",
               "runtime/resolve.c", "runtime/elfsym.c", "runtime/elfsym.h",
               "runtime/scope.c", "runtime/scope.h"],
     ["api", "format", "state", "settings", "clock", "output"]),
    # the features: each sees the whole core, and only the features it is built on
    ("handles", ["runtime/handles.c"],
     ["api", "format", "state", "settings", "clock", "output", "calls"]),
    ("regions", ["runtime/regions/*"],
     ["api", "format", "state", "settings", "clock", "output", "calls"]),
    ("diff", ["runtime/diff/*"],
     ["api", "format", "state", "settings", "clock", "output", "calls", "regions"]),
    ("faults", ["runtime/faults/*"],
     ["api", "format", "state", "settings", "clock", "output", "calls"]),
    ("threads", ["runtime/threads/*"],
     ["api", "format", "state", "settings", "clock", "output", "calls"]),
    # process events: recorded through the thread events' path (dyl_threads_record)
    ("procs", ["runtime/procs/*"],
     ["api", "format", "state", "settings", "clock", "output", "calls", "threads"]),
    # std.callsite: libunwind's walk comes with the region table's feature (unwind.c)
    ("callsite", ["runtime/callsite/*"],
     ["api", "format", "state", "settings", "clock", "output", "calls", "regions"]),
    # std.flow: built on the region table (its hooks and groupings)
    ("flow", ["runtime/flow/*"],
     ["api", "format", "state", "settings", "clock", "output", "calls", "regions"]),
    # the one constructor and destructor: each part's start-up, in order
    ("start", ["runtime/start.c"],
     ["api", "format", "state", "settings", "clock", "output", "calls", "handles", "regions",
      "diff", "faults", "threads", "flow"]),
]
# compiled into the wrappers, never into the runtime: no runtime file includes them
WRAPPER_SIDE = ["runtime/include/dyl_wrap.h", "runtime/include/dyl_process.h",
                "runtime/include/dyl_procs.h",
                "runtime/include/dyl_alloc.h", "runtime/include/dyl_threads.h",
                "runtime/include/dyl_wcall.h"]
INCLUDE_DIRS = ["runtime/include", "runtime", "runtime/format"]
# the format's reader of traces: compiled into the tools, never into the runtime (the
# Makefile's TOOL_READ_SRC); it is no layer of the runtime's
TOOL_SIDE = ["runtime/format/read/*"]


def layer_of(path):
    for name, patterns, _ in LAYERS:
        if any(fnmatch.fnmatch(path, p) for p in patterns):
            return name
    return None


def sources():
    out = []
    for d, _, files in os.walk(os.path.join(ROOT, "runtime")):
        for f in files:
            rel = os.path.relpath(os.path.join(d, f), ROOT)
            if f.endswith((".c", ".h")) and not any(fnmatch.fnmatch(rel, p) for p in TOOL_SIDE):
                out.append(rel)
    return sorted(out)


def resolve_include(src, name):
    """The project file that #include "NAME" in SRC means (as the compiler finds it)."""
    for d in [os.path.dirname(src)] + INCLUDE_DIRS:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.exists(os.path.join(ROOT, p)):
            return p
    return None


def include_edges(files):
    edges = set()
    for f in files:
        with open(os.path.join(ROOT, f)) as fh:
            for line in fh:
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if m:
                    target = resolve_include(f, m.group(1))
                    if target:
                        edges.add((f, target, "include"))
    return edges


def call_edges(files, cc="cc"):
    """(caller file, callee file, symbol) for each global symbol one runtime file uses
    and another defines (the runtime is one unit: tests/docs/callgraph.py reads the
    objects)."""
    cfiles = [x for x in files if x.endswith(".c")]
    flags = ["-std=gnu11", "-fPIC", "-fvisibility=hidden"]
    flags += ["-I" + os.path.join(ROOT, d) for d in INCLUDE_DIRS]
    syms = callgraph.symbols({f: flags for f in cfiles}, cc)
    return {(a, b, name) for (a, b), names in callgraph.call_edges([cfiles], syms).items()
            for name in names}


def check(edges, files):
    """Problems, one line each: files in no layer, uses the layers do not allow, wrapper
    headers included by the runtime."""
    allowed = {name: set(below) for name, _, below in LAYERS}
    problems = []
    for f in files:
        if f not in WRAPPER_SIDE and layer_of(f) is None:
            problems.append("%s: in no layer (tests/runtime/layers.py LAYERS)" % f)
    for a, b, what in sorted(edges):
        if a in WRAPPER_SIDE:
            continue
        if b in WRAPPER_SIDE:
            problems.append("%s includes %s, which only wrappers compile" % (a, b))
            continue
        la, lb = layer_of(a), layer_of(b)
        if la is None or lb is None or la == lb:
            continue
        if lb not in allowed[la]:
            how = "includes" if what == "include" else "calls %s in" % what
            problems.append("%s (%s) %s %s (%s): not a layer below it" % (a, la, how, b, lb))
    return problems


def layer_cycles(edges):
    """Circles in the graph of layers (each a list of layer names)."""
    graph = {}
    for a, b, _ in edges:
        la, lb = layer_of(a), layer_of(b)
        if la and lb and la != lb:
            graph.setdefault(la, set()).add(lb)
    cycles, state = [], {}

    def visit(n, path):
        state[n] = 1
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                cycles.append(path[path.index(m):] + [m])
            elif m not in state:
                visit(m, path + [m])
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n, [n])
    return cycles


def dot(edges, files):
    out = ["digraph runtime {", "  rankdir=BT; node [shape=box, fontsize=10];"]
    for name, _, _ in LAYERS:
        members = [f for f in files if layer_of(f) == name]
        if members:
            out.append('  subgraph "cluster_%s" { label="%s";' % (name, name))
            out += ['    "%s";' % f for f in members]
            out.append("  }")
    pairs = {}
    for a, b, what in edges:
        pairs.setdefault((a, b), set()).add("include" if what == "include" else "call")
    for (a, b), kinds in sorted(pairs.items()):
        style = "" if "call" in kinds else " [style=dashed]"
        out.append('  "%s" -> "%s"%s;' % (a, b, style))
    out.append("}")
    return "\n".join(out)


def main(argv):
    files = sources()
    edges = include_edges(files) | call_edges(files)
    if "--dot" in argv:
        print(dot(edges, files))
        return 0
    if "--summary" in argv:
        count = {}
        for a, b, _ in edges:
            la, lb = layer_of(a), layer_of(b)
            if la and lb and la != lb:
                count[(la, lb)] = count.get((la, lb), 0) + 1
        order = [name for name, _, _ in LAYERS]
        for (la, lb), n in sorted(count.items(), key=lambda x: (-order.index(x[0][0]),
                                                               -order.index(x[0][1]))):
            print("%-9s -> %-9s %3d" % (la, lb, n))
        return 0
    problems = check(edges, files)
    problems += ["circle between layers: " + " -> ".join(c) for c in layer_cycles(edges)]
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
