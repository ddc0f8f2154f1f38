"""Fuzzing in make test: each libFuzzer target of tests/fuzz/ (the spool decoder, the
trace and the model CSV readers, TRACE.flow through dyl-speedup's and dyl-flow's readers,
link models in the residency simulation; under ASan and UBSan) runs its checked-in corpus and
then a few seconds of new inputs; the --defs parser's mutation fuzzer (Python) runs a
few seconds too.  `make fuzz` runs them longer (FUZZ_SECONDS).  The corpus holds the
damaged spools found before (tests/fuzz/corpus/spool/args-len-*): a decoder that trusts
a record's sizes again fails here at once, not by chance."""
import glob
import os
import random
import shutil
import subprocess
import sys

import pytest

import dyltest

ROOT = dyltest.ROOT
FUZZ = os.path.join(ROOT, 'tests', 'fuzz')
SECONDS = 5
TARGETS = ['spool', 'trace', 'model', 'flow', 'link']


@pytest.fixture(scope='module')
def built():
    if not shutil.which('clang-14'):
        pytest.skip('no clang-14 (make deps installs clang-14 and libclang-rt-14-dev)')
    r = subprocess.run(['make', '-s', '-C', ROOT, 'fuzz-build'], capture_output=True, text=True)
    if r.returncode and 'libclang_rt.fuzzer' in r.stderr:
        pytest.skip('no libFuzzer runtime (make deps installs libclang-rt-14-dev)')
    assert r.returncode == 0, r.stderr[-3000:]
    return os.path.join(ROOT, 'build', 'fuzz')


def stat(out, name):
    for line in out.splitlines():
        if line.startswith(f'stat::{name}:'):
            return int(line.split(':')[-1])
    return None


@pytest.mark.parametrize('target', TARGETS)
def test_fuzz_target(built, target, tmp_path):
    """The corpus, then SECONDS of mutations: no crash, leak, sanitizer report, timeout
    or out-of-memory (libFuzzer exits non-zero and writes the input)."""
    corpus = os.path.join(FUZZ, 'corpus', target)
    assert glob.glob(os.path.join(corpus, '*')), 'a corpus is checked in'
    work = tmp_path / 'corpus'
    work.mkdir()
    r = subprocess.run([os.path.join(built, f'fuzz_{target}'), f'-max_total_time={SECONDS}',
                        '-print_final_stats=1', '-timeout=10', '-rss_limit_mb=2048',
                        f'-artifact_prefix={tmp_path}/', str(work), corpus],
                       capture_output=True, text=True, timeout=SECONDS + 120)
    found = [p for p in os.listdir(str(tmp_path)) if p != 'corpus']
    assert r.returncode == 0 and not found, r.stderr[-6000:]
    assert (stat(r.stderr, 'number_of_executed_units') or 0) > len(os.listdir(corpus)), r.stderr[-2000:]


def test_fuzz_defs_parser(tmp_path):
    """Byte mutations of the examples' --defs files: defs.load() succeeds or raises
    DefsProblem naming the file, nothing else."""
    sys.path.insert(0, FUZZ)
    try:
        import fuzz_defs
    finally:
        sys.path.remove(FUZZ)
    seed = random.randrange(2 ** 32)
    n, found = fuzz_defs.fuzz(SECONDS, seed, out=str(tmp_path))
    assert not found, f'seed {seed} (fuzz_defs.py {SECONDS} --seed {seed}): ' + '; '.join(found)
    assert n > 100


def test_damaged_spools_in_the_corpus():
    """The corpus's damaged spools are what they say: one record whose args_len is 10^8
    or 5000, which dyl-trace reports (file, byte offset) and reads up to."""
    for name in ('args-len-huge', 'args-len-5000'):
        path = os.path.join(FUZZ, 'corpus', 'spool', name + '.spool')
        r = subprocess.run([os.path.join(ROOT, 'bin', 'dyl-trace'), path], capture_output=True,
                           text=True, errors='replace', timeout=60)
        assert r.returncode == 0, r
        said = [ln for ln in r.stderr.splitlines() if 'damaged at byte 2568 ' in ln]
        assert len(said) == 1 and path in said[0], r.stderr
