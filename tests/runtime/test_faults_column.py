"""A faults column as the runtime writes it, in both forms the readers take: the CSV written
at exit, and the spool of a process killed before it (read back through runtime/format/).
A user micro-generator stands in for std.faults: a counter column named faults, here the
call's argument modulo 2 (the odd calls 'faulted'), so the answers are known."""
import json
import os
import statistics
import subprocess

from dyltest import ROOT, Trace, c_app, c_library, run_both, wrap

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'faults_column')
HEADER = os.path.join(C_FILES, 'twice.h')
SOURCE = os.path.join(C_FILES, 'libtwice.c')
APP = os.path.join(C_FILES, 'app.c')
TOML = 'summary = "a fake faults column: the argument modulo 2"\nrequires = ["std.trace"]\n'
TEMPLATE = '''{% macro file(w, p) %}
static int my_faults_column = -1;
{% endmacro %}
{% macro init(w, p) %}
{
	static const char *const names[] = { "faults" };
	my_faults_column = dyl_add_columns(names, 1);
}
{% endmacro %}
{% macro postfix(f, p) %}
dyl_call.work = 8;
if (my_faults_column >= 0 && dyl_call.ncounters == 0) {
	dyl_call.counter_base = (uint32_t)my_faults_column;
	dyl_call.ncounters = 1;
	dyl_call.counters[0] = {{ f.params[0].name }} % 2;
}
{% endmacro %}
'''


def build(tmp_path):
    lib, h = c_library(tmp_path, 'twice', HEADER, SOURCE)
    app = c_app(tmp_path, 'app', APP, lib)
    d = tmp_path / 'mg' / 'my.faults'
    d.mkdir(parents=True)
    (d / 'microgen.toml').write_text(TOML)
    (d / 'template.c.j2').write_text(TEMPLATE)
    w = wrap(tmp_path, '--lib', lib, '--header', h, '-M', str(tmp_path / 'mg'), '-g', 'my.faults')
    return app, w


def test_written_at_exit(tmp_path):
    # Odd arguments 'faulted': 20 calls.  With a model of 0 ns, each keeps t - the median
    # of the 20 even calls (when above it): the sum is worked out from the trace itself.
    app, w = build(tmp_path)
    _, path = run_both([app], w, tmp_path)
    tr = Trace(path)
    assert tr.columns[-1] == 'faults'
    clean = [int(r['t_ns']) for r in tr.rows if r['faults'] == '0']
    hit = [int(r['t_ns']) for r in tr.rows if r['faults'] == '1']
    assert len(clean) == 20 and len(hit) == 20
    med = statistics.median(clean)
    m = tmp_path / 'm.csv'
    m.write_text('func,work,t_ns\ntwice,0,0\ntwice,100,0\n')
    r = subprocess.run([os.path.join(ROOT, 'bin', 'dyl-speedup'), '--json', path, str(m)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res['fault_calls'] == 20 and res['fault_unmatched'] == 0
    assert res['fault_kept_ns'] == sum(max(0, t - med) for t in hit)
    assert res['predicted_ns'] == res['fault_kept_ns']


def test_read_back_from_the_spool_of_a_killed_process(tmp_path):
    # SIGKILL after the calls: no CSV was written, the rows come from the spool.  dyl-model
    # leaves the 20 faulted calls out: its one sample (work 8) is made of the 20 others.
    app, w = build(tmp_path)
    path = str(tmp_path / 'trace.csv')
    env = {k: v for k, v in os.environ.items() if k not in ('LD_PRELOAD', 'DYL_TRACE')}
    p = subprocess.Popen([app, 'wait'], env=dict(env, LD_PRELOAD=w, DYL_TRACE=path),
                         cwd=str(tmp_path), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        line = p.stdout.readline().decode()
    finally:
        p.kill()
        p.communicate(timeout=20)
    assert line.startswith('ready') and p.returncode == -9
    assert os.path.exists(str(tmp_path / '.trace.csv.dylspool'))
    r = subprocess.run([os.path.join(ROOT, 'bin', 'dyl-model'), path], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert 'left out 20 calls that took page faults' in r.stderr
    rows = [l for l in r.stdout.splitlines() if not l.startswith('#')]
    assert rows[0] == 'func,work,t_ns,samples' and rows[1].startswith('twice,8,')
    assert rows[1].endswith(",20")
    assert "did not finish" in r.stderr and "spool" in r.stderr
