"""Helpers of test_blas_profile.py and ../lapack/test_lapack_profile.py: the arguments
that give dyliberator a profile's headers, .defs and functions explicitly, and the rows
of a trace as (func, in_bytes, out_bytes, work)."""
import os
import re
import tomllib

from dyltest import DYLIBERATOR, Trace, run


def profile(folder):
    with open(os.path.join(folder, 'profile.toml'), 'rb') as f:
        return tomllib.load(f)


def no_profile():
    """--profile none where dyliberator has profiles: only what the test names applies."""
    return ['--profile', 'none'] if '--profile' in run([DYLIBERATOR, '--help']).stdout else []


def profile_args(folder, with_functions=True):
    """--header, --defs (and -f: the profile's functions) of the profile in FOLDER."""
    p = profile(folder)
    args = [a for h in p['headers'] for a in ('--header', os.path.join(folder, h))]
    args += [a for d in p['defs'] for a in ('--defs', os.path.join(folder, d))]
    if with_functions:
        args += [a for f in p['functions'] for a in ('-f', f)]
    return no_profile() + args


def defs_functions(path):
    """The functions of the postfix blocks of the .defs file PATH, in order."""
    with open(path) as f:
        return re.findall(r'^\*::(\S+)::postfix', f.read(), re.M)


def exports(lib):
    """The names of the symbols LIB defines (nm -D)."""
    out = run(['nm', '-D', '--defined-only', lib]).stdout
    return {f[2] for f in (line.split() for line in out.splitlines()) if len(f) == 3}


def rows(path, depth='0'):
    """(func, in_bytes, out_bytes, work) of the trace's rows at DEPTH, in call order."""
    return [(r['func'], int(r['in_bytes']), int(r['out_bytes']), int(r['work']))
            for r in Trace(path).by_seq() if r['depth'] == depth]


def build_everything(tmp_path, lib, folder):
    """Wraps every prototype of the profile's headers in LIB (no -f): stderr, which must
    say no warning (a block that matches no function is one)."""
    out = str(tmp_path / 'all.so')
    r = run([DYLIBERATOR, '--lib', lib, *profile_args(folder, with_functions=False), '-o', out],
            cwd=str(tmp_path))
    assert 'warning' not in r.stderr.lower(), r.stderr
    assert os.path.exists(out)
    return r.stderr
