#!/usr/bin/python3
"""tests/identical.py - a refactoring's check: do the tools print the same as at BASE?

    tests/identical.py BASE [DIR...]       (make identical BASE=COMMIT [DIRS=...])

Builds BASE's tools in a worktree of its own (build/identical/BASE, kept for the next
run), then runs both builds' dyl-trace, dyl-speedup, dyl-model and dyl-flow over the same
inputs and compares exit status, stdout and stderr byte for byte.  Inputs: the fuzz
corpus (tests/fuzz/corpus/) and every trace (*.csv with a '# dyliberator trace' line)
in the DIRs given, e.g. the traces bench/residency/real.sh leaves.  Prints one line per
difference and a count; exits 1 if anything differs.  The one allowance: medians from a
sketch (past 4096 calls of a function), within its stated error (tests/sketch_tolerance.py).
Not part of make test: a
refactoring runs it against the commit it started from.
"""
import glob
import os
import subprocess
import sys
import tempfile

import sketch_tolerance

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, 'tests', 'fuzz', 'corpus')


def base_tree(base):
    """BASE's tree with its tools built; a worktree under build/identical/."""
    sha = subprocess.check_output(['git', '-C', ROOT, 'rev-parse', base], text=True).strip()
    tree = os.path.join(ROOT, 'build', 'identical', sha[:12])
    if not os.path.isdir(tree):
        subprocess.check_call(['git', '-C', ROOT, 'worktree', 'add', '-q', '--detach',
                               tree, sha])
    subprocess.check_call(['make', '-s', '-C', tree, 'all'], stdout=subprocess.DEVNULL)
    return tree


def is_trace(path):
    try:
        with open(path, 'rb') as f:
            head = f.read(4096)
    except OSError:
        return False
    return b'# dyliberator trace' in head or head.startswith(b'DYLSPOOL') or \
        head.startswith(b'seq,')


def inputs(dirs):
    """(traces, models, links) to run the tools over."""
    traces = sorted(glob.glob(os.path.join(CORPUS, 'trace', '*')) +
                    glob.glob(os.path.join(CORPUS, 'spool', '*')))
    for d in dirs:
        traces += sorted(p for p in glob.glob(os.path.join(d, '**', '*.csv'), recursive=True)
                         if is_trace(p))
    models = sorted(glob.glob(os.path.join(CORPUS, 'model', '*')) +
                    [p for p in glob.glob(os.path.join(ROOT, 'models', '*.csv'))
                     if not os.path.basename(p).startswith('link-')])
    links = sorted(glob.glob(os.path.join(CORPUS, 'link', '*')) +
                   glob.glob(os.path.join(ROOT, 'models', 'link-*.csv')))
    return traces, models, links


def trace_commands(t):
    yield ['dyl-trace', 'cat', t]
    for o in ([], ['--csv'], ['--json']):
        yield ['dyl-trace', 'summary', t] + o
    yield ['dyl-trace', 'chrome', t]
    for o in ([], ['--bytes'], ['--all-depths']):
        yield ['dyl-model', t] + o
    if os.path.exists(t + '.flow'):
        for o in ([], ['--objects'], ['--all-objects', '--objects'], ['--via-objects'],
                  ['--calls'], ['--json'], ['--dot'], ['--gprof2dot'], ['--names'],
                  ['--slices', '1000000'], ['--slices', '1000000', '--phases'],
                  ['--slices', '1000000', '--spans']):
            yield ['dyl-flow', t] + o


def speedup_commands(t, models, links):
    opts = ([], ['--json'], ['--csv'], ['--plan'], ['--only-faster'], ['--devices', '1'],
            ['--keep-overhead'], ['--cpu-time'])
    for m in models:
        for o in opts:
            yield ['dyl-speedup', t, m] + o
    for m in models[:3]:
        for link in links:
            for r in ('exact', 'optimistic', 'pessimistic'):
                yield ['dyl-speedup', t, m, link, '--residency', r, '--json', '--plan']


def flow_commands():
    for f in sorted(glob.glob(os.path.join(CORPUS, 'flow', '*.flow'))):
        for o in ([], ['--objects'], ['--json']):
            yield ['dyl-flow', f] + o


def run(bindir, cmd, tmp):
    out = os.path.join(tmp, 'o')
    argv = [os.path.join(bindir, cmd[0])] + cmd[1:]
    env = dict(os.environ, LC_ALL='C', COLUMNS='100')
    p = subprocess.run(argv, capture_output=True, env=env, cwd=tmp, timeout=300)
    extra = b''
    if os.path.exists(out):
        extra = open(out, 'rb').read()
        os.unlink(out)
    return p.returncode, p.stdout, p.stderr.replace(bindir.encode(), b'BIN'), extra


def main(argv):
    if not argv or argv[0] in ('-h', '--help'):
        print(__doc__.strip())
        return 0 if argv else 2
    base = base_tree(argv[0])
    traces, models, links = inputs(argv[1:])
    cmds = [c for t in traces for c in trace_commands(t)]
    cmds += [c for t in traces for c in speedup_commands(t, models, links)]
    cmds += list(flow_commands())
    diffs = medians = 0
    with tempfile.TemporaryDirectory() as tmp:
        for cmd in cmds:
            a = run(os.path.join(base, 'bin'), cmd, tmp)
            b = run(os.path.join(ROOT, 'bin'), cmd, tmp)
            if a != b and sketch_tolerance.tolerable(cmd, a, b):
                medians += 1
            elif a != b:
                diffs += 1
                what = [n for n, x, y in zip(('status', 'stdout', 'stderr', 'file'), a, b)
                        if x != y]
                print('differs (%s): %s' % (', '.join(what), ' '.join(
                    os.path.relpath(x, ROOT) if x.startswith('/') else x for x in cmd)))
    print('%d commands over %d traces, %d models, %d links: %d differ' %
          (len(cmds), len(traces), len(models), len(links), diffs) +
          ('; %d more differ only in medians, within the sketch\'s error' % medians
           if medians else ''))
    return 1 if diffs else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
