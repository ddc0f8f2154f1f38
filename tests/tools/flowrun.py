"""dyl-flow run from the tests, its CSV read back, and allocation sites found by the
/* SITE TAG */ marks in the test programs' sources (their line numbers move as the
programs change)."""
import csv
import io
import os
import subprocess

from dyltest import ROOT

DYL_FLOW = os.path.join(ROOT, 'bin', 'dyl-flow')


def marked_site(path, tag):
    """'file.c:LINE' of the allocation marked /* SITE TAG */ in PATH."""
    name = os.path.basename(path)
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.rstrip().endswith(f'/* SITE {tag} */'):
                return f'{name}:{n}'
    raise AssertionError(f'no SITE {tag} in {name}')


def dyl_flow(*args):
    r = subprocess.run([DYL_FLOW, *map(str, args)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def edges(trace):
    return {(r['producer'], r['consumer']): (int(r['bytes']), int(r['unique_bytes']),
                                             int(r['fresh_bytes']))
            for r in rows(dyl_flow(trace))}
