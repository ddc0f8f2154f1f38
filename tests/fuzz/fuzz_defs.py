#!/usr/bin/python3
"""A mutation fuzzer of the --defs parser (generator/defs.py), which is Python: libFuzzer
does not reach it.  Byte mutations of the examples' .defs files and of the corpus
(tests/fuzz/corpus/defs/) go through defs.load(), as `dyliberator --defs FILE` reads
them.  The only way out allowed besides success is DefsProblem naming the file (the
command line turns it into one line and exit 2); any other exception is a finding.

Usage: fuzz_defs.py [SECONDS] [--seed N]   (exit 1 when something was found; the
inputs are kept in build/fuzz/defs-crash-*.defs)"""
import glob
import os
import random
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
from generator import defs  # noqa: E402

SPECIAL = b'{}:;"\'/*\\\n\t #\x00\xff\xc3'


def seeds():
    paths = sorted(glob.glob(os.path.join(ROOT, 'examples', '*.defs')) +
                   glob.glob(os.path.join(ROOT, 'tests', 'fuzz', 'corpus', 'defs', '*')))
    return [open(p, 'rb').read() for p in paths]


def mutate(data, rnd, pool):
    b = bytearray(data)
    for _ in range(rnd.randint(1, 8)):
        op = rnd.randrange(7)
        at = rnd.randrange(len(b) + 1)
        if op == 0 and b:           # a byte changed
            b[min(at, len(b) - 1)] = rnd.randrange(256)
        elif op == 1:               # a byte the parser cares about, inserted
            b[at:at] = bytes([rnd.choice(SPECIAL)])
        elif op == 2 and b:         # a run deleted
            del b[at:at + rnd.randint(1, 64)]
        elif op == 3 and b:         # a run repeated
            n = rnd.randint(1, 64)
            b[at:at] = b[at:at + n] * rnd.randint(1, 4)
        elif op == 4:               # a piece of another input spliced in
            o = rnd.choice(pool)
            s = rnd.randrange(len(o) + 1)
            b[at:at] = o[s:s + rnd.randint(1, 200)]
        elif op == 5:               # cut short
            del b[at:]
        elif op == 6 and b:         # a bit flipped (UTF-8 broken, say)
            i = min(at, len(b) - 1)
            b[i] ^= 1 << rnd.randrange(8)
    return bytes(b)


def one(path, data):
    """None when defs.load() succeeds or refuses PATH properly, else what went wrong."""
    with open(path, 'wb') as f:
        f.write(data)
    try:
        defs.load([path])
    except defs.DefsProblem as e:
        if path not in str(e) or '\n' in str(e).strip():
            return f'DefsProblem without the file name or on several lines: {e}'
    except Exception as e:  # noqa: BLE001 - what the fuzzer looks for
        # one finding per exception type and place, whatever its message
        tb = traceback.extract_tb(e.__traceback__)
        f = ([t for t in tb if t.filename.startswith(ROOT + os.sep)] or tb)[-1]
        return f'{type(e).__name__} at {os.path.relpath(f.filename, ROOT)}:{f.lineno} in {f.name}()'
    return None


def fuzz(seconds, seed=None, out=os.path.join(ROOT, 'build', 'fuzz')):
    """Runs for SECONDS; returns (executions, {finding: example bytes})."""
    rnd = random.Random(seed)
    pool = seeds()
    found, n = {}, 0
    end = time.monotonic() + seconds
    with tempfile.TemporaryDirectory(prefix='fuzz-defs-') as d:
        path = os.path.join(d, 'input.defs')
        for data in pool:           # the corpus itself first: it must all pass
            n += 1
            why = one(path, data)
            if why:
                found.setdefault(why, data)
        while time.monotonic() < end:
            data = mutate(rnd.choice(pool), rnd, pool)
            n += 1
            t = time.monotonic()
            why = one(path, data)
            if not why and time.monotonic() - t > 2:
                why = f'{time.monotonic() - t:.1f} s for {len(data)} bytes'
            if why and why not in found:
                found[why] = data
                if len(pool) < 200:
                    pool.append(data)
    if found:
        os.makedirs(out, exist_ok=True)
        for i, (why, data) in enumerate(found.items()):
            with open(os.path.join(out, f'defs-crash-{i}.defs'), 'wb') as f:
                f.write(data)
    return n, found


def main():
    args = sys.argv[1:]
    seed = None
    if '--seed' in args:
        i = args.index('--seed')
        seed = int(args[i + 1])
        del args[i:i + 2]
    seconds = float(args[0]) if args else 60
    n, found = fuzz(seconds, seed)
    print(f'fuzz_defs: {n} inputs in {seconds:g} s, {len(found)} findings')
    for why in found:
        print(f'  {why}')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
