/* pieces_app - a program that hands a library one big buffer piece by piece, with the
 * length of each piece (pieces.h), for the tests of lengths=auto.
 *
 *   pieces_app stream SIZE N    one block of N pieces of SIZE bytes, filled; consume()
 *                               each piece, again unchanged, again with one byte of
 *                               piece 1 changed; then produce() each piece of a
 *                               zeroed block
 *   pieces_app rows W N K       N rows of W bytes (a block each) and an array of their N
 *                               pointers, all filled; sum_rows() and fill_rows() of
 *                               the first K rows only
 *   pieces_app unseen SIZE N    a block of N pieces that no call saw, freed; a block
 *                               made of its memory gets new data in piece 0, then a
 *                               byte in piece 2, then a byte on another page of it
 *                               (what the old block left there is no input)
 *
 * Prints a line per library call, "IN OUT": the bytes the program changed in what the
 * call is given (its piece, its rows) since a call last saw them, plus the sizeof of
 * the arguments passed by value; and the bytes the call changes: what std.diff must
 * count with lengths=auto (the return value aside); -1 where it cannot be said. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pieces.h"

static void expect(long in, long out)
{
	printf("%ld %ld\n", in, out);
}

/* fresh bytes, never 0 */
static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(1 + (i * 13 + seed) % 253);
}

static void stream(long size, long n)
{
	unsigned char *buf = malloc(size * n), *out = calloc(n, size);

	fill(buf, size * n, 1);
	for (long i = 0; i < n; i++) {
		consume(buf + i * size, (int)size);
		expect(size + 4, 0);	/* its piece, not the rest of the block */
	}
	for (long i = 0; i < n; i++) {
		consume(buf + i * size, (int)size);
		expect(4, 0);
	}
	buf[size + 3] ^= 0x55;
	for (long i = 0; i < n; i++) {
		consume(buf + i * size, (int)size);
		expect(i == 1 ? 8 + 4 : 4, 0);	/* the one byte: its 8-byte block */
	}
	for (long i = 0; i < n; i++) {
		produce(out + i * size, (size_t)size, (int)i);
		expect(8 + 4, size);	/* an output piece: what the call wrote */
	}
	free(buf);
	free(out);
}

static void rows(int w, int n, int k)
{
	unsigned char **r = malloc(n * sizeof(*r));

	for (int i = 0; i < n; i++) {
		r[i] = malloc(w);
		fill(r[i], w, i);
	}
	sum_rows((const unsigned char *const *)r, k, w);
	expect(k * (long)sizeof(*r) + (long)k * w + 4 + 4, 0);	/* k pointers, k rows */
	fill_rows(r, (unsigned)k, w, 7);
	expect(4 + 4 + 4, (long)k * w);
	for (int i = 0; i < n; i++)
		free(r[i]);
	free(r);
}

static void unseen(long size, long n)
{
	mallopt(M_MMAP_THRESHOLD, 1 << 28);	/* from the heap: freed memory comes back, */
	mallopt(M_TRIM_THRESHOLD, 1 << 30);	/* as it was (not given back to the kernel) */
	unsigned char *old = malloc(size * n);
	fill(old, size * n, 5);
	free(old);
	unsigned char *buf = malloc(size * n);
	if (buf != old) {
		printf("other memory\n");
		return;
	}
	fill(buf, size, 9);
	consume(buf, (int)size);
	expect(size + 4, 0);
	buf[2 * size + 100] ^= 0x55;
	consume(buf + 2 * size, (int)size);
	expect(-1, 0);	/* the page written: what the old block left there counts too */
	buf[2 * size + 50000] ^= 0x55;
	consume(buf + 2 * size, (int)size);
	expect(8 + 4, 0);	/* not the rest of what the old block left on that page */
	free(buf);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "stream"))
		stream(atol(argv[2]), atol(argv[3]));
	else if (argc == 5 && !strcmp(argv[1], "rows"))
		rows(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	else if (argc == 4 && !strcmp(argv[1], "unseen"))
		unseen(atol(argv[2]), atol(argv[3]));
	else {
		fprintf(stderr, "usage: pieces_app stream SIZE N | rows W N K | unseen SIZE N\n");
		return 2;
	}
	return 0;
}
