/* evpbench SIZE PIECES ROUNDS - the CPU time per EVP_DecryptUpdate call when a program
 * decrypts a received buffer of SIZE bytes in PIECES pieces (EVP_DecryptUpdate(ctx, out,
 * &outl, rx + off, piece): a pointer into the middle of the buffer and its length, the
 * case lengths=auto bounds), ROUNDS times, new data received before each round.
 * Prints "ns_per_call N": the loop's CPU time (the process's clock), the copy of the
 * received data included, per call; subtract the plain run's figure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>
#include "../cputime.h"

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: evpbench SIZE PIECES ROUNDS\n");
		return 2;
	}
	int size = atoi(argv[1]), pieces = atoi(argv[2]), rounds = atoi(argv[3]), piece = size / pieces;
	static const unsigned char key[32] = "0123456789abcdef0123456789abcde", iv[16] = "fedcba987654321";
	unsigned char *sent = malloc(size), *rx = malloc(size), *out = malloc(size + 16);
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int outl;

	for (int i = 0; i < size; i++)
		sent[i] = (unsigned char)(i * 131 + 7);
	double t = 0;
	for (int r = 0; r <= rounds; r++) {
		double t0 = cpu_ns();
		sent[r % size] ^= 1;	/* new data each round */
		memcpy(rx, sent, size);
		EVP_DecryptInit_ex(ctx, EVP_aes_256_cbc(), NULL, key, iv);
		EVP_CIPHER_CTX_set_padding(ctx, 0);
		for (int off = 0; off + piece <= size; off += piece)
			if (!EVP_DecryptUpdate(ctx, out + off, &outl, rx + off, piece))
				return 1;
		if (r)	/* round 0: every buffer new to a wrapper; not timed */
			t += cpu_ns() - t0;
	}
	printf("ns_per_call %.1f\n", t / ((double)rounds * pieces));
	EVP_CIPHER_CTX_free(ctx);
	return 0;
}
