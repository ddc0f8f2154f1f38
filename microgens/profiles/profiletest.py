"""Helpers of the profiles' tests (microgens/profiles/*/test_profile_*.py): a test program
and a wrapper made with the profile alone, and the trace's depth-0 rows as numbers."""
import os

import pytest

from dyltest import Trace, build_c, wrap


def needs(header, package):
    """Skips a test file when the library's header (its -dev package) is not installed."""
    return pytest.mark.skipif(not os.path.exists(header), reason=f'needs {package}')


def built(name, source, link, libs):
    """A module fixture: (folder, the program NAME built from SOURCE with LINK flags, a
    wrapper of LIBS with the profiles auto applies and no --defs)."""
    @pytest.fixture(scope='module')
    def fixture(tmp_path_factory):
        d = tmp_path_factory.mktemp(name)
        app = build_c(d, source, name, *link)
        lib_args = [a for lib in libs for a in ('--lib', lib)]
        return d, app, wrap(d, *lib_args, '--profile', 'auto', name=f'{name}.so')
    return fixture


def rows_of(trace, func):
    """[(in_bytes, out_bytes, work)] of FUNC's outermost calls, in order."""
    return [(int(r['in_bytes']), int(r['out_bytes']), int(r['work']))
            for r in Trace(trace).by_seq() if r['func'] == func and r['depth'] == '0']


def col(rows, i):
    return sum(r[i] for r in rows)
