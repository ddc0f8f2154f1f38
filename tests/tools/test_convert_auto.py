"""DYL_CONVERT=auto, the default: the CSV rows at exit for a spool of at most
DYL_CONVERT_MAX bytes (64M), else the rows left in the spool as DYL_CONVERT=later leaves
them (doc/environment.md).  The limit is set small here (1M) so that a short run passes it."""
import json
import os

import pytest

import dyltest
from dyltest import Trace
from test_convert_later import read, run_wrapped, spool_of, split_csv, tiny, tool  # noqa: F401 (tiny)

CALLS = ['calls', '100000']     # 16 bytes a call: a spool of ~1.9 MB


def run(tiny, d, args, **env_extra):
    """The wrapped tinyapp in folder D, with no DYL_* variable but DYL_TRACE and ENV_EXTRA:
    (the trace's path, the completed process)."""
    path, r = run_wrapped(tiny, d, args, **env_extra)
    assert r.returncode == 0, r
    return path, r


def no_timing(tr):
    """The rows of Trace TR without what differs between two runs (times, tid)."""
    return [{k: v for k, v in r.items() if k not in ('tid', 't_start_ns', 't_ns')}
            for r in tr.by_seq()]


def test_a_big_run_keeps_its_rows_in_the_spool_by_default(tiny, tmp_path):
    """Over the limit: the trace says where its rows are, every tool reads them there, and
    `dyl-trace convert` gives the CSV that DYL_CONVERT=exit writes (which a run with the
    same small limit still gets at exit)."""
    (tmp_path / 'auto').mkdir()
    (tmp_path / 'exit').mkdir()
    path, r = run(tiny, tmp_path / 'auto', CALLS, DYL_CONVERT_MAX='1M')
    assert r.stderr == ''
    assert os.path.getsize(spool_of(path)) > 1 << 20
    _, rows, tail = split_csv(read(path))
    assert rows == [] and tail[0] == '# rows_in_spool=.trace.csv.dylspool\n'
    epath, er = run(tiny, tmp_path / 'exit', CALLS, DYL_CONVERT_MAX='1M', DYL_CONVERT='exit')
    assert er.stdout == r.stdout and er.stderr == ''
    assert sorted(os.listdir(tmp_path / 'exit')) == ['trace.csv']
    assert len(Trace(epath).rows) == 100000
    # the tools on the trace the user named, before and after its conversion
    model = dyltest.write_text(str(tmp_path / 'm.csv'), 'func,work,t_ns\ntiny_add,0,1\n')
    cat = tool('dyl-trace', path)
    before = tool('dyl-speedup', path, model, '--json', rc=3)   # (no work size: nothing predicted)
    assert cat.stderr == '' and before.stderr == ''
    tool('dyl-trace', 'convert', path)
    assert not os.path.exists(spool_of(path))
    after = tool('dyl-speedup', path, model, '--json', rc=3)
    assert after.stdout == before.stdout and after.stderr == ''
    tr = Trace(path)
    assert Trace(dyltest.write_text(str(tmp_path / 'cat.csv'), cat.stdout)).by_seq() == tr.by_seq()
    assert no_timing(tr) == no_timing(Trace(epath))


def test_a_small_run_gets_its_csv_at_exit(tiny, tmp_path):
    """Under the default limit (64M): the CSV rows at exit, and no spool left."""
    path, r = run(tiny, tmp_path, ['threads', '3', '30000'])
    assert r.stderr == ''
    assert sorted(os.listdir(tmp_path)) == ['trace.csv']
    tr = Trace(path)
    assert len(tr.rows) == 90000 and 'rows_in_spool' not in tr.meta


@pytest.mark.parametrize('value', ['lots', '1MB'])
def test_a_bad_limit_is_one_line_and_the_default(tiny, tmp_path, value):
    """A value that is not a size: one warning line, then the default limit (64M: this
    run's ~1.9 MB spool is converted at exit; '1MB' is not read as 1M, which would keep
    the rows in the spool); the program's output as without it."""
    (tmp_path / 'bad').mkdir()
    (tmp_path / 'good').mkdir()
    path, r = run(tiny, tmp_path / 'bad', CALLS, DYL_CONVERT_MAX=value)
    _, good = run(tiny, tmp_path / 'good', CALLS)
    assert r.stdout == good.stdout and good.stderr == ''
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and f'DYL_CONVERT_MAX={value}: not a size; using 64M' in lines[0], r.stderr
    assert sorted(os.listdir(tmp_path / 'bad')) == ['trace.csv']
    (t,) = json.loads(tool('dyl-trace', 'summary', '--json', path).stdout)['traces']
    assert t['rows'] == 100000 and len(Trace(path).rows) == 100000
