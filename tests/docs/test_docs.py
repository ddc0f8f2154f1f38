"""The documentation against the code: every DYL_* variable of the runtime's table is in
doc/environment.md with its default and allowed values; the README stays short; every
relative link of the Markdown files resolves inside the repository."""
import glob
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from codescan import ROOT  # noqa: E402


ENV_DOC = os.path.join(ROOT, 'doc', 'environment.md')


def env_table_source():
    """The C file holding the table of DYL_* variables (runtime/env.c today; found by its
    declaration, so that moving it into a subfolder of runtime/ keeps the test)."""
    found = [p for p in glob.glob(os.path.join(ROOT, 'runtime', '**', '*.c'), recursive=True)
             if re.search(r'\bstruct\s+var\s+vars\s*\[', open(p, encoding='utf-8').read())]
    assert len(found) == 1, f'the DYL_* table should be in one file of runtime/: {found}'
    return found[0]


def c_fields(body):
    """The comma-separated fields of an initializer, each a string (adjacent literals
    joined), None for NULL, or the bare token."""
    fields, i = [], 0
    token = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|(NULL)|([^,"]+?))\s*(,|$)', re.S)
    while i < len(body):
        parts = []
        while True:
            m = re.match(r'\s*"((?:[^"\\]|\\.)*)"', body[i:], re.S)
            if not m:
                break
            parts.append(m.group(1).encode().decode('unicode_escape'))
            i += m.end()
        if parts:
            fields.append(''.join(parts))
            m = re.match(r'\s*(,|$)', body[i:])
            i += m.end()
            continue
        m = token.match(body, i)
        assert m and m.end() > i, f'cannot read the initializer at: {body[i:i + 40]!r}'
        fields.append(None if m.group(2) else m.group(3))
        i = m.end()
    return fields


def env_vars():
    """(name, default, values, meaning) of each entry of the table."""
    text = open(env_table_source(), encoding='utf-8').read()
    table = re.search(r'struct\s+var\s+vars\s*\[[^\]]*\]\s*=\s*\{(.*?)\n\};', text, re.S)
    assert table, 'the table of DYL_* variables was not found'
    entries = re.findall(r'\[\s*DYL_ENV_\w+\s*\]\s*=\s*\{(.*?)\}\s*,', table.group(1), re.S)
    assert entries, 'no entry in the table of DYL_* variables'
    out = []
    for body in entries:
        name, dflt, values, meaning = c_fields(body)[:4]
        assert name and name.startswith('DYL_'), body
        out.append((name, dflt, values, meaning))
    return out


def doc_rows():
    """The rows of doc/environment.md's tables whose first cell is a `DYL_*` name."""
    rows = {}
    for line in open(ENV_DOC, encoding='utf-8'):
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if line.startswith('|') and re.fullmatch(r'`DYL_\w+`', cells[0]):
            rows[cells[0].strip('`')] = cells
    return rows


def test_env_table_is_read():
    names = [v[0] for v in env_vars()]
    assert 'DYL_TRACE' in names and 'DYL_CLOCK' in names
    assert len(names) == len(set(names))


@pytest.mark.parametrize('name, dflt, values, meaning', env_vars())
def test_env_variable_documented(name, dflt, values, meaning):
    rows = doc_rows()
    assert name in rows, f'{name} (runtime table) is missing from doc/environment.md'
    cells = rows[name]
    assert len(cells) >= 4, f'{name}: the row needs name, default, allowed values, meaning'
    if dflt is None:
        pass    # decided at run time (DYL_CLOCK: the TSC where there is one)
    elif dflt == '':
        assert 'empty' in cells[1], f'{name}: its default is empty; the doc says {cells[1]!r}'
    else:
        assert f'`{dflt}`' in cells[1], f'{name}: default {dflt!r}; the doc says {cells[1]!r}'
    for v in (values or '').split(','):
        if v.strip():
            assert f'`{v.strip()}`' in cells[2], f'{name}: value {v.strip()!r} not in the doc'


def test_env_doc_names_no_stale_variable():
    known = {v[0] for v in env_vars()}
    stale = set(doc_rows()) - known
    assert not stale, f'doc/environment.md lists variables the runtime does not know: {stale}'


def test_readme_is_short():
    with open(os.path.join(ROOT, 'README.md'), encoding='utf-8') as f:
        n = sum(1 for _ in f)
    assert n <= 200, f'README.md has {n} lines; at most 200 (the rest belongs in doc/)'


def slug(heading):
    """GitHub's anchor of a heading."""
    s = re.sub(r'[`*_]{2,}|[`*]', '', heading.strip().lower())
    s = re.sub(r'[^\w\- ]', '', s)
    return s.replace(' ', '-')


def anchors(path):
    out, fence = set(), False
    for line in open(path, encoding='utf-8'):
        if line.startswith('```'):
            fence = not fence
        elif not fence and line.startswith('#'):
            out.add(slug(line.lstrip('#')))
    return out


def markdown_files():
    files = [os.path.join(ROOT, f) for f in ('README.md', 'BENCHMARKS.md')]
    files += glob.glob(os.path.join(ROOT, 'doc', '**', '*.md'), recursive=True)
    files += glob.glob(os.path.join(ROOT, 'microgens', '*', 'README.md'))
    files += glob.glob(os.path.join(ROOT, 'models', '*.md'))
    return sorted(f for f in files if os.path.exists(f))


def links(path):
    """The targets of the Markdown links of PATH, outside code."""
    text, fence, out = [], False, []
    for line in open(path, encoding='utf-8'):
        if line.startswith('```'):
            fence = not fence
            continue
        if not fence:
            text.append(re.sub(r'`[^`]*`', '', line))
    for m in re.finditer(r'\]\(([^)\s]+)(?:\s+"[^"]*")?\)', ''.join(text)):
        out.append(m.group(1))
    return out


@pytest.mark.parametrize('path', markdown_files(), ids=lambda p: os.path.relpath(p, ROOT))
def test_links_stay_inside_the_repository(path):
    root = os.path.realpath(ROOT)
    bad = []
    for target in links(path):
        if re.match(r'[a-z]+:', target):
            continue        # https:, mailto:
        file, _, anchor = target.partition('#')
        dest = os.path.realpath(os.path.join(os.path.dirname(path), file)) if file else path
        if not (dest == root or dest.startswith(root + os.sep)):
            bad.append(f'{target}: outside the repository')
        elif not os.path.exists(dest):
            bad.append(f'{target}: no such file')
        elif anchor and dest.endswith('.md') and anchor not in anchors(dest):
            bad.append(f'{target}: no heading with that anchor')
    assert not bad, f'{os.path.relpath(path, ROOT)}: ' + '; '.join(bad)
