"""std.regions with lengths=auto: a pointer followed by its length (in/inl) is charged
that length, not the rest of its region, on real code: a big block handed to a library
piece by piece (tests/apps/pieces_app.c), pointer arrays followed as far as their count,
the same with lengths=off (to the region's end, as before), and OpenSSL's EVP stream
pieces through the real libcrypto, whose input is then exact."""
import os

import pytest

from dyltest import TEST_APPS, Trace, build_c, pieces_build, run_both, wrap


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp('lengths')
    lib, h, app = pieces_build(d)
    return d, {lengths: wrap(d, '--lib', lib, '--header', h, '-g', f'std.regions:lengths={lengths}',
                             name=f'{lengths}.so') for lengths in ('auto', 'off')}, app


def charged(built, lengths, args):
    d, wrappers, app = built
    _, tp = run_both([app, *args], wrappers[lengths], d, trace=f'{"-".join(args)}-{lengths}.csv')
    return [(x['func'], int(x['in_bytes']), int(x['out_bytes'])) for x in Trace(tp).by_seq()]


def test_pieces_charged_their_length(built):
    size, n = 1000, 4
    rows = charged(built, 'auto', ['stream', str(size), str(n)])
    # consume(in, inl): inl bytes and inl itself in, its long out; produce(out, outlen,
    # seed): outlen bytes out, the two scalars in
    assert rows == [('consume', size + 4, 8)] * 3 * n + [('produce', 12, size)] * n
    rows = charged(built, 'off', ['stream', str(size), str(n)])
    to_end = [(n - i) * size for i in range(n)]
    assert rows == ([('consume', e + 4, 8) for e in to_end] * 3
                    + [('produce', 12, e) for e in to_end])


def test_rows_followed_as_far_as_their_count(built):
    # 3 of 8 rows of 100 bytes (a block each) in an array of 8 pointers
    assert charged(built, 'auto', ['rows', '100', '8', '3']) == [
        ('sum_rows', 3 * 8 + 3 * 100 + 8, 8), ('fill_rows', 12, 3 * 8 + 3 * 100)]
    assert charged(built, 'off', ['rows', '100', '8', '3']) == [
        ('sum_rows', 8 * 8 + 8 * 100 + 8, 8), ('fill_rows', 12, 8 * 8 + 8 * 100)]


@pytest.mark.skipif(not os.path.exists('/usr/include/openssl/evp.h'), reason='needs libssl-dev')
def test_openssl_evp_stream_pieces_input_exact(tmp_path):
    """EVP_EncryptUpdate and EVP_DecryptUpdate given a piece of one block at a time: the
    input is the piece and inl, to the byte (the context, not const, is output)."""
    size, n = 50000, 4
    app = build_c(tmp_path, os.path.join(TEST_APPS, 'evp_pieces.c'), 'evp_pieces', '-lcrypto')
    w = wrap(tmp_path, '--lib', 'libcrypto.so.3', '--app', app, '-f', 'EVP_EncryptUpdate',
             '-f', 'EVP_DecryptUpdate', '-g', 'std.regions')
    r, tp = run_both([app, str(size), str(n)], w, tmp_path)
    pieces = [int(line.split()[1]) for line in r.stdout.decode().splitlines() if line.startswith('update')]
    rows = Trace(tp).by_seq()
    assert len(pieces) == len(rows) == 2 * n + 1      # the last decrypted piece: the padding
    assert [int(x['in_bytes']) for x in rows] == [inl + 4 for inl in pieces]
