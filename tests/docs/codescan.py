"""Reading the tree's own source: which files git tracks, the comments of C, Python,
shell and Makefile files, and where each C or Python function starts and ends.
tests/docs/test_functions.py and test_comment_paths.py use it."""
import ast
import io
import os
import re
import subprocess
import tokenize


def root():
    """The repository's root: the nearest folder above this file with runtime/,
    generator/ and a Makefile (so the file may move into a subfolder of tests/, which has
    a runtime/ and a README.md of its own)."""
    d = os.path.dirname(os.path.abspath(__file__))
    while not (os.path.isdir(os.path.join(d, 'runtime')) and
               os.path.isdir(os.path.join(d, 'generator')) and
               os.path.isfile(os.path.join(d, 'Makefile'))):
        assert os.path.dirname(d) != d, 'the repository root was not found'
        d = os.path.dirname(d)
    return d


ROOT = root()
# inputs of the fuzz targets, not code of the project
NOT_CODE = ('tests/fuzz/corpus/',)


def tracked():
    """The files git tracks (paths from the root), less the fuzz corpus."""
    out = subprocess.run(['git', 'ls-files', '-z'], cwd=ROOT, check=True,
                         capture_output=True).stdout.decode()
    return sorted(p for p in out.split('\0')
                  if p and not p.startswith(NOT_CODE) and os.path.isfile(os.path.join(ROOT, p)))


def read(path):
    with open(os.path.join(ROOT, path), encoding='utf-8', errors='replace') as f:
        return f.read()


def _blank(s):
    """S with every character but newlines turned into a space (lines stay put)."""
    return re.sub(r'[^\n]', ' ', s)


# What is not code in C: comments, literals, preprocessor lines (with their continuations
# and the comments inside them).
C_TOKEN = re.compile(r"""
    (?P<comment> /\*.*?(?:\*/|\Z) | //(?:\\\n|[^\n])* )
  | (?P<literal> "(?:\\.|[^"\\\n])*"? | '(?:\\.|[^'\\\n])*'? )
  | (?P<directive> ^[ \t]*\#(?:\\\n | /\*.*?(?:\*/|\Z) | "(?:\\.|[^"\\\n])*"? | [^\n])* )
""", re.S | re.M | re.X)


def c_split(text):
    """(code, comments) of a C file. CODE is TEXT with comments, string and char literals
    and preprocessor lines (with their continuations) blanked, so that line numbers and
    columns stay; COMMENTS is a list of (line, text), those of preprocessor lines too."""
    out, comments, last = [], [], 0
    for m in C_TOKEN.finditer(text):
        s, what = m.group(0), m.lastgroup
        if what == 'comment':
            comments.append((text.count('\n', 0, m.start()) + 1, s))
        elif what == 'directive':
            line = text.count('\n', 0, m.start()) + 1
            comments += [(line + s.count('\n', 0, sub.start()), sub.group(0))
                         for sub in C_TOKEN.finditer(s, s.index('#') + 1)
                         if sub.lastgroup == 'comment']
        out.append(text[last:m.start()])
        keep = what == 'literal' and len(s) >= 2
        out.append(s[0] + _blank(s[1:-1]) + s[-1] if keep else _blank(s))
        last = m.end()
    out.append(text[last:])
    return ''.join(out), comments


JINJA = re.compile(r'\{%.*?%\}|\{\{.*?\}\}|\{#.*?#\}', re.S)


def strip_jinja(text):
    """A Jinja template with its tags blanked (lines stay put)."""
    return JINJA.sub(lambda m: _blank(m.group(0)), text)


def _drop_balanced(head, word):
    """HEAD without each WORD(...) (attributes, asm labels), parentheses balanced."""
    while True:
        m = re.search(r'\b%s\s*\(' % word, head)
        if not m:
            return head
        depth, j = 0, m.end() - 1
        while j < len(head):
            depth += {'(': 1, ')': -1}.get(head[j], 0)
            if depth == 0:
                break
            j += 1
        head = head[:m.start()] + ' ' * (j + 1 - m.start()) + head[j + 1:]


def _groups(head):
    """(start, end) of each parenthesised group at the top level of HEAD."""
    out, depth = [], 0
    for j, c in enumerate(head):
        if c == '(':
            depth += 1
            if depth == 1:
                start = j
        elif c == ')':
            depth -= 1
            if depth == 0:
                out.append((start, j + 1))
    return out


def _head_kind(head):
    """What the text before a '{' at file level opens: ('function', name, offset of its
    first character in HEAD), ('extern',) for extern "C" { (whose contents stay at file
    level) or ('block',): a struct, union, enum or an initializer. Macro calls without a
    semicolon before a function (DYL_HOSTIO_BUF(...) lines) are not part of it."""
    for word in ('__attribute__', '__asm__', 'asm'):
        head = _drop_balanced(head, word)
    h = head.rstrip()
    if re.fullmatch(r'\s*extern\s*"\s*"\s*', h):
        return ('extern',)
    groups = _groups(h)
    if '=' in h or not h.endswith(')') or not groups:
        return ('block',)
    m = re.search(r'(\w+)\s*$', h[:groups[-1][0]])
    if m:
        start = groups[-2][1] if len(groups) > 1 else 0
    else:       # a function that returns a function pointer: int (*f(int a))(int)
        m = re.fullmatch(r'\(\s*\*\s*(\w+)\s*\(.*\)\s*\)', h[slice(*groups[-2])] if
                         len(groups) > 1 else '', re.S)
        if not m:
            return ('block',)
        start = groups[-3][1] if len(groups) > 2 else 0
    return ('function', m.group(1), start + len(h[start:]) - len(h[start:].lstrip()))


def c_functions(text):
    """(name, first line, last line) of each function that the C TEXT defines. Raises
    ValueError where its braces do not balance."""
    code, _ = c_split(text)
    funcs, stack, head_start = [], [], 0
    depth = 0       # braces open inside a function, struct or initializer
    for i, c in enumerate(code):
        if c == '{':
            kind = ('block',) if depth else _head_kind(code[head_start:i])
            if kind[0] == 'function':
                kind = ('function', kind[1], code.count('\n', 0, head_start + kind[2]) + 1)
            depth += kind[0] != 'extern'
            stack.append(kind)
            head_start = i + 1
        elif c == '}':
            if not stack:
                raise ValueError('line %d: } without {' % (code.count('\n', 0, i) + 1))
            kind = stack.pop()
            depth -= kind[0] != 'extern'
            if kind[0] == 'function':
                funcs.append((kind[1], kind[2], code.count('\n', 0, i) + 1))
            head_start = i + 1
        elif c == ';' and not depth:
            head_start = i + 1
    if stack:
        raise ValueError('a { is never closed')
    return funcs


def py_functions(text):
    """(name, first line, last line) of each function or method the Python TEXT defines,
    nested ones too (the def line to the last line of the body)."""
    return [(node.name, node.lineno, node.end_lineno) for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def py_comments(text):
    """(line, text) of each # comment and each docstring of the Python TEXT."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string))
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                out.append((body[0].lineno, body[0].value.value))
    return out


def hash_comments(text):
    """(line, text) of each # comment of a shell script or Makefile: from a # at the
    start of a word and outside quotes to the end of the line."""
    out = []
    for no, line in enumerate(text.split('\n'), 1):
        quote, j = None, 0
        while j < len(line):
            c = line[j]
            if c == '\\' and quote != "'":
                j += 1          # an escaped character: \" or \#
            elif quote:
                quote = None if c == quote else quote
            elif c in '"\'':
                quote = c
            elif c == '#' and (j == 0 or line[j - 1] in ' \t;'):
                out.append((no, line[j:]))
                break
            j += 1
    return out


def kind(path):
    """'c', 'c-template', 'python', 'shell', 'make' or None: how to read PATH."""
    base = os.path.basename(path)
    if path.endswith(('.c', '.h')):
        return 'c'
    if path.endswith(('.c.j2', '.h.j2')):
        return 'c-template'
    if path.endswith('.py'):
        return 'python'
    if path.endswith('.sh'):
        return 'shell'
    if base in ('Makefile', 'GNUmakefile') or base.endswith('.mk') or base == 'Makefile.j2':
        return 'make'
    try:
        with open(os.path.join(ROOT, path), 'rb') as f:
            first = f.readline(200)
    except OSError:
        return None
    if first.startswith(b'#!'):
        if b'python' in first:
            return 'python'
        if re.search(rb'\b(ba|da|z)?sh\b', first):
            return 'shell'
    return None


def comments(path):
    """(line, text) of each comment of PATH, by its kind; [] for other files."""
    k, text = kind(path), read(path)
    if k == 'c':
        return c_split(text)[1]
    if k == 'c-template':
        return c_split(strip_jinja(text))[1]
    if k == 'python':
        return py_comments(text)
    if k in ('shell', 'make'):
        return hash_comments(text)
    return []
