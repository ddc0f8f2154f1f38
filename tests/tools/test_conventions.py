"""What every command shares (issue 35, "Conventions"): --version from the file VERSION,
one wording for a refused option (exit 2), a "version" key first in every JSON output,
the formats' versions checked (a later trace, spool or .flow refused on one line), the
notes wrapped to the terminal, man pages made from --help, and bash completion."""
import json
import os
import subprocess
import sys

import pytest

from dyltest import ROOT, make

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flowfile import access, flow_file, obj, trace_csv, HEAP  # noqa: E402

VERSION = open(os.path.join(ROOT, 'VERSION')).read().strip()
TOOLS = ['dyl-speedup', 'dyl-trace', 'dyl-flow', 'dyl-model']
COMMANDS = ['dyliberator'] + TOOLS
DATA = os.path.join(ROOT, 'tests', 'tools', 'data')
COMPLETION = os.path.join(ROOT, 'doc', 'completion', 'dyliberator.bash')


@pytest.fixture(scope='module', autouse=True)
def built():
    make(*('bin/' + t for t in TOOLS))


def cmd(name, *args, rc=0, env=None):
    r = subprocess.run([os.path.join(ROOT, 'bin', name), *map(str, args)], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, **(env or {})))
    assert r.returncode == rc, r.stderr
    return r


def test_version_is_the_file_VERSION():
    assert VERSION == '0.9.0'
    for c in COMMANDS:
        r = cmd(c, '--version')
        assert (r.stdout, r.stderr) == (f'{c} (dyliberator) {VERSION}\n', '')
        assert '--version' in cmd(c, '--help').stdout


def test_one_wording_for_a_refused_option():
    for c in COMMANDS:
        r = cmd(c, '--frobnicate', rc=2)
        assert r.stderr == f"{c}: unknown option '--frobnicate' (see {c} --help)\n"
        assert r.stdout == ''
    # an option that takes a value, given none: said so, the same way
    for c, opt in (('dyl-model', '--stat'), ('dyl-flow', '--svg'), ('dyl-trace', '-o')):
        assert cmd(c, 'x.csv', opt, rc=2).stderr == \
            f"{c}: a value must follow '{opt}' (see {c} --help)\n"
    assert cmd('dyliberator', 'stray', rc=2).stderr == \
        "dyliberator: unexpected argument 'stray' (see dyliberator --help)\n"


def flow_trace(tmp_path, version=1):
    """A process whose A writes 100 B that B reads: TRACE and TRACE.flow (VERSION)."""
    path = tmp_path / 'flow.csv'
    path.write_text(trace_csv([(0, 'A', 0, 100), (1, 'B', 200, 100)]))
    head = flow_file([obj(0, HEAP, 100), access(0, 0, 0, 100, 1), access(1, 0, 0, 100, 0)],
                     nseq=2)
    (tmp_path / 'flow.csv.flow').write_bytes(head[:8] + version.to_bytes(4, 'little') + head[12:])
    return path


def first_key(text):
    doc = json.loads(text)
    return next(iter(doc)), doc


def test_every_json_output_starts_with_the_version(tmp_path):
    trace, model = os.path.join(DATA, 'lu-trace.csv'), os.path.join(DATA, 'lu-model.csv')
    assert first_key(cmd('dyl-speedup', '--json', trace, model).stdout)[0] == 'version'
    key, doc = first_key(cmd('dyl-trace', 'summary', '--json', trace).stdout)
    assert (key, doc['version']) == ('version', VERSION)
    # Chrome's trace format keeps its keys; the version goes into its metadata
    doc = json.loads(cmd('dyl-trace', 'chrome', trace).stdout)
    assert doc['otherData'] == {'version': VERSION}
    key, doc = first_key(cmd('dyl-flow', '--json', flow_trace(tmp_path)).stdout)
    assert (key, doc['version']) == ('version', VERSION)


def test_a_later_format_is_refused_on_one_line(tmp_path):
    trace = tmp_path / 'later.csv'
    trace.write_text('# dyliberator trace 2\nseq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work\n'
                     '0,1,f,0,10,,,\n# total_ns=20\n')
    for c in ('dyl-trace', 'dyl-speedup', 'dyl-model'):
        args = [trace, os.path.join(DATA, 'lu-model.csv')] if c == 'dyl-speedup' else [trace]
        assert cmd(c, *args, rc=2).stderr == \
            f'{c}: {trace}: trace format 2, this {c} reads 1 (upgrade dyliberator)\n'
    # version 1, the one written today, is read
    trace.write_text(trace.read_text().replace('trace 2', 'trace 1'))
    assert 'f' in cmd('dyl-trace', 'summary', trace).stdout
    spool = tmp_path / 'x.dylspool'
    spool.write_bytes(b'DYLSPOOL' + (9).to_bytes(4, 'little') + bytes(4))
    assert cmd('dyl-trace', spool, rc=2).stderr == \
        f'dyl-trace: {spool}: spool format 9, this dyl-trace reads 3 (upgrade dyliberator)\n'
    path = flow_trace(tmp_path, version=3)
    assert cmd('dyl-flow', path, rc=2).stderr == \
        f'dyl-flow: {path}.flow: flow format 3, this dyl-flow reads 2 (upgrade dyliberator)\n'


def notes(text):
    return text.split('\nnotes:\n', 1)[1].splitlines()


def test_notes_wrapped_to_the_terminal():
    args = [os.path.join(DATA, 'lu-trace.csv'), os.path.join(DATA, 'lu-model.csv')]
    wide = notes(cmd('dyl-speedup', *args, env={'COLUMNS': '1000'}).stdout)
    narrow = notes(cmd('dyl-speedup', *args, env={'COLUMNS': '60'}).stdout)
    default = notes(cmd('dyl-speedup', *args, env={'COLUMNS': ''}).stdout)  # not a tty: 80
    assert len(wide) == 2 and len(narrow) == 8 and len(default) == 6
    for lines, width in ((narrow, 60), (default, 80)):
        assert all(len(line) <= width for line in lines)
        # each note starts '  - ', its next lines hang under its text; no word is cut
        assert all(line.startswith('  - ') or line.startswith('    ') and line[4] != ' '
                   for line in lines)
        joined = ' '.join(line[4:] for line in lines).split(' ')
        assert joined == ' '.join(line[4:] for line in wide).split(' ')
    # a trace's line quoted in a note ('# threads=recorded') is never broken after its '#'
    for width in range(30, 90):
        lines = notes(cmd('dyl-speedup', *args, env={'COLUMNS': str(width)}).stdout)
        assert not any(line.endswith("'#") for line in lines), width
        assert sum("'# threads=recorded'" in line for line in lines) == 1


def test_man_pages_from_help():
    r = subprocess.run(['make', '-s', '-C', ROOT, 'man'], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    for c in COMMANDS:
        page = os.path.join(ROOT, 'build', 'man', c + '.1')
        out = subprocess.run(['man', '-l', page], capture_output=True, text=True,
                             env=dict(os.environ, MANPAGER='cat', MANWIDTH='80')).stdout
        assert 'NAME' in out and 'SYNOPSIS' in out and 'DESCRIPTION' in out
        assert c + ' ' in out.split('SYNOPSIS', 1)[1].split('DESCRIPTION')[0]
        assert VERSION in out


def complete(*words):
    """What the completion offers after WORDS (the last one being typed), bin/ on PATH."""
    script = (f'source {COMPLETION}; COMP_WORDS=({" ".join(repr(w) for w in words)}); '
              f'COMP_CWORD={len(words) - 1}; _dyl_complete {words[0]}; '
              'printf "%s\\n" "${COMPREPLY[@]}"')
    env = dict(os.environ, PATH=os.path.join(ROOT, 'bin') + ':' + os.environ['PATH'])
    r = subprocess.run(['bash', '-c', script], capture_output=True, text=True, env=env,
                       cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


def test_bash_completion():
    r = subprocess.run(['bash', '-c', f'source {COMPLETION}; complete -p dyl-speedup'],
                       capture_output=True, text=True)
    assert r.stdout == 'complete -o filenames -F _dyl_complete dyl-speedup\n'
    assert {'cat', 'summary', 'chrome', 'convert'} <= set(complete('dyl-trace', ''))
    assert complete('dyl-trace', 'summary', '--j') == ['--json']
    assert complete('dyl-speedup', '--device', 'nvidia-h2') == ['nvidia-h200']
    assert complete('dyliberator', '-g', 'std.fl') == ['std.flow']
    assert complete('dyl-model', '--min') == ['--min-samples']
    assert complete('dyl-speedup', 'models/link-pcie3') == ['models/link-pcie3-x16.csv']
