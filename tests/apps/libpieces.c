/* libpieces - the library of pieces.h */
#include "pieces.h"

long consume(const unsigned char *in, int inl)
{
	long s = 0;
	for (int i = 0; i < inl; i++)
		s += in[i];
	return s;
}

void produce(unsigned char *out, size_t outlen, int seed)
{
	for (size_t i = 0; i < outlen; i++)
		out[i] = (unsigned char)(1 + (i * 7 + (size_t)seed) % 251);	/* never 0 */
}

long sum_rows(const unsigned char *const *rows, int n, int width)
{
	long s = 0;
	for (int r = 0; r < n; r++)
		for (int i = 0; i < width; i++)
			s += rows[r][i];
	return s;
}

void fill_rows(unsigned char **rows, unsigned num_rows, int width, int v)
{
	for (unsigned r = 0; r < num_rows; r++)
		for (int i = 0; i < width; i++)
			rows[r][i] = (unsigned char)(1 + (v + r + (unsigned)i) % 251);	/* never 0 */
}

long peek(const unsigned char *in, int mode)
{
	return in[0] + mode;
}

int hand_out(char **out, int len)
{
	static char buf[64];
	*out = buf;
	return len < 64 ? len : 64;
}
