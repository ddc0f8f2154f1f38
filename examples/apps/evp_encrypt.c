/* evp_encrypt - encrypts STREAMS streams of N buffers of SIZE bytes with AES-256-CBC
 * through OpenSSL's EVP interface, decrypts them again in SIZE-byte pieces, and prints
 * the SHA-256 of all the ciphertext.  An example application for dyliberator:
 *
 *   cc -O2 -o evp_encrypt evp_encrypt.c -lcrypto
 *   dyliberator --lib libcrypto.so.3 --app ./evp_encrypt -f 'EVP_*' \
 *       --defs examples/openssl.defs -o evp.so
 *   LD_PRELOAD=./evp.so ./evp_encrypt 10 4096 2
 *
 * Per stream s (0-based) it calls EVP_EncryptInit_ex once, EVP_EncryptUpdate N times
 * (SIZE bytes each), EVP_EncryptFinal_ex once; then EVP_DecryptInit_ex once,
 * EVP_DecryptUpdate once per SIZE-byte piece of the ciphertext (the last may be
 * shorter), EVP_DecryptFinal_ex once.  The ciphertext goes through EVP_DigestUpdate
 * once per EVP_EncryptUpdate and once per EVP_EncryptFinal_ex.
 *
 * Everything is deterministic: key bytes k[i] = i, IV bytes iv[i] = 0xa0 + i with
 * iv[0] ^= s, plaintext byte at offset o of stream s = ((o * 2654435761) mod 2^32 >> 13) + s
 * (mod 256).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

static void die(const char *what)
{
	fprintf(stderr, "evp_encrypt: %s failed\n", what);
	exit(1);
}

static unsigned char plain_byte(uint64_t o, int s)
{
	return (unsigned char)((((uint32_t)o * 2654435761u) >> 13) + (uint32_t)s);
}

/* The N buffers of stream S encrypted into CT (and through the digest MD): the
 * ciphertext's length.  OUTL is main's: every stack variable the library is given
 * stays in main's frame (std.regions charges a stack pointer up to its frame's end). */
static size_t encrypt_stream(EVP_CIPHER_CTX *ctx, EVP_MD_CTX *md, const unsigned char *key,
			     const unsigned char *iv, unsigned char *in, unsigned char *ct,
			     long n, long size, int s, int *outl)
{
	size_t ct_len = 0;

	if (!EVP_EncryptInit_ex(ctx, EVP_aes_256_cbc(), NULL, key, iv))
		die("EVP_EncryptInit_ex");
	for (long b = 0; b < n; b++) {
		for (long j = 0; j < size; j++)
			in[j] = plain_byte((uint64_t)b * (uint64_t)size + (uint64_t)j, s);
		if (!EVP_EncryptUpdate(ctx, ct + ct_len, outl, in, (int)size))
			die("EVP_EncryptUpdate");
		if (!EVP_DigestUpdate(md, ct + ct_len, (size_t)*outl))
			die("EVP_DigestUpdate");
		ct_len += (size_t)*outl;
	}
	if (!EVP_EncryptFinal_ex(ctx, ct + ct_len, outl))
		die("EVP_EncryptFinal_ex");
	if (!EVP_DigestUpdate(md, ct + ct_len, (size_t)*outl))
		die("EVP_DigestUpdate");
	ct_len += (size_t)*outl;
	return ct_len;
}

/* CT (CT_LEN bytes) decrypted into PT in SIZE-byte pieces and compared with stream S's
 * plaintext (PLAIN_LEN bytes). */
static void decrypt_and_compare(EVP_CIPHER_CTX *ctx, const unsigned char *key,
				const unsigned char *iv, const unsigned char *ct, size_t ct_len,
				unsigned char *pt, size_t plain_len, long size, int s, int *outl)
{
	size_t pt_len = 0;

	if (!EVP_DecryptInit_ex(ctx, EVP_aes_256_cbc(), NULL, key, iv))
		die("EVP_DecryptInit_ex");
	for (size_t off = 0; off < ct_len; off += (size_t)size) {
		size_t piece = ct_len - off < (size_t)size ? ct_len - off : (size_t)size;
		if (!EVP_DecryptUpdate(ctx, pt + pt_len, outl, ct + off, (int)piece))
			die("EVP_DecryptUpdate");
		pt_len += (size_t)*outl;
	}
	if (!EVP_DecryptFinal_ex(ctx, pt + pt_len, outl))
		die("EVP_DecryptFinal_ex");
	pt_len += (size_t)*outl;
	if (pt_len != plain_len)
		die("round trip (length)");
	for (size_t o = 0; o < pt_len; o++)
		if (pt[o] != plain_byte(o, s))
			die("round trip (contents)");
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: %s N SIZE [STREAMS]\n", argv[0]);
		return 2;
	}
	long n = atol(argv[1]), size = atol(argv[2]), streams = argc > 3 ? atol(argv[3]) : 1;
	if (n < 0 || size < 1 || size > (1 << 24) || streams < 1) {
		fprintf(stderr, "evp_encrypt: bad arguments\n");
		return 2;
	}
	unsigned char key[32], iv[16];
	for (int i = 0; i < 32; i++)
		key[i] = (unsigned char)i;

	size_t plain_len = (size_t)n * (size_t)size;
	size_t cap = plain_len + 32;
	unsigned char *in = malloc((size_t)size), *ct = malloc(cap), *pt = malloc(cap);
	if (!in || !ct || !pt)
		die("malloc");

	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	if (!ctx || !md)
		die("context allocation");
	if (!EVP_DigestInit_ex(md, EVP_sha256(), NULL))
		die("EVP_DigestInit_ex");

	size_t total_ct = 0;
	for (int s = 0; s < streams; s++) {
		for (int i = 0; i < 16; i++)
			iv[i] = (unsigned char)(0xa0 + i);
		iv[0] ^= (unsigned char)s;
		int outl;
		size_t ct_len = encrypt_stream(ctx, md, key, iv, in, ct, n, size, s, &outl);
		total_ct += ct_len;
		decrypt_and_compare(ctx, key, iv, ct, ct_len, pt, plain_len, size, s, &outl);
	}

	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int dlen = 0;
	if (!EVP_DigestFinal_ex(md, digest, &dlen))
		die("EVP_DigestFinal_ex");
	printf("streams=%ld n=%ld size=%ld ciphertext_bytes=%zu sha256=", streams, n, size, total_ct);
	for (unsigned i = 0; i < dlen; i++)
		printf("%02x", digest[i]);
	printf("\nroundtrip ok\n");

	EVP_MD_CTX_free(md);
	EVP_CIPHER_CTX_free(ctx);
	free(in);
	free(ct);
	free(pt);
	return 0;
}
