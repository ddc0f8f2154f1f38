/* pieces.h - calls that take a buffer and its length, for the tests of lengths=auto
 * (microgens/std.diff/test_std_diff_lengths.py, std.regions' likewise).  The generator
 * pairs in/inl, out/outlen, rows/n (const rows) and rows/num_rows; not in/mode, nor
 * out/len of a pointer that hands one pointer back. */
#ifndef PIECES_H
#define PIECES_H
#include <stddef.h>

long consume(const unsigned char *in, int inl);			/* reads in[0, inl) */
void produce(unsigned char *out, size_t outlen, int seed);	/* writes out[0, outlen) */
long sum_rows(const unsigned char *const *rows, int n, int width);	/* reads n rows */
void fill_rows(unsigned char **rows, unsigned num_rows, int width, int v);	/* writes them */
long peek(const unsigned char *in, int mode);			/* reads in[0]: no length */
int hand_out(char **out, int len);				/* *out = a static buffer */

#endif
