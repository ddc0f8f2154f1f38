"""No C or Python function of the tree is longer than 80 lines, counted from the first
line of its definition to its closing brace (C) or the last line of its body (Python).
The tracked .c, .h, .py files, the C templates (*.c.j2) and the Python scripts without
an extension are read; the fuzz corpus is not code. codescan.py holds the readers."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import codescan  # noqa: E402

LIMIT = 80
SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'functions_sample.c')


def functions(path):
    """(name, first line, last line) of each function of PATH; [] for other files."""
    k = codescan.kind(path)
    if k == 'c':
        return codescan.c_functions(codescan.read(path))
    if k == 'c-template':
        return codescan.c_functions(codescan.strip_jinja(codescan.read(path)))
    if k == 'python':
        return codescan.py_functions(codescan.read(path))
    return []


def long_functions(paths, limit=LIMIT):
    """'path:line name (N lines)' for each function of PATHS over LIMIT lines, and
    'path: cannot read (why)' for each file whose braces do not balance."""
    out = []
    for path in paths:
        try:
            found = functions(path)
        except (ValueError, SyntaxError) as e:
            out.append(f'{path}: cannot read ({e})')
            continue
        for name, first, last in sorted(found, key=lambda f: f[1]):
            if last - first + 1 > limit:
                out.append(f'{path}:{first} {name} ({last - first + 1} lines)')
    return out


def test_no_function_is_over_80_lines():
    bad = long_functions(codescan.tracked())
    assert not bad, (f'{len(bad)} functions are over {LIMIT} lines (split them):\n  ' +
                     '\n  '.join(bad))


def test_the_c_reader_counts_right():
    # braces in strings, char literals, comments, #define lines and an extern "C" block
    # do not count; an attribute before the name and a returned function pointer do not
    # hide a function; a struct and an initializer are not functions
    with open(SAMPLE, encoding='utf-8') as f:
        found = codescan.c_functions(f.read())
    assert found == [('braces', 14, 23), ('attributed', 28, 32), ('pick', 37, 40)]


def test_the_readers_catch_a_long_function(tmp_path):
    body = ''.join(f'\tx += {i};\n' for i in range(LIMIT - 2))
    c = f'/* a comment {{ */\nint f(int x)\n{{\n{body}\treturn x;\n}}\n'
    assert codescan.c_functions(c) == [('f', 2, LIMIT + 3)]
    py = 'class K:\n    @staticmethod\n    def m(x):\n' + ''.join(
        f'        x += {i}\n' for i in range(LIMIT)) + '        return x\n'
    assert codescan.py_functions(py) == [('m', 3, LIMIT + 4)]
    assert codescan.c_functions('int g(void)\n{\n\treturn 0;\n}\n') == [('g', 1, 4)]


def test_unbalanced_braces_are_reported():
    for text in ('int f(void)\n{\n', 'int f(void)\n{\n}\n}\n'):
        try:
            codescan.c_functions(text)
        except ValueError:
            continue
        raise AssertionError(f'no error for {text!r}')
