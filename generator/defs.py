"""--defs files: user C code inserted into wrappers (the paper, section IV.C.3).

    library::function::location { C code }

library and function are shell wildcards (library matches the soname or the file
name); location is prefix or postfix.  The paper's single-colon form
library:function:location is accepted too.  Comments (// and /* */) may stand
between definitions; braces inside strings, characters and comments of the code do
not count.  The code may bind buffers to a handle and use them in another function
(dyl_bind, dyl_use: runtime/include/dyl_handles.h); those are C calls, not syntax."""
import fnmatch
import os
import re
from dataclasses import dataclass

from . import text as textmod

LOCATIONS = ('prefix', 'postfix')


class DefsProblem(Exception):
    pass


@dataclass
class Definition:
    library: str
    function: str
    location: str
    code: str
    file: str
    line: int    # line of the code's first character

    def applies(self, soname, lib_path, func):
        libs = [n for n in (soname, os.path.basename(lib_path)) if n]
        return (any(fnmatch.fnmatchcase(n, self.library) for n in libs)
                and fnmatch.fnmatchcase(func, self.function))


_HEAD = re.compile(r'([^\s:{}]+)\s*(::|:)\s*([^\s:{}]+)\s*\2\s*([A-Za-z_]\w*)\s*\{')


def _skip_space_and_comments(text, i, path, line_of):
    while i < len(text):
        if text[i].isspace():
            i += 1
        elif text.startswith('//', i) or text.startswith('#', i):
            j = text.find('\n', i)
            i = len(text) if j < 0 else j + 1
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            if j < 0:
                raise DefsProblem(f'{path}:{line_of(i)}: unterminated comment')
            i = j + 2
        else:
            break
    return i


def _block_end(text, i, path, line_of):
    """Index of the '}' closing the block whose '{' is just before I."""
    depth, start = 1, i
    while i < len(text):
        c = text[i]
        if c in '"\'':
            j = i + 1
            while j < len(text) and text[j] != c:
                if text[j] == '\n':
                    raise DefsProblem(f'{path}:{line_of(i)}: unterminated {"string" if c == chr(34) else "character"} constant')
                j += 2 if text[j] == '\\' else 1
            i = j + 1
        elif text.startswith('//', i):
            j = text.find('\n', i)
            i = len(text) if j < 0 else j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            if j < 0:
                raise DefsProblem(f'{path}:{line_of(i)}: unterminated comment')
            i = j + 2
        elif c == '{':
            depth += 1
            i += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                return i
            i += 1
        else:
            i += 1
    raise DefsProblem(f'{path}:{line_of(start - 1)}: the block opened here is never closed')


def parse(text, path):
    def line_of(pos):
        return text.count('\n', 0, pos) + 1

    defs, i = [], 0
    while True:
        i = _skip_space_and_comments(text, i, path, line_of)
        if i >= len(text):
            return defs
        m = _HEAD.match(text, i)
        if not m:
            snippet = text[i:text.find('\n', i) if '\n' in text[i:] else len(text)].strip()
            raise DefsProblem(f'{path}:{line_of(i)}: expected library::function::location {{ code }}, '
                              f'found {snippet[:60]!r}')
        lib, _, func, loc = m.groups()
        if loc not in LOCATIONS:
            raise DefsProblem(f'{path}:{line_of(m.start(4))}: location {loc!r} is not one of '
                              + ', '.join(LOCATIONS))
        body_start = m.end()
        end = _block_end(text, body_start, path, line_of)
        code = text[body_start:end]
        # the code starts on the line of '{'; keep its first line so #line stays exact
        defs.append(Definition(lib, func, loc, code.strip('\n') if code.strip() else '',
                               os.path.abspath(path), line_of(body_start) + (code[:len(code) - len(code.lstrip('\n'))].count('\n'))))
        i = end + 1


def load(paths):
    defs = []
    for p in paths:
        try:
            data = textmod.read_regular(p)
        except (OSError, ValueError) as e:
            raise DefsProblem(textmod.problem(p, e)) from None
        try:
            text = textmod.decode(data, p)
        except ValueError as e:
            raise DefsProblem(str(e)) from None
        if '\0' in text:
            line = text.count('\n', 0, text.index('\0')) + 1
            raise DefsProblem(f'{p}:{line}: a NUL byte: not a text file')
        defs += parse(text, p)
    return defs
