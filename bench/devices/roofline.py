#!/usr/bin/python3
"""A roofline plot of a device (SVG), with the calls of traces on it as points.

    bench/devices/roofline.py NAME [LABEL=]TRACE... [-o OUT.svg]

NAME is a device of models/devices/ (or a path to a description file, doc/devices.md).
Each TRACE is predicted with `bin/dyl-speedup TRACE --device NAME --json` (a .json file is
read as that output instead).  x is arithmetic intensity (flops per byte: work over
in_bytes + out_bytes), y the rate the device is predicted to reach (work over the
predicted time), both logarithmic.  Drawn:

- the roofs: the memory bandwidth line and the FP64 and FP32 peaks, from the file;
- dashed, the same scaled by the file's best efficiencies (its largest eff and mem_eff);
- the predicted rate of a typical dgemm_, dgemv_ and daxpy_ as the size grows (the rows
  of `bin/dyl-model --device NAME`, whose shapes doc/devices.md gives);
- per trace and kernel, each call shape met (small dots) and the kernel's replaced
  calls together (a large dot: their work over their bytes, and over their predicted time).

Standard library only; the SVG is written by hand.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
from xml.sax.saxutils import escape

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#e377c2']
# the typical calls dyl-model --device writes (doc/devices.md): bytes from work, e = 8
CURVES = {
    'dgemm_': ('dgemm_ n x n', '#8c564b', lambda w: 3 * 8 * (w / 2) ** (2 / 3)),
    'dgemv_': ('dgemv_ n x n', '#17becf', lambda w: 8 * (w / 2 + 2 * math.sqrt(w / 2))),
    'daxpy_': ('daxpy_ n', '#bcbd22', lambda w: 8 * 3 * w / 2),
}
W, H = 1070, 620
LEFT, TOP, PW, PH = 110, 60, 580, 490     # the plot area


def device_path(name):
    if '/' in name:
        return name
    return os.path.join(ROOT, 'models', 'devices', name + '.csv')


def read_device(name):
    """The description file's figures: name, peaks by (precision, unit), bandwidth, and
    the largest eff by (precision, unit) and mem_eff."""
    dev = {'name': name, 'peak': {}, 'eff': {}, 'mem_eff': 1.0, 'bandwidth': None}
    mem_eff = []
    with open(device_path(name), newline='') as f:
        rows = csv.reader(line for line in f if not line.startswith('#'))
        next(rows)
        for row in rows:
            item, prec, unit, _size, value, source = (row + [''] * 6)[:6]
            if item == 'name':
                dev['name'] = value
                dev['measured'] = source.startswith('[M]')
            elif item == 'peak':
                dev['peak'][prec, unit] = float(value)
            elif item == 'bandwidth':
                dev['bandwidth'] = float(value)
            elif item == 'eff':
                key = (prec, unit)
                dev['eff'][key] = max(dev['eff'].get(key, 0.0), float(value))
            elif item == 'mem_eff':
                mem_eff.append(float(value))
    if mem_eff:
        dev['mem_eff'] = max(mem_eff)
    return dev


def predict(name, item):
    """(label, kernels) of one [LABEL=]TRACE or JSON file."""
    label, _, path = item.rpartition('=')
    label = label or os.path.basename(path)
    if path.endswith('.json'):
        with open(path) as f:
            out = json.load(f)
    else:
        r = subprocess.run([os.path.join(ROOT, 'bin', 'dyl-speedup'), path, '--device', name,
                            '--json'], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f'roofline.py: dyl-speedup {path}: {r.stderr.strip()}')
        out = json.loads(r.stdout)
    return label, [k for k in out['kernels'] if 'shapes' in k]


def model_curves(name):
    """{func: [(intensity, rate)]} along the typical calls of dyl-model --device."""
    args = [os.path.join(ROOT, 'bin', 'dyl-model'), '--device', name]
    for func in CURVES:
        args += ['-f', func]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f'roofline.py: dyl-model: {r.stderr.strip()}')
    curves = {func: [] for func in CURVES}
    for row in csv.reader(line for line in r.stdout.splitlines() if not line.startswith('#')):
        if row[0] in curves:
            w, t = float(row[1]), float(row[2])
            curves[row[0]].append((w / CURVES[row[0]][2](w), w / (t * 1e-9)))
    return curves


def points(kernels):
    """The call shapes' (intensity, rate) and the kernels' (func, intensity, rate)."""
    shapes, sums = [], []
    for k in kernels:
        for w, b, f in k['shapes']:
            if w > 0 and b > 0 and f > 0:
                shapes.append((w / b, w / (f * 1e-9)))
        if k['work'] > 0 and k['bytes'] > 0 and k['predicted_ns'] > 0:
            sums.append((k['func'], k['work'] / k['bytes'],
                         k['work'] / (k['predicted_ns'] * 1e-9)))
    return shapes, sums


class Axes:
    """Decades of x and y, mapped onto the plot area."""

    def __init__(self, xs, ys):
        self.x0, self.x1 = self.decades(xs)
        self.y0, self.y1 = self.decades(ys)

    @staticmethod
    def decades(values):
        lo = math.floor(math.log10(min(values)))
        hi = math.ceil(math.log10(max(values)))
        return lo, max(hi, lo + 1)

    def x(self, v):
        return LEFT + PW * (math.log10(v) - self.x0) / (self.x1 - self.x0)

    def y(self, v):
        return TOP + PH * (self.y1 - math.log10(v)) / (self.y1 - self.y0)


def si(v, unit):
    for scale, prefix in ((1e15, 'P'), (1e12, 'T'), (1e9, 'G'), (1e6, 'M'), (1e3, 'k')):
        if v >= scale:
            return f'{v / scale:.3g} {prefix}{unit}'
    return f'{v:.3g} {unit}'


def text(x, y, s, size=13, anchor='start', extra=''):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"'
            f'{extra}>{escape(s)}</text>')


def frame(ax):
    """The plot area, grid, ticks and axis labels."""
    out = [f'<rect x="{LEFT}" y="{TOP}" width="{PW}" height="{PH}" fill="white" '
           'stroke="#000"/>']
    for d in range(ax.x0, ax.x1 + 1):
        x = ax.x(10.0 ** d)
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + PH}" '
                   'stroke="#ddd"/>')
        out.append(text(x, TOP + PH + 18, f'{10.0 ** d:g}', anchor='middle'))
    for d in range(ax.y0, ax.y1 + 1):
        y = ax.y(10.0 ** d)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + PW}" y2="{y:.1f}" '
                   'stroke="#ddd"/>')
        out.append(text(LEFT - 6, y + 4, si(10.0 ** d, 'flop/s'), anchor='end'))
    out.append(text(LEFT + PW / 2, TOP + PH + 42,
                    'arithmetic intensity (flop/byte: work / (in_bytes + out_bytes))',
                    size=14, anchor='middle', extra=' class="xlabel"'))
    out.append(text(20, TOP + PH / 2, 'achieved rate, predicted (flop/s)', size=14,
                    anchor='middle',
                    extra=f' class="ylabel" transform="rotate(-90 20 {TOP + PH / 2})"'))
    return out


def peak_labels(dev):
    """Distinct peak values and what has them, the largest first."""
    names = {('d', 'vector'): 'FP64 vector', ('d', 'matrix'): 'FP64 matrix',
             ('s', 'vector'): 'FP32 vector', ('s', 'matrix'): 'FP32 matrix'}
    by_value = {}
    for key, name in names.items():
        if key in dev['peak']:
            by_value.setdefault(dev['peak'][key], []).append(name)
    return sorted(by_value.items(), reverse=True)


def roofs(ax, dev):
    """The memory line and the peaks, solid, and both scaled by the best efficiency."""
    out, bw = [], dev['bandwidth']
    eff_bw = bw * dev['mem_eff']
    top = max(dev['peak'].values())
    scaled = dev['peak'].get(('d', 'matrix'), top) * dev['eff'].get(('d', 'matrix'), 1.0)
    xr = 10.0 ** ax.x1
    for b, peak, dash in ((bw, top, ''), (eff_bw, scaled, ' stroke-dasharray="6 4"')):
        xa, xb = 10.0 ** ax.x0, min(peak / b, xr)
        out.append(f'<line class="roof" x1="{ax.x(xa):.1f}" y1="{ax.y(b * xa):.1f}" '
                   f'x2="{ax.x(xb):.1f}" y2="{ax.y(b * xb):.1f}" stroke="#333" '
                   f'stroke-width="2"{dash}/>')
    for i, (value, names) in enumerate(peak_labels(dev)):
        x = ax.x(value / bw)
        out.append(f'<line class="roof" x1="{x:.1f}" y1="{ax.y(value):.1f}" '
                   f'x2="{LEFT + PW}" y2="{ax.y(value):.1f}" stroke="#333" stroke-width="2"/>')
        out.append(text(LEFT + PW - 4, ax.y(value) + (-6 if i == 0 else 16),
                        f'{", ".join(names)}: {si(value, "flop/s")}', anchor='end'))
    x = ax.x(scaled / eff_bw)
    out.append(f'<line class="roof" x1="{x:.1f}" y1="{ax.y(scaled):.1f}" x2="{LEFT + PW}" '
               f'y2="{ax.y(scaled):.1f}" stroke="#333" stroke-width="2" '
               'stroke-dasharray="6 4"/>')
    out.append(memory_label(ax, bw, top, f'memory {si(bw, "B/s")}'))
    return out


def memory_label(ax, bw, top, s):
    """S along the memory line, a little left of where it meets the highest peak."""
    xm = top / bw / 30
    x1, y1, x2, y2 = ax.x(xm), ax.y(bw * xm), ax.x(xm * 10), ax.y(bw * xm * 10)
    angle = math.degrees(math.atan2(y2 - y1, x2 - x1))
    return text(x1, y1 - 6, s, anchor='middle',
                extra=f' transform="rotate({angle:.1f} {x1:.1f} {y1:.1f})"')


def curve_lines(ax, curves):
    out = []
    for func, pts in curves.items():
        pts = [(x, y) for x, y in pts if x > 0 and y > 0]
        if pts:
            path = ' '.join(f'{ax.x(x):.1f},{ax.y(y):.1f}' for x, y in pts)
            out.append(f'<polyline class="curve" points="{path}" fill="none" '
                       f'stroke="{CURVES[func][1]}" stroke-width="1.5"/>')
    return out


def marker(shape, x, y, color, attrs='', inner=''):
    """A large dot: circle, square, triangle or diamond (SHAPE 0..3) at X, Y."""
    style = f' fill="{color}" stroke="#000"{attrs}'
    if shape == 0:
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="6"{style}>{inner}</circle>'
    corners = [[(-6, -6), (6, -6), (6, 6), (-6, 6)], [(0, -8), (7, 5), (-7, 5)],
               [(0, -8), (8, 0), (0, 8), (-8, 0)]][(shape - 1) % 3]
    pts = ' '.join(f'{x + dx:.1f},{y + dy:.1f}' for dx, dy in corners)
    return f'<polygon points="{pts}"{style}>{inner}</polygon>'


def functions(traces):
    """The kernels' names, in the order met: each gets a marker."""
    names = []
    for _, _, sums in traces:
        names += [func for func, _, _ in sums if func not in names]
    return names


def point_marks(ax, traces):
    out, names = [], functions(traces)
    for (label, shapes, sums), color in zip(traces, COLORS * 4):
        for x, y in shapes:
            out.append(f'<circle class="call" cx="{ax.x(x):.1f}" cy="{ax.y(y):.1f}" r="2.5" '
                       f'fill="{color}" fill-opacity="0.6"/>')
        for func, x, y in sums:
            out.append(marker(names.index(func), ax.x(x), ax.y(y), color,
                              f' class="kernel" data-func="{escape(func)}"',
                              f'<title>{escape(label)}: {escape(func)}</title>'))
    return out


def legend(dev, traces):
    x, y, out = LEFT + PW + 20, TOP + 10, []
    entries = [('line', '#333', '', 'roofs: peak, memory bandwidth'),
               ('line', '#333', ' stroke-dasharray="6 4"',
                f'x best eff (memory {dev["mem_eff"]:g}, FP64 matrix '
                f'{dev["eff"].get(("d", "matrix"), 1.0):g})')]
    entries += [('line', color, '', f'{name}, predicted') for name, color, _ in
                CURVES.values()]
    entries += [('dot', color, 0, label) for (label, _, _), color in zip(traces, COLORS * 4)]
    entries += [('dot', '#fff', i, func) for i, func in enumerate(functions(traces))]
    for kind, color, how, label in entries:
        if kind == 'line':
            out.append(f'<line x1="{x}" y1="{y}" x2="{x + 28}" y2="{y}" stroke="{color}" '
                       f'stroke-width="2"{how}/>')
        else:
            out.append(marker(how, x + 14, y, color))
        out.append(text(x + 36, y + 4, label, size=12))
        y += 22
    notes = ['colour: the trace; shape: the kernel', 'large: a kernel\'s replaced calls',
             '  (work / bytes, work / predicted time)', 'small dots: its call shapes']
    for note in notes:
        out.append(text(x, y + 4, note, size=11, extra=' fill="#555"'))
        y += 16
    return out


def svg(name, dev, traces, curves):
    xs = [10.0 ** -2, 10.0 ** 3] + [x for _, s, k in traces for x, _ in s]
    ys = [max(dev['peak'].values()) * 1.5, 1e9] + [y for _, s, k in traces for _, y in s]
    for pts in curves.values():
        xs += [x for x, _ in pts]
        ys += [y for _, y in pts]
    ax = Axes(xs, ys)
    how = 'as measured here' if dev.get('measured') else 'from its published figures'
    title = f'Roofline of {dev["name"]} ({name}), {how}'
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
             f'viewBox="0 0 {W} {H}" font-family="DejaVu Sans, Arial, sans-serif">',
             f'<rect width="{W}" height="{H}" fill="white"/>',
             text(LEFT, 28, title, size=16, extra=' class="title" font-weight="bold"'),
             text(LEFT, 46, 'rates predicted by dyl-speedup --device (doc/devices.md)',
                  size=12, extra=' fill="#555"')]
    parts += frame(ax)
    parts += [f'<svg x="{LEFT}" y="{TOP}" width="{PW}" height="{PH}" '
              f'viewBox="{LEFT} {TOP} {PW} {PH}" overflow="hidden">']
    parts += roofs(ax, dev) + curve_lines(ax, curves) + point_marks(ax, traces)
    parts += ['</svg>'] + legend(dev, traces) + ['</svg>']
    return '\n'.join(parts) + '\n'


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('device', help='NAME of models/devices/NAME.csv, or a path')
    ap.add_argument('traces', nargs='*', help='[LABEL=]TRACE, or [LABEL=]OUT.json')
    ap.add_argument('-o', '--out', help='the SVG (default: stdout)')
    a = ap.parse_args(argv)
    dev = read_device(a.device)
    traces = []
    for item in a.traces:
        label, kernels = predict(a.device, item)
        traces.append((label, *points(kernels)))
    out = svg(a.device, dev, traces, model_curves(a.device))
    if a.out:
        with open(a.out, 'w') as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == '__main__':
    main()
