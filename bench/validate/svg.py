"""Plain SVG charts for the validation and accuracy harnesses (no plotting library needed).

loglog(): work size against time, markers and lines, both axes logarithmic.
speedups(): predicted against measured speedup per scenario, with their ranges.
scatter(): expected against estimated bytes per call, log-log, with the identity line
(bench/accuracy, the paper's Figs. 5-7)."""
import math
from xml.sax.saxutils import escape

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"]
W, H, L, R, T, B = 640, 420, 70, 190, 40, 50


def _ticks(lo, hi):
    return [10.0 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
            if lo <= 10.0 ** e <= hi]


def _label(v, unit):
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1, "")):
        if v >= scale:
            return "%g%s%s" % (v / scale, suffix, unit)
    return "%g%s" % (v, unit)


def _time_label(ns):
    for scale, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "us"), (1, "ns")):
        if ns >= scale:
            return "%g %s" % (ns / scale, unit)
    return "%g ns" % ns


def _head(title):
    return ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
            'font-size="11">' % (W, H), '<rect width="100%" height="100%" fill="white"/>',
            '<text x="%d" y="20" font-size="13" font-weight="bold">%s</text>' % (L, escape(title))]


def loglog(path, title, xlabel, series):
    """series: dicts with label, points [(x, y)], and style 'line' or 'dots'."""
    pts = [(x, y) for s in series for x, y in s["points"] if x > 0 and y > 0]
    if not pts:
        return
    x0, x1 = min(p[0] for p in pts) / 1.5, max(p[0] for p in pts) * 1.5
    y0, y1 = min(p[1] for p in pts) / 1.5, max(p[1] for p in pts) * 1.5

    def px(x):
        return L + (math.log10(x) - math.log10(x0)) / (math.log10(x1) - math.log10(x0)) * (W - L - R)

    def py(y):
        return H - B - (math.log10(y) - math.log10(y0)) / (math.log10(y1) - math.log10(y0)) * (H - T - B)

    out = _head(title)
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>' % (L, T, W - L - R, H - T - B))
    for t in _ticks(x0, x1):
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>' % (px(t), T, px(t), H - B))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (px(t), H - B + 14, _label(t, "")))
    for t in _ticks(y0, y1):
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>' % (L, py(t), W - R, py(t)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (L - 4, py(t) + 4, _time_label(t)))
    out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>' % ((L + W - R) // 2, H - 12, escape(xlabel)))
    out.append('<text x="14" y="%d" transform="rotate(-90 14 %d)" text-anchor="middle">time per call</text>'
               % ((T + H - B) // 2, (T + H - B) // 2))
    for i, s in enumerate(series):
        c = COLORS[i % len(COLORS)]
        p = sorted((x, y) for x, y in s["points"] if x > 0 and y > 0)
        if s.get("style") == "line":
            out.append('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>'
                       % (c, " ".join("%.1f,%.1f" % (px(x), py(y)) for x, y in p)))
        else:
            for x, y in p:
                out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="none" stroke="%s"/>' % (px(x), py(y), c))
        ly = T + 12 + 16 * i
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="%s"/>'
                   % (W - R + 8, ly - 4, W - R + 24, ly - 4, c, 1.5 if s.get("style") == "line" else 4))
        out.append('<text x="%d" y="%d">%s</text>' % (W - R + 28, ly, escape(s["label"])))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def speedups(path, title, rows):
    """rows: dicts with name, pred (median, lo, hi), meas (median, lo, hi)."""
    if not rows:
        return
    top = max(max(r["pred"][2], r["meas"][2]) for r in rows) * 1.1
    bw = (W - L - 40) / len(rows)

    def py(v):
        return H - B - v / top * (H - T - B)

    out = _head(title)
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>' % (L, H - B, W - 40, H - B))
    step = 10 ** math.floor(math.log10(top))
    if top / step < 4:
        step /= 2
    v = 0.0
    while v <= top:
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>' % (L, py(v), W - 40, py(v)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>' % (L - 4, py(v) + 4, v))
        v += step
    out.append('<text x="14" y="%d" transform="rotate(-90 14 %d)" text-anchor="middle">whole-program speedup S_G</text>'
               % ((T + H - B) // 2, (T + H - B) // 2))
    for i, r in enumerate(rows):
        x = L + bw * i
        for j, (key, c, lab) in enumerate((("pred", COLORS[0], "predicted"), ("meas", COLORS[1], "measured"))):
            m, lo, hi = r[key]
            bx = x + bw * (0.15 + 0.35 * j)
            out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" opacity="0.7"/>'
                       % (bx, py(m), bw * 0.33, H - B - py(m), c))
            cx = bx + bw * 0.165
            out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>' % (cx, py(lo), cx, py(hi)))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" font-size="9">%s</text>'
                   % (x + bw / 2, H - B + 12, escape(r["name"][:22])))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" font-size="9">%+.1f %%</text>'
                   % (x + bw / 2, H - B + 24, r["err"]))
    for j, (c, lab) in enumerate(((COLORS[0], "predicted (median, range)"), (COLORS[1], "measured (median, range)"))):
        out.append('<rect x="%d" y="%d" width="10" height="10" fill="%s" opacity="0.7"/>' % (W - 230 + 120 * j, 28, c))
        out.append('<text x="%d" y="%d" font-size="9">%s</text>' % (W - 216 + 120 * j, 37, lab))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def scatter(path, title, xlabel, ylabel, series, note=""):
    """series: dicts with label and points [(x, y)]: one marker per point, x and y both
    logarithmic.  Zeros (which a log axis has no place for) go on a '0' line below the
    smallest decade of their axis; the dashed line is y = x."""
    vals = [v for s in series for p in s["points"] for v in p if v >= 1]
    if not vals:
        return
    lo = 10.0 ** math.floor(math.log10(min(vals)))
    hi = 10.0 ** math.ceil(math.log10(max(vals) * 1.01))
    zero = lo / 10 ** 0.6                       # where a 0 is drawn, on both axes
    size = H - T - B                            # a square plot: the identity is the diagonal

    def pos(v):
        v = max(v, zero)
        return (math.log10(v) - math.log10(zero)) / (math.log10(hi) - math.log10(zero)) * size

    def px(x):
        return L + pos(x)

    def py(y):
        return H - B - pos(y)

    out = _head(title)
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>' % (L, T, size, size))
    ticks = _ticks(lo, hi)
    for t in ticks:
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>' % (px(t), T, px(t), H - B))
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>' % (L, py(t), L + size, py(t)))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (px(t), H - B + 14, _label(t, "")))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (L - 4, py(t) + 4, _label(t, "")))
    # the zero lines, apart from the decades by a gap
    out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ccc" stroke-dasharray="2,2"/>'
               % (px(zero), T, px(zero), H - B))
    out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ccc" stroke-dasharray="2,2"/>'
               % (L, py(zero), L + size, py(zero)))
    out.append('<text x="%.1f" y="%d" text-anchor="middle">0</text>' % (px(zero), H - B + 14))
    out.append('<text x="%d" y="%.1f" text-anchor="end">0</text>' % (L - 4, py(zero) + 4))
    out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#444" stroke-dasharray="5,4"/>'
               % (px(lo), py(lo), px(hi), py(hi)))
    out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>' % (L + size // 2, H - 12, escape(xlabel)))
    out.append('<text x="14" y="%d" transform="rotate(-90 14 %d)" text-anchor="middle">%s</text>'
               % ((T + H - B) // 2, (T + H - B) // 2, escape(ylabel)))
    def marker(x, y, i):
        c = COLORS[i % len(COLORS)]
        if i % 2:   # squares for the second series, circles for the first
            return '<rect x="%.1f" y="%.1f" width="6" height="6" fill="none" stroke="%s"/>' % (x - 3, y - 3, c)
        return '<circle cx="%.1f" cy="%.1f" r="3" fill="none" stroke="%s"/>' % (x, y, c)

    for i, s in enumerate(series):
        out.extend(marker(px(x), py(y), i) for x, y in sorted(set(s["points"])))
        ly = T + 12 + 16 * i
        out.append(marker(L + size + 24, ly - 4, i))
        out.append('<text x="%d" y="%d">%s</text>' % (L + size + 34, ly, escape(s["label"])))
    ly = T + 12 + 16 * len(series)
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#444" stroke-dasharray="5,4"/>'
               % (L + size + 16, ly - 4, L + size + 32, ly - 4))
    out.append('<text x="%d" y="%d">estimate = expected</text>' % (L + size + 34, ly))
    for j, line in enumerate(note.splitlines()):
        out.append('<text x="%d" y="%d" font-size="10">%s</text>' % (L + size + 16, ly + 24 + 14 * j, escape(line)))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
