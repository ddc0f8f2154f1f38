"""A user's own micro-generator, from a folder outside the project (-M), with a
parameter and a prerequisite; and one that replaces a standard micro-generator."""
import os

from dyltest import Trace, c_app, c_library, dyliberator, run_both, wrap

C_FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'user_microgen')
HEADER = os.path.join(C_FILES, 'twice.h')
SOURCE = os.path.join(C_FILES, 'libtwice.c')
APP = os.path.join(C_FILES, 'app.c')


def make_microgen(root, name, toml, template):
    d = os.path.join(str(root), name)
    os.makedirs(d)
    with open(os.path.join(d, 'microgen.toml'), 'w') as f:
        f.write(toml)
    with open(os.path.join(d, 'template.c.j2'), 'w') as f:
        f.write(template)


def test_user_microgen_sets_work_from_argument(tmp_path):
    lib, h = c_library(tmp_path, 'twice', HEADER, SOURCE)
    app = c_app(tmp_path, 'app', APP, lib)
    mg = tmp_path / 'mine'
    make_microgen(mg, 'my.work', '''
summary = "work = the first argument times a factor"
requires = ["std.trace"]
[params.factor]
default = "1"
help = "multiplier"
''', '''{% macro postfix(f, p) %}
/* my.work */
dyl_call.work = (int64_t){{ f.params[0].name }} * {{ p.factor }};
{% endmacro %}
''')
    w = wrap(tmp_path, '--lib', lib, '--header', h, '-M', str(mg), '-g', 'my.work:factor=3')
    _, tp = run_both([app], w, tmp_path)
    assert [int(r['work']) for r in Trace(tp).by_seq()] == [3 * i for i in range(10)]
    text = open(tmp_path / 'wrap.d' / 'wrap.c').read()
    assert '/* my.work */' in text


def test_user_microgen_replaces_a_standard_one(tmp_path):
    lib, h = c_library(tmp_path, 'twice', HEADER, SOURCE)
    mg = tmp_path / 'over'
    make_microgen(mg, 'std.time', 'summary = "a fake clock"\nrequires = ["std.trace"]\n',
                  '{% macro prefix(f, p) %}\ndyl_call.t_start = 1;\n{% endmacro %}\n')
    r = dyliberator('--lib', lib, '--header', h, '-M', str(mg), '--list-microgens', cwd=str(tmp_path))
    assert 'std.time (default)\n    a fake clock' in r.stdout
    dyliberator('--lib', lib, '--header', h, '-M', str(mg), '--no-build', cwd=str(tmp_path))
    assert 'dyl_call.t_start = 1;' in open(tmp_path / 'wrap.d' / 'wrap.c').read()


def test_missing_prerequisite_is_named(tmp_path):
    lib, h = c_library(tmp_path, 'twice', HEADER, SOURCE)
    mg = tmp_path / 'broken'
    make_microgen(mg, 'my.needy', 'requires = ["my.absent"]\n', '')
    r = dyliberator('--lib', lib, '--header', h, '-M', str(mg), '-g', 'my.needy', '--no-build',
                    cwd=str(tmp_path), check=False)
    assert r.returncode == 2
    assert 'micro-generator my.absent (required by my.needy) not found' in r.stderr
