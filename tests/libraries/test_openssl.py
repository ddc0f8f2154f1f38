"""OpenSSL's libcrypto: the whole library wrapped (5000+ functions) under the openssl
command; an EVP example app wrapped through --app with exact byte counts from
examples/openssl.defs; --list's reasons; symbol versions in the generated code."""
import hashlib
import os
import random
import re
import shutil
import subprocess
import time

import pytest

from dyltest import (DYLIBERATOR, EXAMPLES, ROOT, TIMEOUT, Trace, build_c, dyliberator, lib_path,
                     list_verdicts, readelf_dynsyms, run, run_both, wrap)

LIBCRYPTO = 'libcrypto.so.3'
LIBSSL = 'libssl.so.3'
APP_SRC = os.path.join(EXAMPLES, 'apps', 'evp_encrypt.c')
DEFS = os.path.join(EXAMPLES, 'openssl.defs')
SSL_H = '/usr/include/openssl/ssl.h'

DATA_SIZE = 3 * 1024 * 1024 + 12345      # not a multiple of any block or buffer size
PASSWORD = 'dyliberator test key'
SALT = '0011223344556677'
ITER = 1000                               # PBKDF2 iterations
KEY_IV_LEN = 32 + 16                      # AES-256-CBC key and IV, both from PBKDF2-SHA256

pytestmark = pytest.mark.skipif(
    shutil.which('openssl') is None or not os.path.exists('/usr/include/openssl/evp.h'),
    reason='needs the openssl command and libssl-dev')


def _dynsyms(soname):
    return readelf_dynsyms(lib_path(soname))



# ---------------------------------------------------------------------------------------
# fixtures: built once per module

@pytest.fixture(scope='module')
def whole(tmp_path_factory):
    """The wrapper of all of libcrypto, default micro-generators: (OUT.so, OUT.d)."""
    d = tmp_path_factory.mktemp('libcrypto_all')
    so = os.path.join(str(d), 'crypto.so')
    # OUT.d/Makefile takes CFLAGS from the environment (-O1 -g is also the default now;
    # said here so that the test keeps its time budget whatever the default).  The one command
    # that takes minutes (39 s of CPU; 107 s on 2 cores shared by 6 jobs, 300 s+ with
    # 2 more): a hang guard 4 times the others'
    env = dict(os.environ, CFLAGS='-O1 -g')
    t0 = time.monotonic()
    run([DYLIBERATOR, '-q', '--profile', 'none', '--lib', LIBCRYPTO, '-o', so], cwd=str(d), env=env, timeout=4 * TIMEOUT)
    print(f'\nwhole-libcrypto wrapper generated and built in {time.monotonic() - t0:.1f} s')
    assert os.path.exists(so)
    return so, so[:-3] + '.d'


@pytest.fixture(scope='module')
def data(tmp_path_factory):
    """A few MB of deterministic bytes in a file: (path, bytes)."""
    d = tmp_path_factory.mktemp('data')
    blob = random.Random(20240611).randbytes(DATA_SIZE)
    path = os.path.join(str(d), 'data.bin')
    with open(path, 'wb') as f:
        f.write(blob)
    return path, blob


@pytest.fixture(scope='module')
def app(tmp_path_factory):
    d = tmp_path_factory.mktemp('evp_app')
    return build_c(d, APP_SRC, 'evp_encrypt', '-Wall', '-Werror', '-lcrypto')


@pytest.fixture(scope='module')
def evp_wrapper(tmp_path_factory, app):
    d = tmp_path_factory.mktemp('evp_wrap')
    return wrap(d, '--lib', LIBCRYPTO, '--app', app, '-f', 'EVP_*', name='evp.so')


@pytest.fixture(scope='module')
def evp_defs_wrapper(tmp_path_factory, app):
    d = tmp_path_factory.mktemp('evp_defs')
    return wrap(d, '--lib', LIBCRYPTO, '--app', app, '-f', 'EVP_*', '--defs', DEFS,
                name='evp_defs.so')


@pytest.fixture(scope='module')
def flow_wrapper(tmp_path_factory):
    """libcrypto's digests under std.flow (issue 33's reproduction)"""
    d = tmp_path_factory.mktemp('flow_wrap')
    return wrap(d, '--lib', LIBCRYPTO, '-f', 'EVP_Digest*', '-g', 'std.flow', name='flow.so')


@pytest.fixture(scope='module')
def crypto_list():
    r = dyliberator('--lib', LIBCRYPTO, '--list')
    return r.stdout, list_verdicts(r.stdout)


@pytest.fixture(scope='module')
def crypto_syms():
    return _dynsyms(LIBCRYPTO)


# ---------------------------------------------------------------------------------------
# (a) the openssl command under the whole-library wrapper

def _enc_cmd(*extra):
    return ['openssl', 'enc', '-aes-256-cbc', '-pbkdf2', '-iter', str(ITER), '-k', PASSWORD,
            *extra]


def _run_both_to_file(cmd_for, wrapper, tmp_path, out_name):
    """run_both on CMD_FOR(OUT), then a plain run into another file: the wrapped run's
    output file must equal the plain one.  Returns (wrapped run, trace, file bytes)."""
    wrapped, trace = run_both(cmd_for(out_name), wrapper, tmp_path)
    with open(os.path.join(str(tmp_path), out_name), 'rb') as f:
        got = f.read()
    plain_name = 'plain.' + out_name
    run(cmd_for(plain_name), cwd=str(tmp_path))
    with open(os.path.join(str(tmp_path), plain_name), 'rb') as f:
        want = f.read()
    assert got == want, f'{out_name}: the wrapped run wrote other bytes than the plain run'
    return wrapped, trace, got


def _check_trace_basics(t, syms):
    assert int(t.meta['total_ns']) > 0
    assert t.columns[:9] == ['seq', 'tid', 'func', 't_start_ns', 't_ns', 'in_bytes',
                             'out_bytes', 'work', 'depth']
    seqs = sorted(int(r['seq']) for r in t.rows)
    assert seqs == list(range(len(seqs)))
    funcs = set(t.funcs())
    not_funcs = {f for f in funcs if f not in syms or syms[f][0] != 'FUNC'}
    assert not not_funcs, f'trace rows for names that are no libcrypto function: {sorted(not_funcs)[:10]}'


def test_dgst_whole_library(whole, data, crypto_syms, tmp_path):
    so, _ = whole
    path, blob = data
    r, trace = run_both(['openssl', 'dgst', '-sha256', path], so, tmp_path)
    m = re.search(rb'= ([0-9a-f]{64})\s*$', r.stdout)
    assert m, r.stdout
    assert m.group(1).decode() == hashlib.sha256(blob).hexdigest()

    t = Trace(trace)
    _check_trace_basics(t, crypto_syms)
    assert len(t.rows) > 1000      # everything libcrypto calls through its PLT is wrapped too
    # openssl dgst reads its input through a digest BIO in 8 KiB (BUFSIZE) pieces: one
    # EVP_DigestUpdate per piece, each from inside BIO_read (so nested, depth >= 1)
    updates = [row for row in t.rows if row['func'] == 'EVP_DigestUpdate']
    assert len(updates) == -(-DATA_SIZE // 8192)
    assert all(int(row['depth']) >= 1 for row in updates)
    assert t.count('BIO_read') >= len(updates)
    assert t.count('EVP_DigestFinal_ex') >= 1


def test_dgst_under_std_flow(flow_wrapper, data, tmp_path):
    """Issue 33: naming allocation sites at exit through libdw started its debuginfod
    client, which loaded libcurl and libssh2, and libssh2 called into libcrypto after
    OpenSSL's cleanup: exit 139, stdout lost, an empty .flow.  Now the process writes
    addresses and its module table; the tool names them (libcrypto has only dynamic
    symbols: its allocations are made in CRYPTO_malloc or CRYPTO_zalloc)."""
    path, blob = data
    r, trace = run_both(['openssl', 'dgst', '-sha256', path], flow_wrapper, tmp_path)
    assert r.returncode == 0
    assert r.stdout.decode().strip().endswith(hashlib.sha256(blob).hexdigest())
    with open(trace + '.flow', 'rb') as f:
        raw = f.read()
    assert raw.startswith(b'DYLFLOW1')
    assert b'CRYPTO_' not in raw            # no name is looked up in the process
    dyl_flow = os.path.join(ROOT, 'bin', 'dyl-flow')
    names = run([dyl_flow, '--names', trace]).stdout.splitlines()
    sites = [n.split(',', 2)[2] for n in names[1:] if n.startswith('site,')]
    assert sites and any(s.startswith('CRYPTO_') for s in sites), sites[:5]
    edges = run([dyl_flow, trace]).stdout
    assert edges.startswith('producer,consumer,bytes')


def test_enc_under_std_flow(flow_wrapper, data, tmp_path):
    """Issue 33's crash came at exit, whatever openssl did (enc too): encrypt to a file
    and decrypt to stdout under std.flow, both exit 0 with their output whole, and the
    .flow holds no name (the tool makes them)."""
    path, blob = data
    _, _, enc = _run_both_to_file(lambda out: _enc_cmd('-S', SALT, '-in', path, '-out', out),
                                  flow_wrapper, tmp_path, 'enc.bin')
    assert len(enc) == (DATA_SIZE // 16 + 1) * 16
    r, trace = run_both(_enc_cmd('-d', '-S', SALT, '-in', 'enc.bin'), flow_wrapper, tmp_path,
                        trace='dec.csv')
    assert r.returncode == 0 and r.stdout == blob
    with open(trace + '.flow', 'rb') as f:
        assert b'CRYPTO_' not in f.read()
    names = run([os.path.join(ROOT, 'bin', 'dyl-flow'), '--names', trace]).stdout.splitlines()
    sites = [n.split(',', 2)[2] for n in names[1:] if n.startswith('site,')]
    assert sites and any(s.startswith('CRYPTO_') for s in sites), sites[:5]


def test_enc_encrypt_decrypt_whole_library(whole, data, crypto_syms, tmp_path):
    so, _ = whole
    path, blob = data

    # encrypt: file output
    r, trace, enc = _run_both_to_file(
        lambda out: _enc_cmd('-S', SALT, '-in', path, '-out', out), so, tmp_path, 'enc.bin')
    # with an explicit -S, OpenSSL 3.0 writes no 'Salted__' header: the ciphertext alone
    assert len(enc) == (DATA_SIZE // 16 + 1) * 16
    t = Trace(trace)
    _check_trace_basics(t, crypto_syms)
    # the cipher BIO calls EVP_CipherUpdate, which calls EVP_EncryptUpdate
    n_cipher = t.count('EVP_CipherUpdate')
    assert n_cipher > 0 and t.count('EVP_EncryptUpdate') == n_cipher
    assert t.count('EVP_DecryptUpdate') == 0
    assert t.count('EVP_EncryptFinal_ex') == 1
    depth = {}
    for row in t.by_seq():
        if row['func'] in ('EVP_CipherUpdate', 'EVP_EncryptUpdate'):
            depth.setdefault(row['func'], set()).add(int(row['depth']))
    assert min(depth['EVP_EncryptUpdate']) > min(depth['EVP_CipherUpdate'])
    # one PBKDF2 run: ITER HMAC iterations per 32-byte SHA-256 block of key + IV
    assert t.count('PKCS5_PBKDF2_HMAC') == 1
    assert t.count('HMAC_Final') == ITER * -(-KEY_IV_LEN // 32)

    # decrypt: to a file, and to stdout
    _, trace, dec = _run_both_to_file(
        lambda out: _enc_cmd('-d', '-S', SALT, '-in', 'enc.bin', '-out', out), so, tmp_path,
        'dec.bin')
    assert dec == blob
    t = Trace(trace)
    _check_trace_basics(t, crypto_syms)
    assert t.count('EVP_DecryptUpdate') == t.count('EVP_CipherUpdate') > 0
    assert t.count('EVP_EncryptUpdate') == 0
    assert t.count('EVP_DecryptFinal_ex') == 1

    r, trace = run_both(_enc_cmd('-d', '-S', SALT, '-in', 'enc.bin'), so, tmp_path,
                        trace='stdout.csv')
    assert r.stdout == blob


def test_wrong_password_fails_alike(whole, data, tmp_path):
    """A failing run (bad decrypt: exit 1, errors on stderr) fails the same way wrapped.
    OpenSSL's error lines start with the thread id (an address: it moves with every run),
    so that field is masked before stderr is compared."""
    so, _ = whole
    path, _ = data
    run(_enc_cmd('-S', SALT, '-in', path, '-out', 'enc.bin'), cwd=str(tmp_path))
    cmd = ['openssl', 'enc', '-d', '-aes-256-cbc', '-pbkdf2', '-iter', str(ITER), '-k',
           'not the key', '-S', SALT, '-in', 'enc.bin', '-out', 'dec.bin']
    env = {k: v for k, v in os.environ.items() if k != 'LD_PRELOAD'}
    trace = os.path.join(str(tmp_path), 'trace.csv')
    plain = subprocess.run(cmd, capture_output=True, cwd=str(tmp_path), env=env)
    wrapped = subprocess.run(cmd, capture_output=True, cwd=str(tmp_path),
                             env=dict(env, LD_PRELOAD=so, DYL_TRACE=trace))

    def mask(err):
        return re.sub(rb'^[0-9A-F]+:error:', b'TID:error:', err, flags=re.M)

    assert plain.returncode == wrapped.returncode == 1
    assert plain.stdout == wrapped.stdout
    assert b'bad decrypt' in wrapped.stderr
    assert mask(plain.stderr) == mask(wrapped.stderr)
    t = Trace(trace)
    assert t.count('EVP_DecryptFinal_ex') == 1 and int(t.meta['total_ns']) > 0
    assert t.count('ERR_new') >= 1        # the error was raised through libcrypto's API


# ---------------------------------------------------------------------------------------
# (b) an EVP app wrapped through --app and -f: call counts derived from its arguments

def _ct_len(n, size):
    return (n * size // 16 + 1) * 16      # PKCS#7 padding always adds 1..16 bytes


def _expected_top_level(n, size, streams):
    """The app's own (depth 0) calls, in program order."""
    seq = ['EVP_CIPHER_CTX_new', 'EVP_MD_CTX_new', 'EVP_sha256', 'EVP_DigestInit_ex']
    pieces = -(-_ct_len(n, size) // size)
    for _ in range(streams):
        seq += ['EVP_aes_256_cbc', 'EVP_EncryptInit_ex']
        seq += ['EVP_EncryptUpdate', 'EVP_DigestUpdate'] * n
        seq += ['EVP_EncryptFinal_ex', 'EVP_DigestUpdate']
        seq += ['EVP_aes_256_cbc', 'EVP_DecryptInit_ex']
        seq += ['EVP_DecryptUpdate'] * pieces + ['EVP_DecryptFinal_ex']
    return seq + ['EVP_DigestFinal_ex', 'EVP_MD_CTX_free', 'EVP_CIPHER_CTX_free']


def _plaintext(n, size, s):
    return bytes(((((o * 2654435761) & 0xffffffff) >> 13) + s) & 0xff
                 for o in range(n * size))


def _expected_digest(n, size, streams):
    """SHA-256 of the app's ciphertext, computed with the openssl command (unwrapped)."""
    h = hashlib.sha256()
    key = bytes(range(32)).hex()
    for s in range(streams):
        iv = bytearray(0xa0 + i for i in range(16))
        iv[0] ^= s
        r = subprocess.run(['openssl', 'enc', '-aes-256-cbc', '-K', key, '-iv', iv.hex()],
                           input=_plaintext(n, size, s), capture_output=True, check=True)
        assert len(r.stdout) == _ct_len(n, size)
        h.update(r.stdout)
    return h.hexdigest()


@pytest.mark.parametrize('n,size,streams', [(7, 1000, 1), (3, 4096, 3), (0, 64, 2)])
def test_evp_app_call_counts(app, evp_wrapper, n, size, streams, tmp_path):
    cmd = [app, str(n), str(size), str(streams)]
    r, trace = run_both(cmd, evp_wrapper, tmp_path)
    out = r.stdout.decode()
    assert 'roundtrip ok' in out
    assert f'ciphertext_bytes={streams * _ct_len(n, size)} ' in out
    assert f'sha256={_expected_digest(n, size, streams)}' in out

    t = Trace(trace)
    assert all(f.startswith('EVP_') for f in t.funcs())    # -f 'EVP_*'
    pieces = -(-_ct_len(n, size) // size)
    assert t.count('EVP_EncryptUpdate') == n * streams
    assert t.count('EVP_EncryptFinal_ex') == streams
    assert t.count('EVP_EncryptInit_ex') == streams
    assert t.count('EVP_DecryptInit_ex') == streams
    assert t.count('EVP_DecryptUpdate') == pieces * streams
    assert t.count('EVP_DecryptFinal_ex') == streams
    assert t.count('EVP_DigestUpdate') == (n + 1) * streams
    assert t.count('EVP_DigestFinal_ex') == 1
    assert t.count('EVP_CIPHER_CTX_new') == t.count('EVP_CIPHER_CTX_free') == 1
    top = [row['func'] for row in t.by_seq() if row['depth'] == '0']
    assert top == _expected_top_level(n, size, streams)
    # without --defs nothing estimates bytes for these calls
    assert all(row['in_bytes'] == '' for row in t.rows)


def test_evp_list_is_what_the_app_imports(app):
    r = dyliberator('--lib', LIBCRYPTO, '--app', app, '-f', 'EVP_*', '--list')
    wrapped = set(list_verdicts(r.stdout)['wrap'])
    imports = set()
    for line in run(['nm', '-D', '--undefined-only', app]).stdout.splitlines():
        name = line.split()[-1].split('@')[0]
        if name.startswith('EVP_'):
            imports.add(name)
    assert 'EVP_EncryptUpdate' in imports
    assert wrapped == imports


# ---------------------------------------------------------------------------------------
# (c) --list: variadic functions, data and version symbols, declared-only names

def test_list_variadic_and_symbol_kinds(crypto_list, crypto_syms):
    out, k = crypto_list
    assert 'forwarded through BIO_vprintf' in k['wrap']['BIO_printf']
    assert 'BIO_vprintf' in k['wrap']
    assert 'forwarded through ERR_add_error_vdata' in k['wrap']['ERR_add_error_data']
    # a variadic function without a va_list twin cannot be forwarded
    assert k['skip']['EVP_PKEY_Q_keygen'].startswith('variadic')
    # _Noreturn behind a macro (ossl_noreturn)
    assert 'noreturn' in k['skip']['OPENSSL_die']
    assert 'OPENSSL_die' not in k['wrap']

    listed = set(k['wrap']) | set(k['skip'])
    funcs = {n for n, s in crypto_syms.items() if s[0] == 'FUNC'}
    version_defs = {n for n, s in crypto_syms.items() if s[1] == 'ABS'}
    data = {n for n, s in crypto_syms.items() if s[0] in ('OBJECT', 'TLS') and s[1] != 'ABS'}
    assert {'OPENSSL_3.0.0', 'OPENSSL_3.0.9'} <= version_defs
    assert not version_defs & (listed | set(k['none'])), 'version definitions listed as symbols'
    assert set(k['wrap']) <= funcs, 'a non-function is wrapped'
    for name in data:
        assert k['skip'][name] == 'data symbol, not a function'
    # every exported function is accounted for, as wrapped or skipped with a reason
    assert funcs == listed
    m = re.search(r'^# libcrypto\.so\.3 \(.*\): (\d+) wrapped, (\d+) skipped', out, re.M)
    assert m and int(m.group(1)) == len(k['wrap']) and int(m.group(2)) == len(k['skip'])
    assert len(k['wrap']) > 5000


def test_list_header_inlines_are_not_declared_only(crypto_list):
    """static inline functions of the headers (ERR_GET_LIB, the ossl_check_* helpers of
    the STACK_OF macros) are no library calls: neither wrapped nor 'not exported'."""
    _, k = crypto_list
    for name in ('ERR_GET_LIB', 'ERR_GET_REASON', 'ossl_check_X509_type'):
        assert name not in k['none'] and name not in k['wrap']
    assert not [n for n in k['none'] if n.startswith('ossl_check_')]


def test_list_sibling_library_functions_are_declared_only(crypto_syms):
    r = dyliberator('--lib', LIBCRYPTO, '--header', SSL_H, '--list')
    k = list_verdicts(r.stdout)
    ssl_syms = _dynsyms(LIBSSL)
    ssl_funcs = {n for n, s in ssl_syms.items() if s[0] == 'FUNC'}
    declared_only = {n for n in k['none'] if n.startswith('SSL_')}
    assert len(declared_only) > 100
    assert 'SSL_CTX_new' in declared_only and 'SSL_read' in declared_only
    assert 'declared at ssl.h:' in k['none']['SSL_CTX_new']
    assert 'not exported' in k['none']['SSL_CTX_new']
    assert declared_only <= ssl_funcs        # libssl's own functions, indeed
    assert not declared_only & set(crypto_syms)
    assert not [n for n in k['wrap'] if n.startswith('SSL_')]
    # ssl.h pulls in the libcrypto headers it needs: their functions are still wrapped
    assert 'EVP_EncryptUpdate' in k['wrap'] and 'BIO_printf' in k['wrap']

    # with libssl as a second --lib, the same names are wrapped, not declared-only
    r = dyliberator('--lib', LIBCRYPTO, '--lib', LIBSSL, '--header', SSL_H, '--list')
    k2 = list_verdicts(r.stdout)
    assert 'SSL_CTX_new' in k2['wrap'] and 'SSL_read' in k2['wrap']
    assert not {n for n in k2['none'] if n.startswith('SSL_')}


# ---------------------------------------------------------------------------------------
# (d) symbol versions

def _sources(out_dir):
    """The wrapper's C text: wrap.c and its units (wrap_NNN.c), which a large one has."""
    return ''.join(open(os.path.join(out_dir, n)).read() for n in sorted(os.listdir(out_dir))
                   if n.endswith('.c'))


# how each original is found: its name and version, in the descriptor of the shared steps
# (runtime/include/dyl_wcall.h) or in a wrapper's own dyl_load call (the older form)
_RESOLVE = re.compile(r'(?:dyl_load\(|struct dyl_wsym dyl_ws = \{ )&dyl_lib_\d+, "([^"]+)", ("[^"]*"|NULL)')


def test_versioned_symbols_in_generated_code(whole, crypto_syms, app, tmp_path):
    so, out_dir = whole
    text = _sources(out_dir)
    resolved = {m.group(1): m.group(2).strip('"') for m in _RESOLVE.finditer(text)}
    assert resolved['EVP_EncryptUpdate'] == 'OPENSSL_3.0.0'
    # the few functions added in later releases carry their own version
    assert resolved['OPENSSL_strcasecmp'] == 'OPENSSL_3.0.3'
    assert resolved['OSSL_CMP_MSG_update_recipNonce'] == 'OPENSSL_3.0.9'
    assert len(resolved) > 5000
    for name, ver in resolved.items():
        assert crypto_syms[name][2] == ver and crypto_syms[name][3], name

    # and the whole wrapper works for the EVP app too: the same counts as its own wrapper
    r, trace = run_both([app, '5', '1000', '2'], so, tmp_path)
    assert b'roundtrip ok' in r.stdout
    t = Trace(trace)
    top = [row for row in t.rows if row['depth'] == '0' and row['func'] == 'EVP_EncryptUpdate']
    assert len(top) == 5 * 2
    assert t.count('EVP_DecryptFinal_ex') == 2


# ---------------------------------------------------------------------------------------
# (e) exact bytes from examples/openssl.defs

def _enc_out(t_before, t_after):
    return 16 * (t_after // 16) - 16 * (t_before // 16)


def _dec_held(t):
    """Plaintext out after T ciphertext bytes: the last full block is held back."""
    return 0 if t == 0 else 16 * (-(-t // 16) - 1)


@pytest.mark.parametrize('n,size,streams', [(6, 1000, 2), (4, 4096, 1), (5, 7, 1)])
def test_evp_defs_exact_bytes(app, evp_defs_wrapper, n, size, streams, tmp_path):
    r, trace = run_both([app, str(n), str(size), str(streams)], evp_defs_wrapper, tmp_path)
    assert b'roundtrip ok' in r.stdout
    rows = [row for row in Trace(trace).by_seq() if row['depth'] == '0']

    def sizes(func):
        return [(int(row['in_bytes']), int(row['out_bytes']), int(row['work']))
                for row in rows if row['func'] == func]

    plain, ct = n * size, _ct_len(n, size)
    want_enc, want_dec, want_digest = [], [], []
    for _ in range(streams):
        for i in range(n):
            out = _enc_out(i * size, (i + 1) * size)
            want_enc.append((size, out, size + out))
            want_digest.append((out, 0, out))
        want_digest.append((16, 0, 16))            # the final (padding) block
        for off in range(0, ct, size):
            piece = min(size, ct - off)
            out = _dec_held(off + piece) - _dec_held(off)
            want_dec.append((piece, out, piece + out))
    assert sizes('EVP_EncryptUpdate') == want_enc
    assert sizes('EVP_EncryptFinal_ex') == [(0, ct - 16 * (plain // 16), ct - 16 * (plain // 16))] * streams
    assert sizes('EVP_DecryptUpdate') == want_dec
    tail = plain - _dec_held(ct)
    assert sizes('EVP_DecryptFinal_ex') == [(0, tail, tail)] * streams
    assert sizes('EVP_DigestUpdate') == want_digest
    assert sizes('EVP_DigestFinal_ex') == [(0, 32, 32)]
    # what went in came out again
    assert sum(s[0] for s in want_enc) == plain * streams
    assert sum(s[1] for s in sizes('EVP_DecryptUpdate') + sizes('EVP_DecryptFinal_ex')) == plain * streams
    # functions without definitions have no estimate
    assert all(row['in_bytes'] == '' for row in rows if row['func'] == 'EVP_EncryptInit_ex')


# ---------------------------------------------------------------------------------------
# (f) the whole-library wrapper generated alone (--no-build).  Its time is printed, not
# checked (it varies with the machine and its load: 3 s idle, 9 s beside other jobs):
# bench/generate.sh measures it (BENCHMARKS.md)

def test_generate_whole_library_time(crypto_list, tmp_path):
    _, k = crypto_list
    out = os.path.join(str(tmp_path), 'gen.so')
    t0 = time.monotonic()
    dyliberator('--lib', LIBCRYPTO, '--no-build', '-o', out)
    elapsed = time.monotonic() - t0
    print(f'\ngenerating the whole-libcrypto wrapper (--no-build): {elapsed:.2f} s')
    assert not os.path.exists(out)
    text = _sources(os.path.join(str(tmp_path), 'gen.d'))
    defined = set(re.findall(r'^DYL_EXPORT [^\n]*?\((\w+)\)\(', text, re.M))
    assert defined == set(k['wrap'])
