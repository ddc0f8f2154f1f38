/* fftw_repeat.c - tests/libraries/test_fftw.py: one FFTW plan executed again and again.
 *
 *   fftw_repeat N REPS [MODE]
 *
 * Plans a complex-to-complex transform of N points once (FFTW_ESTIMATE: planning does not
 * touch the arrays), then REPS times: fills the input, executes the plan, and reads the
 * whole output (a checksum).  A port would move the input in and the output back each
 * time: REPS x N x 16 bytes each way.  MODE "new" executes through fftw_execute_dft with
 * a second pair of arrays every other time; "r2c" plans a real-to-complex transform
 * (N reals in, N/2 + 1 complex out) instead.  MODE "shapes" (N and REPS unused) makes
 * one plan of each form examples/fftw.defs binds (dft, r2c and c2r in 2 and 3 dimensions
 * and of any rank, c2r in 1, and the _many forms, strided too) on arrays of 8 x 6 x 4 at
 * most and executes each once, in the order of shapes[] below.  Prints the checksum:
 * the same with and without the wrapper.
 */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fill_c2c(fftw_complex *in, int n, int rep)
{
	for (int i = 0; i < n; i++) {
		in[i][0] = sin(0.001 * i + rep);
		in[i][1] = cos(0.002 * i - rep);
	}
}

static double sum_c(const fftw_complex *out, int n)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += fabs(out[i][0]) + fabs(out[i][1]);
	return s;
}

static int c2c(int n, int reps, int other)
{
	fftw_complex *in = fftw_alloc_complex((size_t)n), *out = fftw_alloc_complex((size_t)n);
	fftw_complex *in2 = NULL, *out2 = NULL;
	double sum = 0;

	if (!in || !out)
		return 1;
	if (other) {
		in2 = fftw_alloc_complex((size_t)n);
		out2 = fftw_alloc_complex((size_t)n);
		if (!in2 || !out2)
			return 1;
	}
	fftw_plan p = fftw_plan_dft_1d(n, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
	for (int r = 0; r < reps; r++) {
		if (other && r % 2) {
			fill_c2c(in2, n, r);
			fftw_execute_dft(p, in2, out2);
			sum += sum_c(out2, n);
		} else {
			fill_c2c(in, n, r);
			fftw_execute(p);
			sum += sum_c(out, n);
		}
	}
	fftw_destroy_plan(p);
	printf("checksum %.6e\n", sum);
	fftw_free(in);
	fftw_free(out);
	fftw_free(in2);
	fftw_free(out2);
	return 0;
}

static int r2c(int n, int reps)
{
	double *in = fftw_alloc_real((size_t)n);
	fftw_complex *out = fftw_alloc_complex((size_t)n / 2 + 1);
	double sum = 0;

	if (!in || !out)
		return 1;
	fftw_plan p = fftw_plan_dft_r2c_1d(n, in, out, FFTW_ESTIMATE);
	for (int r = 0; r < reps; r++) {
		for (int i = 0; i < n; i++)
			in[i] = sin(0.001 * i + r);
		fftw_execute(p);
		sum += sum_c(out, n / 2 + 1);
	}
	fftw_destroy_plan(p);
	printf("checksum %.6e\n", sum);
	fftw_free(in);
	fftw_free(out);
	return 0;
}

/* one plan of each form, executed once (the sizes are test_fftw.py's) */
static int shapes(void)
{
	static const int n2[] = { 8, 6 }, n3[] = { 8, 6, 4 }, n16[] = { 16 };
	fftw_complex *a = fftw_alloc_complex(256), *b = fftw_alloc_complex(256);
	double *x = fftw_alloc_real(512), *y = fftw_alloc_real(512);
	fftw_plan p[14];
	double sum = 0;
	int k = 0;

	if (!a || !b || !x || !y)
		return 1;
	p[k++] = fftw_plan_dft_2d(8, 6, a, b, FFTW_FORWARD, FFTW_ESTIMATE);
	p[k++] = fftw_plan_dft_3d(8, 6, 4, a, b, FFTW_FORWARD, FFTW_ESTIMATE);
	p[k++] = fftw_plan_dft(3, n3, a, b, FFTW_BACKWARD, FFTW_ESTIMATE);
	p[k++] = fftw_plan_dft_r2c_2d(8, 6, x, a, FFTW_ESTIMATE);
	p[k++] = fftw_plan_dft_r2c_3d(8, 6, 4, x, a, FFTW_ESTIMATE);
	p[k++] = fftw_plan_dft_r2c(2, n2, x, a, FFTW_ESTIMATE);
	p[k++] = fftw_plan_dft_c2r_1d(8, a, y, FFTW_ESTIMATE);
	p[k++] = fftw_plan_dft_c2r_2d(8, 6, a, y, FFTW_ESTIMATE);
	p[k++] = fftw_plan_dft_c2r_3d(8, 6, 4, a, y, FFTW_ESTIMATE);
	p[k++] = fftw_plan_dft_c2r(2, n2, a, y, FFTW_ESTIMATE);
	/* 3 transforms of 16 one after the other; 2 interleaved (stride 2, distance 1) */
	p[k++] = fftw_plan_many_dft(1, n16, 3, a, NULL, 1, 16, b, NULL, 1, 16, FFTW_FORWARD,
				    FFTW_ESTIMATE);
	p[k++] = fftw_plan_many_dft(1, n16, 2, a, NULL, 2, 1, b, NULL, 2, 1, FFTW_FORWARD,
				    FFTW_ESTIMATE);
	p[k++] = fftw_plan_many_dft_r2c(1, n16, 3, x, NULL, 1, 16, a, NULL, 1, 9, FFTW_ESTIMATE);
	p[k++] = fftw_plan_many_dft_c2r(1, n16, 3, a, NULL, 1, 9, y, NULL, 1, 16, FFTW_ESTIMATE);
	for (int i = 0; i < k; i++) {
		if (!p[i])
			return 1;
		for (int j = 0; j < 256; j++) {
			a[j][0] = sin(0.1 * j + i);
			a[j][1] = cos(0.2 * j);
			x[j] = x[256 + j] = cos(0.3 * j - i);
		}
		fftw_execute(p[i]);
		sum += sum_c(b, 256) + sum_c(a, 256);
		for (int j = 0; j < 512; j++)
			sum += fabs(y[j]);
		fftw_destroy_plan(p[i]);
	}
	printf("checksum %.6e\n", sum);
	fftw_free(a);
	fftw_free(b);
	fftw_free(x);
	fftw_free(y);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: fftw_repeat N REPS [new|r2c|shapes]\n");
		return 2;
	}
	int n = atoi(argv[1]), reps = atoi(argv[2]);
	const char *mode = argc > 3 ? argv[3] : "";

	if (n <= 0 || reps < 0)
		return 2;
	if (!strcmp(mode, "shapes"))
		return shapes();
	if (!strcmp(mode, "r2c"))
		return r2c(n, reps);
	return c2c(n, reps, !strcmp(mode, "new"));
}
