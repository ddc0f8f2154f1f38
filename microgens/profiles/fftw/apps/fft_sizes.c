/* fft_sizes.c - FFTW plans of known sizes, each executed REPS times, for the fftw
 * profile's test (microgens/profiles/fftw/test_profile_fftw.py):
 *
 *   fft_sizes N REPS     a 1-D complex plan of N points, a 1-D r2c of N reals, and a
 *                        batch of 4 complex transforms of N points (fftw_plan_many_dft),
 *                        each executed REPS times; then the single-precision 1-D complex
 *                        plan (fftwf_), executed REPS times.
 *
 * Build: cc -O2 -o fft_sizes fft_sizes.c -lfftw3 -lfftw3f -lm
 */
#include <stdio.h>
#include <stdlib.h>
#include <fftw3.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1024, reps = argc > 2 ? atoi(argv[2]) : 3;
	fftw_complex *a = fftw_malloc(sizeof(fftw_complex) * 4 * n);
	fftw_complex *b = fftw_malloc(sizeof(fftw_complex) * 4 * n);
	double *r = fftw_malloc(sizeof(double) * n);
	fftwf_complex *fa = fftwf_malloc(sizeof(fftwf_complex) * n);
	fftwf_complex *fb = fftwf_malloc(sizeof(fftwf_complex) * n);

	if (n < 1 || reps < 0 || !a || !b || !r || !fa || !fb)
		return 2;
	for (int i = 0; i < 4 * n; i++)
		a[i][0] = i % 7, a[i][1] = 0;
	for (int i = 0; i < n; i++)
		r[i] = i % 5, fa[i][0] = i % 3, fa[i][1] = 0;
	fftw_plan c2c = fftw_plan_dft_1d(n, a, b, FFTW_FORWARD, FFTW_ESTIMATE);
	fftw_plan r2c = fftw_plan_dft_r2c_1d(n, r, b, FFTW_ESTIMATE);
	fftw_plan many = fftw_plan_many_dft(1, &n, 4, a, NULL, 1, n, b, NULL, 1, n,
					    FFTW_FORWARD, FFTW_ESTIMATE);
	fftwf_plan fc2c = fftwf_plan_dft_1d(n, fa, fb, FFTW_FORWARD, FFTW_ESTIMATE);
	for (int i = 0; i < reps; i++) {
		fftw_execute(c2c);
		fftw_execute(r2c);
		fftw_execute(many);
		fftwf_execute(fc2c);
	}
	printf("%g %g\n", b[0][0], (double)fb[0][0]);
	fftw_destroy_plan(c2c);
	fftw_destroy_plan(r2c);
	fftw_destroy_plan(many);
	fftwf_destroy_plan(fc2c);
	fftw_free(a), fftw_free(b), fftw_free(r), fftwf_free(fa), fftwf_free(fb);
	return 0;
}
