"""dyl-speedup --report and --html (issue 35, item 4): the text report with the answer
first, wrapped to the terminal, and one self-contained HTML page, checked in headless
Chromium (Debian's chromium).  The README's examples are run for real, small: the demo's
matmul_mix with the example PCIe model, the residency example (a power iteration with
its flow and a link model) and a --device run; hand-made traces give the threads and the
escaping.  Each page's screenshot is left in build/report-tests/ to be looked at."""
import json
import os
import re
import shutil
import subprocess

import pytest

from dyltest import EXAMPLES, REF_BLAS, ROOT, build_c, make, run, wrap

SPEEDUP = os.path.join(ROOT, 'bin', 'dyl-speedup')
MODELS = os.path.join(ROOT, 'models')
SHOTS = os.path.join(ROOT, 'build', 'report-tests')
CHROMIUM = shutil.which('chromium')
needs_chromium = pytest.mark.skipif(not CHROMIUM, reason='Debian package chromium not installed')


@pytest.fixture(scope='module', autouse=True)
def built():
    make('bin/dyl-speedup', 'bin/dyl-flow', 'bin/dyliberator')


@pytest.fixture(scope='module')
def demo(tmp_path_factory):
    """make demo, small: matmul_mix's dgemm_ calls traced, the example PCIe model."""
    d = tmp_path_factory.mktemp('demo')
    app = build_c(d, os.path.join(EXAMPLES, 'apps', 'matmul_mix.c'), 'matmul_mix', REF_BLAS,
                  '-Wl,-rpath,' + os.path.dirname(REF_BLAS))
    w = wrap(d, '--lib', REF_BLAS, '--header', os.path.join(EXAMPLES, 'blas.h'), '--defs',
             os.path.join(EXAMPLES, 'blas.defs'), '-f', 'dgemm_')
    trace = str(d / 'trace.csv')
    run([app, '200', '120'], env=dict(os.environ, LD_PRELOAD=w, DYL_TRACE=trace))
    return [trace, os.path.join(MODELS, 'example-pcie-gpu-dgemm.csv')]


@pytest.fixture(scope='module')
def resid(tmp_path_factory):
    """examples/residency.sh, small: dgemv_ with its flow, compute model and link."""
    d = tmp_path_factory.mktemp('resid')
    run(['make', '-s', '-C', os.path.join(ROOT, 'bench', 'residency', 'progs'), f'O={d}',
         f'{d}/power_plain'])
    w = wrap(d, '--lib', REF_BLAS, '--header', os.path.join(EXAMPLES, 'blas.h'), '--defs',
             os.path.join(EXAMPLES, 'resid-real.defs'), '-f', 'dgemv_',
             '-g', 'std.flow:host_reads=on', '-g', 'std.diff')
    trace = str(d / 'power.csv')
    run([str(d / 'power_plain'), '128', '6'], env=dict(os.environ, LD_PRELOAD=w, DYL_TRACE=trace))
    return [trace, os.path.join(MODELS, 'example-gpu-dgemv-compute.csv'),
            os.path.join(MODELS, 'link-pcie4-x16.csv')]


def threaded(tmp_path, name='t.csv'):
    """Three threads (main 100 and its two, 101 and 102), kernel k in each."""
    lines = ['# dyliberator trace 1', '# pid=100',
             'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args',
             '0,101,k,1200,20000,,,20000,0,', '1,100,k,2000,10000,,,10000,0,',
             '2,102,k,3000,8000,,,8000,0,', '3,100,host_only,15000,300,,,,0,',
             '# threads=recorded',
             '# thread tid=101 parent=100 create_ns=1000 start_ns=1100 end_ns=21500',
             '# thread tid=102 parent=100 create_ns=2500 start_ns=2600 end_ns=11500',
             '# join tid=100 target=101 call_ns=12500 ret_ns=21600',
             '# join tid=100 target=102 call_ns=21600 ret_ns=21700', '# total_ns=22000']
    (tmp_path / name).write_text('\n'.join(lines) + '\n')
    (tmp_path / 'm.csv').write_text('func,work,t_ns\nk,0,0\nk,40000,10000\n')
    return [str(tmp_path / name), str(tmp_path / 'm.csv')]


def cases(request, tmp_path):
    """The inputs of each example by name."""
    if request.param == 'demo':
        return request.getfixturevalue('demo')
    if request.param == 'residency':
        return request.getfixturevalue('resid')
    if request.param == 'device':
        return request.getfixturevalue('resid')[:1] + ['--device', 'nvidia-h100-pcie']
    return threaded(tmp_path)


@pytest.fixture(params=['demo', 'residency', 'device', 'threads'])
def example(request, tmp_path):
    return request.param, cases(request, tmp_path)


def speedup(*args, env=None):
    r = subprocess.run([SPEEDUP, *args], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    return r.stdout


def as_json(files):
    return json.loads(speedup('--json', *files))


def report(files, columns=80):
    return speedup('--report', *files, env=dict(os.environ, COLUMNS=str(columns)))


# --- the text report ---

def test_text_first_line_is_json_s_g(example):
    _, files = example
    want = as_json(files)['S_G']
    first = report(files).splitlines()[0]
    m = re.match(r'S_G = ([0-9.]+): ', first)
    assert m, first
    assert float(m.group(1)) == float(f'{want:.4g}')


def test_text_wrapped_to_columns(example):
    _, files = example
    text = report(files, columns=60)
    for line in text.splitlines():
        # longer only where a token cannot be broken (a path, a long name)
        assert len(line) <= 60 or ' ' not in re.sub(r'^\s*(- )?', '', line), line
    assert len(report(files, columns=200).splitlines()) < len(text.splitlines())


def test_text_sections(resid):
    text = report(resid)
    lines = text.splitlines()
    assert lines[1].startswith('S_G with the transfers: exact ')
    assert 'optimistic' in text.split('Kernels')[0] and 'pessimistic' in text.split('Kernels')[0]
    for head in ('Kernels', 'Transfers', 'Offload plan', 'Threads'):
        assert any(line.startswith(head) for line in lines), head
    j = json.loads(speedup('--json', '--plan', *resid))
    best = next(p for p in j['plans'] if p['name'] == 'best')
    row = next(line for line in lines if line.startswith('  best'))
    assert str(best['h2d_bytes']) in row.split()


def test_text_device_bounded_by(resid):
    files = resid[:1] + ['--device', 'nvidia-h100-pcie']
    j = as_json(files)
    lines = report(files).splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith('Kernels'))
    assert lines[head + 1].split()[-2:] == ['bounded', 'by']
    for k in j['kernels']:
        row = next(line for line in lines[head + 2:] if line.split()[0] == k['func'])
        assert row.split()[-1] == k['bounded_by']


def test_default_output_unchanged(demo):
    plain = speedup(*demo)
    assert plain.startswith('dyl-speedup: 1 trace, 1 model file')
    assert not report(demo).startswith('dyl-speedup:')


# --- the HTML page ---

def html(files, path):
    speedup('--html', str(path), *files)
    return path.read_text()


def chromium(path, *args):
    """Runs headless Chromium on the file PATH; no name resolves (nothing could load)."""
    r = subprocess.run([CHROMIUM, '--headless=new', '--no-sandbox', '--disable-gpu',
                        '--host-resolver-rules=MAP * ~NOTFOUND', '--window-size=1280,2000',
                        *args, 'file://' + str(path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


EXTERNAL = re.compile(r'''(?:\b(?:src|href|action|poster|data)\s*=\s*["']?\s*(?!#)[^"'\s>]|'''
                      r'''url\(|@import|https?:|["'(]//)''', re.I)


def external_refs(text):
    return EXTERNAL.findall(text)


def test_external_refs_are_found():
    """The check itself: each kind of reference is seen, an anchor (#x) is not."""
    for bad in ('<img src="http://x/y.png">', '<link href=style.css>', 'a{background:url(x)}',
                '<script src="//cdn/x.js">', '@import "x.css"'):
        assert external_refs(bad), bad
    assert not external_refs('<a href="#kernels">k</a>')


@needs_chromium
def test_page_in_chromium(example, tmp_path):
    name, files = example
    page = tmp_path / 'report.html'
    text = html(files, page)
    j = as_json(files)
    assert not external_refs(text)
    dom = chromium(page, '--dump-dom')
    assert not external_refs(dom)
    # the headline: S_G exactly as --json has it, and as the text report rounds it
    m = re.search(r'<span id="sg" data-sg="([^"]*)">([^<]*)</span>', dom)
    assert m, dom[:2000]
    assert float(m.group(1)) == j['S_G']
    assert float(m.group(2)) == float(f"{j['S_G']:.4g}")
    # one row per modelled function, one lane per thread of the trace
    assert dom.count('<tr class="kernel">') == len(j['kernels']) > 0
    assert len(re.findall(r'<g class="lane" data-tid="\d+">', dom)) == len(j['threads']) > 0
    os.makedirs(SHOTS, exist_ok=True)
    shot = os.path.join(SHOTS, f'{name}.png')
    chromium(page, '--screenshot=' + shot)
    assert os.path.getsize(shot) > 10000


@needs_chromium
def test_page_residency_parts(resid, tmp_path):
    text = html(resid, tmp_path / 'r.html')
    j = json.loads(speedup('--json', '--plan', *resid))
    table = text.split('id="bounds-table"')[1].split('</table>')[0]
    assert table.count('<tr') == 1 + len(j['bounds'])   # the head, exact, optimistic, pessimistic
    assert f'<td data-v="{j["bounds"]["exact"]["h2d_bytes"]}">' in table
    plans = text.split('id="plans"')[1].split('</table>')[0]
    assert plans.count('<tr') == 1 + len(j['plans'])
    graph = text.split('<div class="graph">')[1].split('</div>')[0]
    if shutil.which('dot'):
        assert '<svg' in graph and 'dgemv_' in graph
    else:
        assert 'Not drawn' in graph


def test_page_escapes_trace_strings(tmp_path):
    odd = tmp_path / 'o'
    odd.mkdir()
    files = threaded(odd, name='a<i>b&c"d.csv')
    text = html(files, tmp_path / 'r.html')
    assert 'a<i>b' not in text
    assert 'a&lt;i&gt;b&amp;c&quot;d.csv' in text


def test_page_threads_lanes(tmp_path):
    files = threaded(tmp_path)
    text = html(files, tmp_path / 'r.html')
    assert re.findall(r'<g class="lane" data-tid="(\d+)">', text) == ['100', '101', '102']
    # k on its own colour in each thread's tracks; host_only is no kernel
    assert text.count('<tr class="kernel">') == 1


def test_html_write_failure_leaves_nothing(tmp_path):
    files = threaded(tmp_path)
    target = tmp_path / 'missing' / 'r.html'
    r = subprocess.run([SPEEDUP, '--html', str(target), *files], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.count('\n') == 1 and str(target) in r.stderr
    assert not (tmp_path / 'missing').exists()
    # an existing page is replaced whole, and no temporary file stays beside it
    page = tmp_path / 'r.html'
    page.write_text('old')
    html(files, page)
    assert page.read_text().startswith('<!DOCTYPE html>')
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith('r.html')) == ['r.html']


def test_link_by_name(resid):
    """--link NAME is models/link-NAME.csv, read as a model file."""
    by_name = as_json(resid[:2] + ['--link', 'pcie4-x16'])
    assert by_name['S_G'] == as_json(resid)['S_G']
    assert by_name['bounds']['exact']['h2d_bytes'] == as_json(resid)['bounds']['exact']['h2d_bytes']
    r = subprocess.run([SPEEDUP, '--report', *resid[:2], '--link', 'no-such-link'],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count('\n') == 1 and 'no-such-link' in r.stderr


def test_text_demo_counts(demo):
    """matmul_mix 200 120: 200 small products and 3 large ones, all dgemm_ calls replaced."""
    lines = report(demo).splitlines()
    assert lines[1].startswith('no transfers counted')
    assert lines[2].startswith('203 calls of dgemm_ ')
    row = next(line for line in lines if line.split()[:1] == ['dgemm_'])
    assert row.split()[1] == '203'


def test_html_beside_json(demo, tmp_path):
    """--html writes the page besides the output asked for; --report excludes --json."""
    page = tmp_path / 'r.html'
    out = json.loads(speedup('--json', '--html', str(page), *demo))
    assert float(re.search(r'data-sg="([^"]*)"', page.read_text()).group(1)) == out['S_G']
    r = subprocess.run([SPEEDUP, '--report', '--json', *demo], capture_output=True, text=True)
    assert r.returncode == 2 and 'exclude each other' in r.stderr


def order(dom):
    return re.findall(r'<tr class="kernel"><td>(\w+)</td>', dom)


@needs_chromium
def test_kernel_table_sorts(tmp_path):
    """A click on a column's head sorts the rows by its numbers, a second click reverses."""
    rows = [('a', 900000), ('b', 1000), ('b', 1000), ('c', 50000), ('c', 50000), ('c', 50000)]
    lines = ['# pid=100', 'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args']
    start = 1000
    for seq, (func, t) in enumerate(rows):
        lines.append(f'{seq},100,{func},{start},{t},,,{t},0,')
        start += t + 1000
    lines.append('# total_ns=2000000')
    (tmp_path / 't.csv').write_text('\n'.join(lines) + '\n')
    (tmp_path / 'm.csv').write_text('func,work,t_ns\n*,0,0\n*,1000000,1000\n')
    page = tmp_path / 'r.html'
    text = html([str(tmp_path / 't.csv'), str(tmp_path / 'm.csv')], page)
    assert order(text) == ['a', 'c', 'b']          # by measured time
    click = "<script>var h=document.querySelectorAll('#kernels th')[1];h.click();%s</script>"
    (tmp_path / 'once.html').write_text(text.replace('</body>', click % '' + '</body>'))
    (tmp_path / 'twice.html').write_text(text.replace('</body>', click % 'h.click();' + '</body>'))
    assert order(chromium(tmp_path / 'once.html', '--dump-dom')) == ['a', 'b', 'c']   # calls up
    assert order(chromium(tmp_path / 'twice.html', '--dump-dom')) == ['c', 'b', 'a']  # and down


def test_two_processes(tmp_path):
    """Two traces: a row each in the processes' table; the one without thread lines gets
    no timeline, and a line that says why."""
    files = threaded(tmp_path)
    plain = tmp_path / 'plain.csv'
    plain.write_text('# pid=200\nseq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args\n'
                     '0,200,k,1000,5000,,,5000,0,\n# total_ns=20000\n')
    text = html([files[0], str(plain), files[1]], tmp_path / 'r.html')
    table = text.split('id="processes"')[1].split('</table>')[0]
    assert table.count('<tr>') == 3
    assert text.count('<svg class="tl"') == 1 and text.count('No timeline: ') == 1
    lines = report([files[0], str(plain), files[1]]).splitlines()
    assert lines[0].startswith('S_G = ') and ': the run would take ' in lines[0]
    assert any(line.startswith('  ' + str(plain)) for line in lines)


def test_short_burst_enlarged(tmp_path):
    """Calls in 1 % of the run: a second drawing shows their span; calls over most of the
    run: none."""
    lines = ['# pid=100', 'seq,tid,func,t_start_ns,t_ns,in_bytes,out_bytes,work,depth,args',
             '0,100,k,500000,4000,,,4000,0,', '1,100,k,506000,4000,,,4000,0,',
             '# threads=recorded', '# total_ns=1000000']
    (tmp_path / 't.csv').write_text('\n'.join(lines) + '\n')
    (tmp_path / 'm.csv').write_text('func,work,t_ns\nk,0,0\nk,40000,10000\n')
    text = html([str(tmp_path / 't.csv'), str(tmp_path / 'm.csv')], tmp_path / 'r.html')
    assert text.count('<g class="lane" ') == text.count('<g class="lane-zoom" ') == 1
    assert 'The replaced calls, enlarged: ' in text
    text = html(threaded(tmp_path), tmp_path / 'r.html')
    assert 'lane-zoom' not in text
