"""real_figures.py - the three residency figures of one dyl-speedup --json, as Markdown
rows (bench/residency/real.sh).

    dyl-speedup TRACE MODELS... --json | python3 real_figures.py NAME
"""
import json
import sys


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else '?'
    j = json.load(sys.stdin)
    figs = dict(j['bounds'])
    t = j['S_G'] * j['predicted_total_ns']     # T, the tracing's own cost taken out
    print(f'{name}: T = {t / 1e6:.2f} ms, {j["calls"]} calls replaced, '
          f'host reads {j.get("host_read_records", 0)} ({j.get("assumed_read_records", 0)} assumed)')
    print('| figure | h2d bytes | d2h bytes | transfers (h2d+d2h) | link time | T\' | S_G |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
    for mode in ('exact', 'optimistic', 'pessimistic'):
        f = figs.get(mode)
        if not f:
            continue
        print(f'| {mode} | {f["h2d_bytes"]:,} | {f["d2h_bytes"]:,} | '
              f'{f["h2d_transfers"]} + {f["d2h_transfers"]} | '
              f'{(f["h2d_ns"] + f["d2h_ns"]) / 1e6:.3f} ms | '
              f'{f["predicted_total_ns"] / 1e6:.2f} ms | {f["S_G"]:.3f} |')


if __name__ == '__main__':
    main()
