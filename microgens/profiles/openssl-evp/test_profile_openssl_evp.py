"""The openssl-evp profile (microgens/profiles/openssl-evp): with no --defs and no -f, a
wrapper of libcrypto.so.3 wraps the EVP data calls and gives them their exact bytes and
work.  evp_encrypt (examples/apps/evp_encrypt.c) encrypts STREAMS streams of N buffers
of SIZE bytes with AES-256-CBC, hashes the ciphertext and decrypts it; openssl dgst
hashes a file of known size."""
import os
import shutil

import pytest

from dyltest import EXAMPLES, run_both
from microgens.profiles.profiletest import built as build, col, needs, rows_of

N, SIZE, STREAMS = 10, 4096, 2
CIPHERTEXT = N * SIZE + 16    # CBC with PKCS#7 padding: a whole block more

pytestmark = needs('/usr/include/openssl/evp.h', 'libssl-dev')


built = build('evp_encrypt', os.path.join(EXAMPLES, 'apps', 'evp_encrypt.c'),
              ['-lcrypto'], ['libcrypto.so.3'])


def test_cipher_and_digest_bytes(built):
    d, app, w = built
    _, tp = run_both([app, str(N), str(SIZE), str(STREAMS)], w, d, trace='evp.csv')
    enc = rows_of(tp, 'EVP_EncryptUpdate')
    assert len(enc) == N * STREAMS and {(r[0], r[2]) for r in enc} == {(SIZE, SIZE)}
    fin = rows_of(tp, 'EVP_EncryptFinal_ex')
    assert col(enc, 1) + col(fin, 1) == STREAMS * CIPHERTEXT
    assert {(r[0], r[2]) for r in fin} == {(0, 0)}
    dig = rows_of(tp, 'EVP_DigestUpdate')
    # EVP_DigestUpdate of N bytes: in_bytes = N = work
    assert len(dig) == (N + 1) * STREAMS
    assert col(dig, 0) == col(dig, 2) == STREAMS * CIPHERTEXT and col(dig, 1) == 0
    dec = rows_of(tp, 'EVP_DecryptUpdate') + rows_of(tp, 'EVP_DecryptFinal_ex')
    assert col(dec, 0) == STREAMS * CIPHERTEXT and col(dec, 1) == STREAMS * N * SIZE
    assert rows_of(tp, 'EVP_DigestFinal_ex') == [(0, 32, 0)]


@pytest.mark.skipif(not shutil.which('openssl'), reason='needs openssl')
def test_openssl_dgst_hashes_the_whole_file(built):
    d, _, w = built
    (d / 'big.file').write_bytes(bytes(i % 251 for i in range(1000000)))
    run_both(['openssl', 'dgst', '-sha256', 'big.file'], w, d, trace='dgst.csv')
    dig = rows_of(d / 'dgst.csv', 'EVP_DigestUpdate')
    assert col(dig, 0) == col(dig, 2) == 1000000
    assert rows_of(d / 'dgst.csv', 'EVP_DigestFinal_ex') == [(0, 32, 0)]
