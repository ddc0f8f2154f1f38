"""DYL_ASSERT: checked with -DDYL_DEBUG (make DEBUG=1), gone without it; and the runtime
builds both ways."""
import glob
import os
import subprocess

ROOT = os.path.dirname(os.path.abspath(__file__))
while not os.path.exists(os.path.join(ROOT, "runtime", "internal.h")) and ROOT != "/":
    ROOT = os.path.dirname(ROOT)
FLAGS = ["-std=gnu11", "-Wall", "-Werror", "-Iruntime/include", "-Iruntime", "-Iruntime/format"]


def build(tmp_path, name, extra):
    exe = str(tmp_path / name)
    subprocess.run(["cc"] + FLAGS + extra + ["-o", exe, "tests/apps/assert_check.c",
                                             "runtime/state.c", "-lpthread"],
                   cwd=ROOT, check=True)
    return exe


def test_debug_build_checks(tmp_path):
    exe = build(tmp_path, "debug", ["-DDYL_DEBUG"])
    ok = subprocess.run([exe, "3"], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout == "passed evaluated=1\n"
    bad = subprocess.run([exe, "4"], capture_output=True, text=True)
    assert bad.returncode < 0 and bad.stdout == ""
    assert "assert_check.c:20: assertion failed: is_three(x)" in bad.stderr, bad.stderr


def test_release_build_does_not_evaluate(tmp_path):
    exe = build(tmp_path, "release", [])
    r = subprocess.run([exe, "4"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "passed evaluated=0\n"


def test_runtime_builds_with_asserts(tmp_path):
    out = str(tmp_path / "libdylrt-debug.so")
    # the Makefile's RT_SRC
    rt = sorted(glob.glob("runtime/*.c", root_dir=ROOT) + glob.glob("runtime/*/*.c", root_dir=ROOT))
    subprocess.run(["cc", "-O2", "-DDYL_DEBUG", "-Wall", "-Wextra", "-Wno-unused-parameter",
                    "-Werror", "-std=gnu11", "-fPIC", "-shared", "-fvisibility=hidden",
                    "-Iruntime/include", "-Iruntime", "-Iruntime/format", "-o", out] + rt +
                   ["-ldl", "-lpthread"], cwd=ROOT, check=True)
    nm = subprocess.run(["nm", out], capture_output=True, text=True, check=True).stdout
    assert "dyl_assert_fail" in nm
