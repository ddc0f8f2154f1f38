/* evp_pieces - AES-256-CBC through OpenSSL's EVP interface, one buffer handed over piece
 * by piece, for the tests of lengths=auto on a real library: N pieces of SIZE bytes of
 * one plaintext block are encrypted into one ciphertext block (EVP_EncryptUpdate's in
 * points into the middle of the block, inl is the piece), then the ciphertext is
 * "received" (copied into a block of its own: what a wrapped call wrote would be no input
 * of the next one) and decrypted the same way.
 *   evp_pieces SIZE N
 * Prints "update INL" per EVP_*Update call and "final" per EVP_*Final_ex call, then a
 * checksum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

static const unsigned char key[32] = "0123456789abcdef0123456789abcde";
static const unsigned char iv[16] = "fedcba987654321";

static void die(const char *what)
{
	fprintf(stderr, "evp_pieces: %s failed\n", what);
	exit(1);
}

/* LEN bytes of IN through CTX (set up to encrypt, ENC, or decrypt) in pieces of SIZE into
 * OUT, and the Final call; a line per call; returns the bytes written */
static int pieces(EVP_CIPHER_CTX *ctx, int enc, const unsigned char *in, int len, int size,
		  unsigned char *out)
{
	int done = 0, outl;

	for (int off = 0; off < len; off += size) {
		int piece = len - off < size ? len - off : size;
		if (!(enc ? EVP_EncryptUpdate : EVP_DecryptUpdate)(ctx, out + done, &outl, in + off, piece))
			die(enc ? "EVP_EncryptUpdate" : "EVP_DecryptUpdate");
		done += outl;
		printf("update %d\n", piece);
	}
	if (!(enc ? EVP_EncryptFinal_ex : EVP_DecryptFinal_ex)(ctx, out + done, &outl))
		die(enc ? "EVP_EncryptFinal_ex" : "EVP_DecryptFinal_ex");
	printf("final\n");
	return done + outl;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	int size = atoi(argv[1]), n = atoi(argv[2]);
	unsigned char *pt = malloc((size_t)size * n), *ct = malloc((size_t)size * n + 16);
	unsigned char *rx = malloc((size_t)size * n + 16), *back = malloc((size_t)size * n + 16);
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

	for (long i = 0; i < (long)size * n; i++)
		pt[i] = (unsigned char)(i * 31 + 7);
	if (!ctx || !EVP_EncryptInit_ex(ctx, EVP_aes_256_cbc(), NULL, key, iv))
		die("EVP_EncryptInit_ex");
	int len = pieces(ctx, 1, pt, size * n, size, ct);
	memcpy(rx, ct, (size_t)len);
	if (!EVP_DecryptInit_ex(ctx, EVP_aes_256_cbc(), NULL, key, iv))
		die("EVP_DecryptInit_ex");
	int plen = pieces(ctx, 0, rx, len, size, back);
	if (plen != size * n || memcmp(back, pt, (size_t)plen))
		die("round trip");
	EVP_CIPHER_CTX_free(ctx);
	free(pt);
	free(ct);
	free(rx);
	free(back);
	return 0;
}
