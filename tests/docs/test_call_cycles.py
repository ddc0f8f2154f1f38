"""No circle of calls among the core's files (runtime/*.c), none across two folders and
none of more than 4 files, in the runtime and the tools as `make all` builds them
(tests/docs/callgraph.py: compiled to objects, read with nm)."""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import callgraph  # noqa: E402
from codescan import ROOT  # noqa: E402


def test_no_circle_of_calls():
    edges, _ = callgraph.tree_edges()
    assert edges, 'no call between files was found: is make -n all read right?'
    bad = callgraph.problems(edges)
    assert not bad, '\n'.join(bad)


def test_every_c_file_of_runtime_and_speedup_is_seen():
    flags, units = callgraph.link_units(callgraph.make_commands())
    files = glob.glob('runtime/**/*.c', root_dir=ROOT, recursive=True)
    files += glob.glob('speedup/**/*.c', root_dir=ROOT, recursive=True)
    linked = {f for u in units for f in u}
    unseen = sorted(set(files) - linked)
    assert not unseen, f'make all links none of {unseen}: their calls go unchecked'
    assert any('runtime/state.c' in u for u in units), 'the runtime was not found'
    assert sum(1 for u in units if any(f.startswith('speedup/dyl-') for f in u)) >= 4


def test_the_rule():
    def edges(*pairs):
        return {(a, b): ['f'] for a, b in pairs}
    ring = [f'speedup/lib/{c}.c' for c in 'abcde']
    cases = [
        (edges(('runtime/a.c', 'runtime/b.c'), ('runtime/b.c', 'runtime/a.c')), "core's"),
        (edges(('runtime/a.c', 'runtime/x/b.c'), ('runtime/x/b.c', 'runtime/a.c')),
         'across folders'),
        (edges(*zip(ring, ring[1:] + ring[:1])), 'of 5 files'),
        (edges(*zip(ring[:4], ring[1:4] + ring[:1])), None),
        (edges(('runtime/x/a.c', 'runtime/x/b.c'), ('runtime/x/b.c', 'runtime/x/c.c')), None),
    ]
    for graph, why in cases:
        found = callgraph.problems(graph)
        if why is None:
            assert not found, found
        else:
            assert len(found) == 1 and why in found[0], (why, found)


def test_make_output_is_read():
    # compiled one by one into an archive, linked with -L/-l; and one cc line for the rest
    commands = [
        'cc -O2 -Ispeedup/lib -c speedup/lib/a.c -o build/lib/a.o',
        'cc -O2 -Ispeedup/lib -c speedup/lib/b.c -o build/lib/b.o',
        'ar rcs build/lib/libtools.a build/lib/a.o build/lib/b.o',
        'cc -O2 -Ispeedup/lib -o bin/dyl-x speedup/dyl-x/main.c -Lbuild/lib -ltools -lm',
        'cc -O2 -std=gnu11 -fPIC -shared -Iruntime \\',
        '  -o build/libdylrt.so runtime/a.c runtime/b.c -ldl',
    ]
    flags, units = callgraph.link_units('\n'.join(commands).replace('\\\n', ' ').splitlines())
    assert units == [['speedup/dyl-x/main.c', 'speedup/lib/a.c', 'speedup/lib/b.c'],
                     ['runtime/a.c', 'runtime/b.c']]
    assert flags['runtime/a.c'] == ['-O2', '-std=gnu11', '-fPIC', '-Iruntime']
    assert flags['speedup/lib/a.c'] == ['-O2', '-Ispeedup/lib']
