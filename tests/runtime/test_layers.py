"""The runtime is layered (LAYERS, tests/runtime/layers.py): no file calls or includes a layer above
its own or a feature beside it, and no circle joins two layers (tests/runtime/layers.py)."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layers  # noqa: E402


def test_runtime_is_layered():
    r = subprocess.run([sys.executable, os.path.abspath(layers.__file__)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_call_up_is_caught():
    # the heap table calling std.diff directly, as it did before the hooks
    edges = {("runtime/regions/regions.c", "runtime/diff/diff.c", "dyl_diff_born"),
             ("runtime/diff/diff.c", "runtime/regions/regions.c", "dyl_table_find")}
    files = ["runtime/regions/regions.c", "runtime/diff/diff.c"]
    problems = layers.check(edges, files)
    assert len(problems) == 1 and "dyl_diff_born" in problems[0], problems
    assert layers.layer_cycles(edges) == [["diff", "regions", "diff"]]


def test_a_file_in_no_layer_and_a_wrapper_header_are_caught():
    edges = {("runtime/state.c", "runtime/include/dyl_alloc.h", "include")}
    problems = layers.check(edges, ["runtime/state.c", "runtime/new.c"])
    assert any("runtime/new.c: in no layer" in p for p in problems), problems
    assert any("only wrappers compile" in p for p in problems), problems


def test_dot_names_every_layer_in_use():
    text = layers.dot({("runtime/runtime.c", "runtime/state.c", "dyl_rt")},
                      ["runtime/runtime.c", "runtime/state.c"])
    assert text.startswith("digraph") and '"cluster_calls"' in text
    assert '"runtime/runtime.c" -> "runtime/state.c";' in text


def test_settings_are_read_through_env_table():
    # every DYL_* variable is read once, by runtime/env.c's table; the runtime's other
    # files and the templates compiled into wrappers ask it (dyl_env, dyl_env_get)
    import glob
    root = layers.ROOT
    paths = glob.glob("runtime/**/*.[ch]", root_dir=root, recursive=True)
    paths += glob.glob("microgens/*/template.c.j2", root_dir=root)
    paths += glob.glob("generator/templates/*.j2", root_dir=root)
    readers = []
    for p in sorted(paths):
        if p == "runtime/env.c":
            continue
        with open(os.path.join(root, p)) as f:
            text = f.read()
        if "getenv(" in text or "environ" in text.replace("environment", ""):
            readers.append(p)
    assert readers == [], readers


def test_tools_compile_no_private_runtime_source():
    # the tools share the on-disk format with the runtime through runtime/format/ alone
    # (no constant restated, no private runtime file compiled in), as the Makefile says
    for tool in ("dyl-speedup", "dyl-trace", "dyl-model", "dyl-flow"):
        srcs = subprocess.run(["make", "-s", "-C", layers.ROOT, "tool-src-" + tool],
                              capture_output=True, text=True, check=True).stdout.split()
        assert srcs and any(s.startswith("runtime/format/") for s in srcs), srcs
        private = [s for s in srcs if s.startswith("runtime/")
                   and not s.startswith("runtime/format/")]
        assert private == [], (tool, private)
