"""The trace format end to end: what the runtime writes, the tools' reader reads back.

Each spool of the fuzz corpus (tests/fuzz/corpus/spool/) is written out as CSV by the
runtime's own conversion (runtime/format/ alone) and read back by the tools' reader
(runtime/format/read/): every row and every '#' line survives, and the reader's own
reading of the spool (a killed run's recovery) gives the same.  The trace of a real
wrapped run has only keys that runtime/format/dyl_keys.h names, and the reader finds
the value of each key it parses.  So a key renamed on one side only (a literal in a
writer, or in the reader) fails here.  tests/tools/format_roundtrip.c is the harness."""
import glob
import os
import re
import subprocess

import pytest

import dyltest

ROOT = dyltest.ROOT
KEYS_H = os.path.join(ROOT, 'runtime', 'format', 'dyl_keys.h')
SPOOLS = sorted(glob.glob(os.path.join(ROOT, 'tests', 'fuzz', 'corpus', 'spool', '*.spool')))
APPS = os.path.join(ROOT, 'tests', 'apps')
THREADS = os.path.join(ROOT, 'tests', 'runtime', 'threads')
# what the reader adds to a trace it recovers from a spool without footer
RECOVERY = {'recovered_from', 'last_end_ns', 'error'}


def macros():
    """dyl_keys.h's string macros: name -> value."""
    with open(KEYS_H) as f:
        return dict(re.findall(r'#define (DYL_\w+) "([^"]*)"', f.read()))


def named_keys():
    """The keys dyl_keys.h names: its DYL_KEY_* and DYL_EVENT_* values."""
    return {v for k, v in macros().items() if k.startswith(('DYL_KEY_', 'DYL_EVENT_'))}


def line_keys(text):
    """The keys of a trace's '#' lines, in order: KEY of '# KEY=value'; the word and each
    field's key of a thread event's '# WORD tid=N key=value...'."""
    magic = macros()['DYL_TRACE_MAGIC']
    keys = []
    for line in text.splitlines():
        if not line.startswith('#') or line.startswith(magic + ' '):
            continue
        body = line[1:].strip()
        event = re.match(r'(\w+) (\w+=.*)$', body)
        if event:
            keys.append(event.group(1))
            keys += re.findall(r'(?:^| )(\w+)=', event.group(2))
        else:
            keys.append(body.partition('=')[0].strip())
    return keys


def last_values(text):
    """KEY -> its value on the last '# KEY=value' line of TEXT (blanks trimmed)."""
    out = {}
    for line in text.splitlines():
        if line.startswith('#') and '=' in line:
            k, _, v = line[1:].partition('=')
            out[k.strip()] = v.strip()
    return out


@pytest.fixture(scope='module')
def harness(tmp_path_factory):
    """tests/tools/format_roundtrip.c built over the tools' sources, their commands aside."""
    say = lambda what: dyltest.run(['make', '-s', '-C', ROOT, what]).stdout.split()
    srcs = [os.path.join(ROOT, s) for s in say('tool-src-dyl-trace')
            if not s.startswith('speedup/dyl-')]
    incs = ['-I' + os.path.join(ROOT, i[2:]) for i in say('tool-inc')]
    exe = str(tmp_path_factory.mktemp('roundtrip') / 'format_roundtrip')
    dyltest.run(['cc', '-std=gnu11', '-O1', '-g', *incs, '-o', exe,
                 os.path.join(ROOT, 'tests', 'tools', 'format_roundtrip.c'), *srcs,
                 *say('tool-libs')])
    return exe


class Read:
    """What the reader made of a file: .keys {key: value or None}, .notes [(after, text)],
    .rows [text], .procs [the 'proc' lines' text], .end."""

    def __init__(self, harness, path):
        out = dyltest.run([harness, 'read', path]).stdout
        self.keys, self.notes, self.rows, self.procs, self.end = {}, [], [], [], None
        for line in out.splitlines():
            kind, _, rest = line.partition(' ')
            if kind == 'key':
                k, _, v = rest.partition('=')
                self.keys[k] = None if v in ('', '-1') else v
            elif kind == 'note':
                after, _, text = rest.partition(' ')
                self.notes.append((int(after), text))
            elif kind == 'row':
                self.rows.append(rest)
            elif kind == 'proc':
                self.procs.append(rest)
            else:
                self.end = rest


def check_found(text, read):
    """Each value the reader parses is the one its '#' line says, under the same key."""
    said = last_values(text)
    clock = macros()['DYL_TIME_CLOCK_THREAD']
    for key, got in read.keys.items():
        want = said.get(key)
        if key == 'time_clock':
            want = want if want == clock else None
        assert got == want, f"'# {key}=': the file says {want!r}, the reader found {got!r}"


def check_named(text):
    unnamed = sorted(set(line_keys(text)) - named_keys())
    assert unnamed == [], f'keys that runtime/format/dyl_keys.h does not name: {unnamed}'


def test_templates_note_named_keys():
    # the wrappers' templates pass their keys to dyl_note as literals (generated text)
    paths = glob.glob(os.path.join(ROOT, 'generator', 'templates', '*.j2'))
    paths += glob.glob(os.path.join(ROOT, 'microgens', '*', 'template.c.j2'))
    keys = set()
    for p in paths:
        with open(p) as f:
            keys |= set(re.findall(r'dyl_note\("(\w+)"', f.read()))
    assert 'wrapper' in keys and 'time_clock' in keys
    assert sorted(keys - named_keys()) == []


def test_writers_and_reader_spell_no_key():
    # the runtime and the format's reader spell every key through dyl_keys.h: a '#'
    # line's start or a dyl_note key as a literal there would be a second name for it
    paths = glob.glob(os.path.join(ROOT, 'runtime', '**', '*.[ch]'), recursive=True)
    paths.append(os.path.join(ROOT, 'speedup', 'dyl-trace', 'convert.c'))
    literal = re.compile(r'"(?:\\n)?# [a-z_]+[= ]|dyl_note\("')
    found = []
    for p in sorted(paths):
        if p == KEYS_H:
            continue
        with open(p) as f:
            code = re.sub(r'/\*.*?\*/', '', f.read(), flags=re.S)
        found += [f'{os.path.relpath(p, ROOT)}: {m.group(0)}' for m in literal.finditer(code)]
    assert found == []


@pytest.mark.parametrize('spool', SPOOLS, ids=[os.path.basename(s) for s in SPOOLS])
def test_corpus_spool_round_trip(harness, spool, tmp_path):
    csv = str(tmp_path / 'trace.csv')
    dyltest.run([harness, 'write', spool, csv])
    with open(csv) as f:
        text = f.read()
    check_named(text)
    back = Read(harness, csv)
    # every '#' line is a note the reader kept, in order
    lines = [line[1:].lstrip(' \t') for line in text.splitlines() if line.startswith('#')]
    assert [t for _, t in back.notes] == lines
    check_found(text, back)
    # the rows: as the CSV has them, and as the reader recovers them from the spool
    assert len(back.rows) == sum(1 for line in text.splitlines()
                                 if line and line[0].isdigit())
    direct = Read(harness, spool)
    assert direct.rows == back.rows
    assert direct.keys == back.keys
    extra = [t for t in direct.notes if t not in back.notes]
    assert [t for t in back.notes if t not in direct.notes] == []
    assert {t.partition('=')[0] for _, t in extra} <= RECOVERY, extra


@pytest.fixture(scope='module')
def wrapped_run(tmp_path_factory):
    """A wrapped run with threads, page faults, call sites (the footer's module table) and
    thread CPU times, converted at exit and left in its spool (DYL_CONVERT=later): the two
    traces' paths."""
    dyltest.make('runtime')
    d = tmp_path_factory.mktemp('run')
    lib = dyltest.build_c(d, os.path.join(APPS, 'libtiny.c'), 'libtiny.so', '-fPIC',
                          '-shared', '-Wl,-soname,libtiny.so')
    app = dyltest.build_c(d, os.path.join(THREADS, 'threadapp.c'), 'threadapp', '-I' + APPS,
                          '-L' + str(d), '-ltiny', '-Wl,-rpath,' + str(d), '-lpthread')
    wrap = dyltest.wrap(d, '--lib', lib, '--header', os.path.join(APPS, 'tiny.h'),
                        '-g', 'std.faults', '-g', 'std.time:clock=thread',
                        '-g', 'std.callsite:depth=1')
    traces = []
    for name, convert in (('exit.csv', 'exit'), ('later.csv', 'later')):
        env = {k: v for k, v in os.environ.items() if not k.startswith('DYL_')}
        env.update(LD_PRELOAD=wrap, DYL_TRACE=str(d / name), DYL_CONVERT=convert)
        dyltest.run([app, 'shapes'], env=env, cwd=str(d))
        traces.append(str(d / name))
    return traces


def test_wrapped_run_keys_are_named_and_found(harness, wrapped_run):
    exit_trace, later = wrapped_run
    with open(exit_trace) as f:
        text = f.read()
    keys = set(line_keys(text))
    # the run writes the keys of each part: header, notes, thread events, footer
    assert {'pid', 'cmdline', 'faults', 'time_clock', 'threads', 'thread', 'join',
            'thread_name', 'name', 'total_ns', 'overhead_ns', 'module'} <= keys, keys
    assert ',callsite,stack1,' in text
    check_named(text)
    back = Read(harness, exit_trace)
    check_found(text, back)
    assert back.keys['total_ns'] and back.keys['time_clock'] and back.keys['cpu_ns']
    assert back.end == f'{len(back.rows)} 0'
    # the rows left in the spool: the stub names it, the reader reads them there
    with open(later) as f:
        stub = f.read()
    assert 'rows_in_spool' in line_keys(stub)
    check_named(stub)
    in_spool = Read(harness, later)
    check_found(stub, in_spool)
    assert len(in_spool.rows) == len(back.rows) and in_spool.end.endswith(' 0')
    # the module table: in the footer, also of the rows left in the spool
    modules = [t for after, t in back.notes if t.startswith('module=')]
    assert modules and all(after for after, t in back.notes if t.startswith('module='))
    # (another process: its own addresses; the same files)
    files = lambda ms: [m.split(' ', 3)[2:] for m in ms]
    assert files(t for _, t in in_spool.notes if t.startswith('module=')) == files(modules)


def test_wrapped_run_names_every_thread(wrapped_run):
    # '# thread_name': one a thread, the main thread's and every created one's (threadapp
    # names none: each has the program's name), after the other thread lines
    for path in wrapped_run:
        with open(path) as f:
            text = f.read()
        if 'rows_in_spool' in line_keys(text):
            continue    # (the stub: its lines are in the spool)
        tids = re.findall(r'^# thread tid=(\d+) ', text, re.M)
        pid = re.search(r'^# pid=(\d+)$', text, re.M).group(1)
        names = re.findall(r'^# thread_name tid=(\d+) name=(.*)$', text, re.M)
        assert sorted(t for t, _ in names) == sorted(set(tids) | {pid})
        assert {n for _, n in names} == {'threadapp'}
        last_thread = max(text.rfind('\n# thread '), text.rfind('\n# join '))
        assert text.find('\n# thread_name ') > last_thread


PROCS = os.path.join(ROOT, 'tests', 'runtime', 'procs')


def proc_lines(text):
    """The process events of a trace as the harness prints them ('proc' lines): every
    field, 0 where the kind has none (ret_ns: call_ns)."""
    out = []
    for m in re.finditer(r'^# (fork|spawn|exec|waitpid|pipe_write|pipe_read) (.*)$', text, re.M):
        f = dict(kv.split('=') for kv in m.group(2).split())
        pid = f.get('child', f.get('pid', '0'))
        out.append(f"{m.group(1)} tid={f['tid']} call_ns={f['call_ns']} "
                   f"ret_ns={f.get('ret_ns', f['call_ns'])} pid={pid} "
                   f"pipe={f.get('pipe', '0')} bytes={f.get('bytes', '0')}")
    return out


def test_wrapped_run_process_events(harness, tmp_path):
    """A parent that forks two children and waits for them, and a pipeline: the process
    lines (doc/jobs.md) carry only named keys, and the tools' reader
    (speedup/lib/trace/proc_events.c) finds each, and the header's ppid, as written."""
    dyltest.make('runtime')
    d = tmp_path
    lib = dyltest.build_c(d, os.path.join(APPS, 'libtiny.c'), 'libtiny.so', '-fPIC',
                          '-shared', '-Wl,-soname,libtiny.so')
    app = dyltest.build_c(d, os.path.join(PROCS, 'procapp.c'), 'procapp', '-I' + APPS,
                          '-L' + str(d), '-ltiny', '-Wl,-rpath,' + str(d))
    wrap = dyltest.wrap(d, '--lib', lib, '--header', os.path.join(APPS, 'tiny.h'))
    env = {k: v for k, v in os.environ.items() if not k.startswith('DYL_')}
    env.update(LD_PRELOAD=wrap, DYL_TRACE=str(d / 'trace.%p.csv'))
    dyltest.run([app, 'fork'], env=env, cwd=str(d))
    dyltest.run(['/bin/sh', '-c', f'{app} writer 3 1000 | {app} reader'], env=env, cwd=str(d))
    words = set()
    traces = glob.glob(str(d / 'trace.*.csv'))
    assert len(traces) == 5
    for path in traces:
        with open(path) as f:
            text = f.read()
        check_named(text)
        back = Read(harness, path)
        check_found(text, back)
        assert back.keys['ppid'] is not None
        assert back.procs == proc_lines(text)
        words |= {p.split()[0] for p in back.procs}
    assert words == {'fork', 'waitpid', 'pipe_write', 'pipe_read'}
