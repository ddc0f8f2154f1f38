/* evp_calls - AES-256-CBC encryption and decryption through OpenSSL's EVP interface, for
 * the accuracy harness (bench/accuracy/run.py).
 *
 *   evp_calls CASE...        CASE = msg:SIZE  or  stream:SIZE:N
 *
 *   msg:SIZE       one message of SIZE bytes: fresh plaintext in a block of its own, one
 *                  EVP_EncryptUpdate into a block of SIZE + 16 bytes, EVP_EncryptFinal_ex;
 *                  the ciphertext is "received" (copied into a block of its own) and
 *                  decrypted with one EVP_DecryptUpdate into a block of SIZE + 16 and
 *                  EVP_DecryptFinal_ex.  Blocks freed after the message.
 *   stream:SIZE:N  N pieces of SIZE bytes, each freshly produced in one SIZE-byte block,
 *                  encrypted one after another into one ciphertext block for the whole
 *                  stream (at increasing offsets, as a program assembling a file does);
 *                  the stream is received and decrypted in SIZE-byte pieces into one
 *                  plaintext block.
 *
 * The plaintext is new pseudo-random bytes before every encrypting call; the decrypted
 * text is compared with it.  outl is a local of the calling function (on its stack).  It
 * prints a line per case, "case CASE FIRST COUNT" (the number of its first EVP_*Update or
 * EVP_*Final_ex call, from 0, and how many it made), then the bytes of ciphertext and a
 * checksum; the calls and their data are the same on every run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

static uint64_t state = 0x243f6a8885a308d3ull;
static uint64_t checksum, ct_total;
static long calls;	/* EVP_*Update and EVP_*Final_ex calls made */
static const unsigned char key[32] = "0123456789abcdef0123456789abcde";
static const unsigned char iv[16] = "fedcba987654321";

static void die(const char *what)
{
	fprintf(stderr, "evp_calls: %s failed\n", what);
	exit(1);
}

static void *alloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("malloc");
	return p;
}

/* fresh pseudo-random bytes (xorshift64*) */
static void produce(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		state ^= state >> 12;
		state ^= state << 25;
		state ^= state >> 27;
		p[i] = (unsigned char)((state * 0x2545f4914f6cdd1dull) >> 56);
	}
}

static void add_up(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		checksum = checksum * 31 + p[i];
}

static void message(EVP_CIPHER_CTX *ctx, size_t size)
{
	unsigned char *in = alloc(size), *ct = alloc(size + 16), *rx, *pt = alloc(size + 16);
	int outl, len;

	produce(in, size);
	if (!EVP_EncryptInit_ex(ctx, EVP_aes_256_cbc(), NULL, key, iv))
		die("EVP_EncryptInit_ex");
	calls++;
	if (!EVP_EncryptUpdate(ctx, ct, &outl, in, (int)size))
		die("EVP_EncryptUpdate");
	len = outl;
	calls++;
	if (!EVP_EncryptFinal_ex(ctx, ct + len, &outl))
		die("EVP_EncryptFinal_ex");
	len += outl;
	ct_total += (uint64_t)len;
	add_up(ct, (size_t)len);

	rx = alloc((size_t)len);
	memcpy(rx, ct, (size_t)len);
	if (!EVP_DecryptInit_ex(ctx, EVP_aes_256_cbc(), NULL, key, iv))
		die("EVP_DecryptInit_ex");
	calls++;
	if (!EVP_DecryptUpdate(ctx, pt, &outl, rx, len))
		die("EVP_DecryptUpdate");
	int plen = outl;
	calls++;
	if (!EVP_DecryptFinal_ex(ctx, pt + plen, &outl))
		die("EVP_DecryptFinal_ex");
	plen += outl;
	if ((size_t)plen != size || memcmp(pt, in, size))
		die("round trip");
	free(in);
	free(ct);
	free(rx);
	free(pt);
}

static void stream(EVP_CIPHER_CTX *ctx, size_t size, long n)
{
	size_t total = size * (size_t)n, len = 0, plen = 0;
	unsigned char *in = alloc(size), *ct = alloc(total + 16), *rx, *pt = alloc(total + 16);
	unsigned char *plain = alloc(total);
	int outl;

	if (!EVP_EncryptInit_ex(ctx, EVP_aes_256_cbc(), NULL, key, iv))
		die("EVP_EncryptInit_ex");
	for (long i = 0; i < n; i++) {
		produce(in, size);
		memcpy(plain + (size_t)i * size, in, size);
		calls++;
		if (!EVP_EncryptUpdate(ctx, ct + len, &outl, in, (int)size))
			die("EVP_EncryptUpdate");
		len += (size_t)outl;
	}
	calls++;
	if (!EVP_EncryptFinal_ex(ctx, ct + len, &outl))
		die("EVP_EncryptFinal_ex");
	len += (size_t)outl;
	ct_total += len;
	add_up(ct, len);

	rx = alloc(len);
	memcpy(rx, ct, len);
	if (!EVP_DecryptInit_ex(ctx, EVP_aes_256_cbc(), NULL, key, iv))
		die("EVP_DecryptInit_ex");
	for (size_t off = 0; off < len; off += size) {
		size_t piece = len - off < size ? len - off : size;
		calls++;
		if (!EVP_DecryptUpdate(ctx, pt + plen, &outl, rx + off, (int)piece))
			die("EVP_DecryptUpdate");
		plen += (size_t)outl;
	}
	calls++;
	if (!EVP_DecryptFinal_ex(ctx, pt + plen, &outl))
		die("EVP_DecryptFinal_ex");
	plen += (size_t)outl;
	if (plen != total || memcmp(pt, plain, total))
		die("round trip");
	free(in);
	free(ct);
	free(rx);
	free(pt);
	free(plain);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s msg:SIZE|stream:SIZE:N...\n", argv[0]);
		return 2;
	}
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		die("EVP_CIPHER_CTX_new");
	for (int i = 1; i < argc; i++) {
		long size = 0, n = 0, first = calls;
		if (sscanf(argv[i], "msg:%ld", &size) == 1 && size > 0 && size <= (1 << 26))
			message(ctx, (size_t)size);
		else if (sscanf(argv[i], "stream:%ld:%ld", &size, &n) == 2 && size > 0 && n > 0
			 && size * n <= (1 << 26))
			stream(ctx, (size_t)size, n);
		else {
			fprintf(stderr, "evp_calls: bad case '%s' (msg:SIZE or stream:SIZE:N)\n", argv[i]);
			return 2;
		}
		printf("case %s %ld %ld\n", argv[i], first, calls - first);
	}
	EVP_CIPHER_CTX_free(ctx);
	printf("ciphertext_bytes=%llu checksum=%llu\n", (unsigned long long)ct_total,
	       (unsigned long long)checksum);
	return 0;
}
