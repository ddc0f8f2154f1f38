"""std.diff with lengths=auto: a pointer followed by its length (in/inl) is a buffer of
that length, not the rest of its region, on real code: a big block handed to a library
piece by piece (tests/apps/pieces_app.c: each piece counts its own bytes, watched and
compared alike; rows followed only as far as their count; a piece of memory no call
saw before counts only what the program wrote there), the same with lengths=off (the
region's end, as before), and OpenSSL's EVP stream pieces through the real libcrypto."""
import os

import pytest

from dyltest import TEST_APPS, Trace, build_c, dyliberator, pieces_build, run_both, wrap

MODES = {'watch': {}, 'compare': {'DYL_DIFF_WATCH': '0'}}
RESULT = {'consume': 8, 'produce': 0, 'sum_rows': 8, 'fill_rows': 0}   # sizeof the return


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('lengths')
    lib, h, app = pieces_build(d)
    auto = wrap(d, '--lib', lib, '--header', h, '-g', 'std.diff', name='auto.so')
    off = wrap(d, '--lib', lib, '--header', h, '-g', 'std.diff:lengths=off', name='off.so')
    return d, lib, h, app, {'auto': auto, 'off': off}


def run(built, args, lengths='auto', mode='watch'):
    """(the app's own "IN OUT" lines, the trace's (in, out) without the return value)"""
    d, _, _, app, wrappers = built
    trace = f'{"-".join(args)}-{lengths}-{mode}.csv'
    r, tp = run_both([app, *args], wrappers[lengths], d, env=MODES[mode], trace=trace)
    t = Trace(tp)
    assert t.meta['diff'].startswith('watched pages' if mode == 'watch' else 'whole buffers'), t.meta
    got = [(int(x['in_bytes']), int(x['out_bytes']) - RESULT[x['func']]) for x in t.by_seq()]
    assert b'other memory' not in r.stdout, 'malloc gave the freed memory back'
    want = [tuple(int(v) for v in line.split()) for line in r.stdout.decode().splitlines()]
    return want, got


# 1000-byte pieces are compared whole; 160 KiB ones have 40 whole pages: watched
@pytest.mark.parametrize('size', [1000, 160 * 1024])
@pytest.mark.parametrize('mode', MODES)
def test_each_piece_counts_its_own_bytes(built, mode, size):
    want, got = run(built, ['stream', str(size), '4'], mode=mode)
    assert len(got) == 16
    assert got == want


@pytest.mark.parametrize('mode', MODES)
def test_rows_followed_as_far_as_their_count(built, mode):
    # 3 of 8 rows of 100 bytes: sum_rows(rows, n=3) reads 3 pointers and 3 rows, and
    # fill_rows(rows, num_rows=3) writes 3 rows; the 5 others (new too) are nobody's
    want, got = run(built, ['rows', '100', '8', '3'], mode=mode)
    assert got == want == [(3 * 8 + 3 * 100 + 8, 0), (12, 300)]


def test_a_piece_of_memory_no_call_saw(built):
    """A block no call saw (640 KiB, its pages protected when it was freed) comes back
    from malloc: the program writes piece 0, then a byte of piece 2 (that page counts
    what the old block left on it: nothing tells it from new data), then a byte on
    another page of piece 2: the 8 bytes around it count, not the rest of that page.
    Piece 2 was new to std.diff at its first look, so its pages not written were taken
    as they were (only watched pages tell)."""
    want, got = run(built, ['unseen', str(160 * 1024), '4'], mode='watch')
    assert want == [(160 * 1024 + 4, 0), (-1, 0), (8 + 4, 0)]
    assert got[0] == want[0] and got[2] == want[2]
    assert 8 + 4 <= got[1][0] <= 3 * 4096 + 4, got


@pytest.mark.parametrize('mode', MODES)
def test_lengths_off_charges_to_the_regions_end(built, mode):
    size, n = 1000, 4
    _, got = run(built, ['stream', str(size), str(n)], lengths='off', mode=mode)
    # the first piece counts the whole block, the later ones nothing of it (the rest of
    # the block was taken into the snapshot); the changed byte of piece 1 goes to the
    # look from piece 0; an output piece is still what the call wrote
    assert got[:4] == [(n * size + 4, 0)] + [(4, 0)] * (n - 1)
    assert got[4:8] == [(4, 0)] * n
    assert got[8:12] == [(8 + 4, 0)] + [(4, 0)] * (n - 1)
    assert got[12:] == [(12, size)] * n
    _, got = run(built, ['rows', '100', '8', '3'], lengths='off', mode=mode)
    assert got == [(8 * 8 + 8 * 100 + 8, 0), (12, 300)]     # every row followed


def test_list_names_the_pairs(built):
    d, lib, h, _, _ = built
    def pairs(gen):
        out = dyliberator('--lib', lib, '--header', h, '-g', gen, '--list', cwd=d).stdout
        return {line.split()[1]: line.partition('lengths: ')[2] for line in out.splitlines()
                if line.startswith('wrap ')}
    assert pairs('std.diff') == {'consume': 'in/inl', 'produce': 'out/outlen',
                                 'sum_rows': 'rows/n (rows)', 'fill_rows': 'rows/num_rows (rows)',
                                 'peek': '', 'hand_out': ''}
    assert set(pairs('std.diff:lengths=off').values()) == {''}
    # and the wrapper's source says it above each wrapper
    text = open(os.path.join(d, 'auto.d', 'wrap.c')).read()
    assert '/* lengths: in/inl */' in text
    assert 'DYL_RA_CONST | dyl_diff_bounded, DYL_RA_BYTES(inl, sizeof(*in))' in text
    assert 'dyl_diff_bounded = DYL_RA_BOUNDED;' in text   # lengths=: a value in the main unit
    assert 'dyl_diff_bounded = 0;' in open(os.path.join(d, 'off.d', 'wrap.c')).read()


@pytest.mark.skipif(not os.path.exists('/usr/include/openssl/evp.h'), reason='needs libssl-dev')
@pytest.mark.parametrize('mode', MODES)
def test_openssl_evp_stream_pieces(tmp_path, mode):
    """EVP_EncryptUpdate and EVP_DecryptUpdate given a 50,000-byte piece of one block at a
    time (in, inl): each counts its piece as input (plus inl, and the few bytes the
    context and the caller's frame changed), not the rest of the block, with lengths=auto;
    with lengths=off the first piece counts the whole block, the later ones nothing."""
    size, n = 50000, 4
    app = build_c(tmp_path, os.path.join(TEST_APPS, 'evp_pieces.c'), 'evp_pieces', '-lcrypto')
    funcs = ['-f', 'EVP_EncryptUpdate', '-f', 'EVP_DecryptUpdate', '-f', 'EVP_*Final_ex']
    got = {}
    for lengths in ('auto', 'off'):
        w = wrap(tmp_path, '--lib', 'libcrypto.so.3', '--app', app, *funcs,
                 '-g', f'std.diff:lengths={lengths}', name=f'{lengths}.so')
        r, tp = run_both([app, str(size), str(n)], w, tmp_path, env=MODES[mode], trace=f'{lengths}.csv')
        lines = r.stdout.decode().split('\n')
        rows = Trace(tp).by_seq()
        assert len(rows) == 2 * n + 3 and len(lines) == len(rows) + 1
        got[lengths] = [(line.split()[-1], int(x['in_bytes'])) for line, x in zip(lines, rows)
                        if line.startswith('update')]
    for inl, in_bytes in got['auto']:
        assert int(inl) + 4 <= in_bytes <= int(inl) + 4 + 512, got['auto']
    first_encrypt, first_decrypt = got['off'][0][1], got['off'][n][1]
    assert first_encrypt >= n * size and first_decrypt >= n * size, got['off']
    assert all(b <= 4 + 512 for _, b in got['off'][1:n]), got['off']
