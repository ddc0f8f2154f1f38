#!/usr/bin/python3
"""Circles of calls among the C files that `make all` builds (the runtime and the tools).

Each source is compiled alone with the flags the Makefile gives it (read from `make -n`),
and `nm` says which global symbols it defines and which it needs. File A calls file B
when both are linked into one program or library and A needs a symbol B defines. A
circle is a strongly connected component of that graph. Allowed: a circle of at most
4 files in one folder other than the core's (runtime/*.c).

    /usr/bin/python3 tests/docs/callgraph.py     # one line per circle; exit 1 if one is not allowed
"""
import concurrent.futures
import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from codescan import ROOT  # noqa: E402

MAX_FILES = 4
CORE = 'runtime'    # the folder whose files may not call each other in a circle
# what a compile line keeps: what changes which symbols a file defines and needs
KEEP = ('-I', '-D', '-U', '-std', '-f', '-m', '-O', '-include')


def make_commands(target='all'):
    """The shell commands `make TARGET` would run from scratch, one string each (the
    flags of a make that runs this test, such as make check's, are not passed on)."""
    env = {k: v for k, v in os.environ.items() if k not in ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL')}
    r = subprocess.run(['make', '-n', '-B', '-o', 'build/.deps', '-o', 'build/.rt-release',
                        '-o', 'build/.rt-debug', target], cwd=ROOT, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, 'make -n %s failed: %s' % (target, r.stderr)
    return r.stdout.replace('\\\n', ' ').splitlines()


def _flags(words):
    out, skip = [], False
    for w in words[1:]:
        if skip:
            out.append(w)
            skip = False
        elif w in ('-I', '-D', '-include'):
            out.append(w)
            skip = True
        elif w.startswith(KEEP) and w not in ('-fsanitize=fuzzer',):
            out.append(w)
    return out


def link_units(commands):
    """({source: compile flags}, [sources of each program or library]) from the
    commands: a compile with -c makes an object, ar an archive, and a link (cc -o
    without -c) a unit of the .c, .o and .a files (and -lNAME of a -L folder) it names."""
    flags, obj_src, archives, units = {}, {}, {}, []
    for cmd in commands:
        try:
            words = shlex.split(cmd)
        except ValueError:
            continue
        if not words:
            continue
        if os.path.basename(words[0]) in ('ar', 'gcc-ar', 'llvm-ar'):
            lib = next((w for w in words if w.endswith('.a')), None)
            archives[lib] = [obj_src[w] for w in words if w in obj_src]
            continue
        srcs = [w for w in words[1:] if w.endswith('.c') and not w.startswith('-')]
        for s in srcs:
            flags.setdefault(s, _flags(words))
        if '-c' in words:
            out = words[words.index('-o') + 1] if '-o' in words else None
            if out and len(srcs) == 1:
                obj_src[out] = srcs[0]
            continue
        if '-o' not in words or not (srcs or any(w.endswith(('.o', '.a')) for w in words)):
            continue
        unit = list(srcs)
        dirs = [w[2:] for w in words if w.startswith('-L')]
        for w in words[1:]:
            if w in obj_src:
                unit.append(obj_src[w])
            elif w in archives:
                unit += archives[w]
            elif w.startswith('-l'):
                for d in dirs:
                    unit += archives.get(os.path.join(d, 'lib%s.a' % w[2:]), [])
        units.append(sorted(set(unit)))
    return flags, units


def symbols(flags, cc='cc'):
    """{source: (defined symbols, needed symbols)}: each compiled alone, then nm. At -O0,
    three times faster than the Makefile's -O2; no call across files is inlined at
    either, and a call in a branch that -O2 folds away is still a call of the source."""
    srcs = sorted(flags)
    with tempfile.TemporaryDirectory() as tmp:
        def build(i):
            obj = os.path.join(tmp, '%d.o' % i)
            opts = [f for f in flags[srcs[i]] if not f.startswith('-O')] + ['-O0']
            r = subprocess.run([cc, '-c', '-w'] + opts + [srcs[i], '-o', obj],
                               cwd=ROOT, capture_output=True, text=True)
            assert r.returncode == 0, '%s does not compile: %s' % (srcs[i], r.stderr)
            return obj
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
            objs = list(pool.map(build, range(len(srcs))))
        listing = subprocess.run(['nm', '-A'] + objs, check=True, capture_output=True,
                                 text=True).stdout
    src_of = dict(zip(objs, srcs))
    out = {s: (set(), set()) for s in srcs}
    for line in listing.splitlines():
        obj, _, rest = line.partition(':')
        parts = rest.split()
        if len(parts) == 2 and parts[0] == 'U':
            out[src_of[obj]][1].add(parts[1])
        elif len(parts) == 3 and parts[1] in 'TDBRCVWi':
            out[src_of[obj]][0].add(parts[2])
    return out


def call_edges(units, syms):
    """{(caller, callee): [symbols]} inside each unit."""
    edges = {}
    for unit in units:
        defs = {}
        for s in unit:
            for name in syms.get(s, ((), ()))[0]:
                defs.setdefault(name, s)
        for s in unit:
            for name in syms.get(s, ((), ()))[1]:
                if name in defs and defs[name] != s:
                    edges.setdefault((s, defs[name]), set()).add(name)
    return {k: sorted(v) for k, v in edges.items()}


def circles(edges):
    """The strongly connected components of more than one file (Tarjan), each sorted."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def why_not_allowed(circle):
    """Why CIRCLE (a list of files) breaks the rule, or None."""
    folders = sorted({os.path.dirname(f) for f in circle})
    if len(folders) > 1:
        return 'across folders ' + ', '.join(f + '/' for f in folders)
    if folders[0] == CORE:
        return "among the core's files (%s/*.c)" % CORE
    if len(circle) > MAX_FILES:
        return 'of %d files (at most %d)' % (len(circle), MAX_FILES)
    return None


def describe(circle, edges):
    """The calls of CIRCLE, one per line: caller -> callee (a few symbols)."""
    lines = []
    for (a, b), names in sorted(edges.items()):
        if a in circle and b in circle:
            more = ', ...' if len(names) > 3 else ''
            lines.append('    %s -> %s (%s%s)' % (a, b, ', '.join(names[:3]), more))
    return '\n'.join(lines)


def problems(edges):
    """One paragraph per circle that is not allowed."""
    out = []
    for c in circles(edges):
        why = why_not_allowed(c)
        if why:
            out.append('circle of calls %s: %s\n%s' % (why, ' '.join(c), describe(c, edges)))
    return out


def tree_edges():
    flags, units = link_units(make_commands())
    return call_edges(units, symbols(flags)), flags


def main():
    edges, _ = tree_edges()
    for c in circles(edges):
        print('%s %s' % ('BAD ' if why_not_allowed(c) else 'ok  ', ' '.join(c)))
    bad = problems(edges)
    print('\n'.join(bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
