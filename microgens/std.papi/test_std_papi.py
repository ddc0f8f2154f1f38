"""std.papi: counters per call where the machine has them; on one without (this VM),
a one-line notice, empty counter columns, and times from PAPI's real-time clock."""
import os
import re
import subprocess

import pytest

from dyltest import Trace, c_app, c_library, wrap

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'apps')
HEADER = os.path.join(C_FILES, 'papi_w.h')
SOURCE = os.path.join(C_FILES, 'libpapi_w.c')
APP = os.path.join(C_FILES, 'app.c')


def has_counters():
    """Whether PAPI can count instructions here: papi_command_line tries to (papi_avail
    lists the presets of the CPU model even where the VM has no counters, as on AMD EPYC
    guests, and exits 0 either way)."""
    r = subprocess.run(['papi_command_line', 'PAPI_TOT_INS'], capture_output=True, text=True)
    return re.search(r'^PAPI_TOT_INS : \d+', r.stdout, re.M) is not None


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('papi')
    lib, h = c_library(d, 'papi_w', HEADER, SOURCE)
    app = c_app(d, 'app', APP, lib)
    w = wrap(d, '--lib', lib, '--header', h, '-g', 'std.papi:events=PAPI_TOT_INS+PAPI_TOT_CYC')
    return d, app, w


def run(d, app, w, **env):
    e = dict(os.environ, LD_PRELOAD=w, DYL_TRACE=os.path.join(str(d), 't.csv'), **env)
    plain = subprocess.run([app], capture_output=True, text=True)
    r = subprocess.run([app], capture_output=True, text=True, env=e)
    assert r.stdout == plain.stdout and r.returncode == 0
    return r, Trace(os.path.join(str(d), 't.csv'))


def test_columns_and_times(built):
    d, app, w = built
    r, t = run(d, app, w)
    assert t.columns[-2:] == ['PAPI_TOT_INS', 'PAPI_TOT_CYC']
    assert t.count('work') == 5
    assert t.meta['time_clock'] == 'papi-real'
    times = [int(x['t_ns']) for x in t.by_seq()]
    assert all(x > 0 for x in times)
    if has_counters():
        ins = [int(x['PAPI_TOT_INS']) for x in t.by_seq()]
        assert ins == sorted(ins) and ins[0] > 100000
    else:
        # one notice line, nothing else on stderr; counters empty
        lines = r.stderr.strip().split('\n')
        assert len(lines) == 1 and lines[0].startswith('dyliberator: ') and 'PAPI' in lines[0]
        assert all(x['PAPI_TOT_INS'] == '' for x in t.rows)


def test_events_from_environment(built):
    d, app, w = built
    _, t = run(d, app, w, DYL_PAPI_EVENTS='PAPI_TOT_CYC')
    assert t.columns[-1] == 'PAPI_TOT_CYC' and 'PAPI_TOT_INS' not in t.columns
