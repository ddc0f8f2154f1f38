"""Every path that a comment of the code names exists: in the comments of the C files and
C templates, the # comments and docstrings of Python, and the # comments of shell scripts
and Makefiles. A path is a word with a '/' whose first part is a top-level folder of the
repository and that ends in a known extension (.c, .py, .md, ...: those of tracked files)
or in '/'. Placeholders are not paths: a part in capitals that no tracked file has
(microgens/NAME/, fuzz_NAME.c), or one with a wildcard (runtime/*.c, $(B)/x)."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import codescan  # noqa: E402
from codescan import ROOT  # noqa: E402

WORD = re.compile(r'[\w.+\-/*?\[\]<>{}$%~@]+')
WILDCARD = re.compile(r'[*?\[\]<>{}$%~@]')
CAPS = re.compile(r'[A-Z][A-Z0-9]*')


class Names:
    """What the tracked files tell: top-level folders, extensions, words in capitals."""

    def __init__(self, files):
        self.top = {f.split('/')[0] for f in files if '/' in f}
        self.exts = {os.path.splitext(f)[1] for f in files} - {''}
        self.caps = {w for f in files for w in re.split(r'[/_.\-]', f) if CAPS.fullmatch(w)}

    def path_in(self, word):
        """The path WORD names (trailing punctuation dropped), or None."""
        word = re.sub(r'^[(`\'"]+|[)`\'".,;:]+$', '', word)
        if '/' not in word or word.split('/')[0] not in self.top or WILDCARD.search(word):
            return None
        if not (word.endswith('/') or os.path.splitext(word)[1] in self.exts):
            return None
        if any(CAPS.fullmatch(w) and w not in self.caps for w in re.split(r'[/_.\-]', word)):
            return None     # a placeholder: microgens/NAME/, tests/unit/NAME_test.c
        return word


def stale_paths(files, names, exists):
    """'file:line: path' for each path named in a comment of FILES that EXISTS says is
    not there."""
    out = []
    for f in files:
        for line, text in sorted(codescan.comments(f)):
            for m in WORD.finditer(text):
                path = names.path_in(m.group(0))
                if path and not exists(path):
                    out.append(f'{f}:{line + text.count(chr(10), 0, m.start())}: {path}')
    return out


def on_disk(path):
    return os.path.exists(os.path.join(ROOT, path))


def test_paths_in_comments_exist():
    files = codescan.tracked()
    bad = stale_paths(files, Names(files), on_disk)
    assert not bad, (f'{len(bad)} paths named in comments do not exist (fix the comment):'
                     '\n  ' + '\n  '.join(bad))


@pytest.mark.parametrize('word, path', [
    ('runtime/format/dyl_flow.h', 'runtime/format/dyl_flow.h'),
    ('(speedup/lib/rows.c),', 'speedup/lib/rows.c'),
    ('doc/specs/flow.md.', 'doc/specs/flow.md'),
    ('tests/apps/', 'tests/apps/'),
    ('microgens/std.flow/README.md', 'microgens/std.flow/README.md'),
    ('runtime/flow', None),             # no extension, no '/': a name, not checked
    ('build/libdylrt.so', None),        # build/ is not tracked
    ('DIR/x.c', None),
    ('apps/x.c', None),                 # relative to its own folder
    ('runtime/*.c', None),
    ('$(B)/fuzz/x.c', None),
    ('microgens/NAME/README.md', None),
    ('tests/unit/NAME_test.c', None),
    ('bin/dyl-speedup', None),
    ('https://example.org/a.c', None),
])
def test_what_counts_as_a_path(word, path):
    names = Names(['runtime/format/csv.c', 'speedup/lib/rows.c', 'doc/README.md',
                   'tests/apps/x.c', 'microgens/std.flow/template.c.j2', 'bin/dyliberator',
                   'runtime/include/dyl.h'])
    assert names.path_in(word) == path


def test_a_stale_path_is_caught(monkeypatch):
    files = ['runtime/clock.c', 'tests/docs/test_docs.py', 'Makefile']
    texts = {'runtime/clock.c':
             '/* see speedup/gone.c and runtime/state.c */\nint x; // runtime/old/\n',
             'tests/docs/test_docs.py': '"""Reads doc/none.md."""\n# tests/apps/missing.c\n',
             'Makefile': 'A := b # speedup/lib/gone.h\n\techo "# not/a/comment.c"\n'}
    monkeypatch.setattr(codescan, 'read', texts.get)
    names = Names(codescan.tracked())
    bad = stale_paths(files, names, on_disk)
    assert bad == ['runtime/clock.c:1: speedup/gone.c', 'runtime/clock.c:2: runtime/old/',
                   'tests/docs/test_docs.py:1: doc/none.md',
                   'tests/docs/test_docs.py:2: tests/apps/missing.c',
                   'Makefile:1: speedup/lib/gone.h'], bad
