/* kclass.c - which functions a device's libraries provide (cuBLAS, cuSOLVER, cuFFT and
 * their AMD and Intel counterparts all give these), by name: BLAS levels 1-3 in s, d, c,
 * z (Fortran dgemm_ or dgemm, C cblas_dgemm), the LAPACK factorizations and solves
 * (getrf, getrs, potrf, potrs, geqrf, gesv; also LAPACKE_), and FFTW's executes. */
#define _GNU_SOURCE
#include <string.h>
#include "device.h"

/* Level 3 runs on the matrix units; levels 1 and 2 and FFTs on the vector units. */
static const char *const level3[] = { "gemm", "symm", "hemm", "syrk", "herk", "syr2k",
	"her2k", "trmm", "trsm", "getrf", "getrs", "potrf", "potrs", "geqrf", "gesv", NULL };
static const char *const level2[] = { "gemv", "gbmv", "hemv", "hbmv", "hpmv", "symv", "sbmv",
	"spmv", "trmv", "tbmv", "tpmv", "trsv", "tbsv", "tpsv", "ger", "geru", "gerc", "her",
	"hpr", "her2", "hpr2", "syr", "spr", "syr2", "spr2", NULL };
static const char *const level1[] = { "axpy", "dot", "dotu", "dotc", "scal", "nrm2", "asum",
	"amax", "amin", "copy", "swap", "rot", "rotm", NULL };

static int in(const char *const *list, const char *s, size_t len)
{
	for (int i = 0; list[i]; i++)
		if (strlen(list[i]) == len && memcmp(list[i], s, len) == 0)
			return 1;
	return 0;
}

static int fft_of(const char *name, struct dev_kernel *k)
{
	int single = strncmp(name, "fftwf_execute", 13) == 0;

	if (!single && strncmp(name, "fftw_execute", 12) != 0)
		return -1;
	*k = (struct dev_kernel){ single ? PREC_C : PREC_Z, UNIT_VECTOR, 4 };
	return 0;
}

int dev_kernel_of(const char *name, struct dev_kernel *k)
{
	static const char precs[] = "sdcz";
	const char *p;
	size_t len;

	if (fft_of(name, k) == 0)
		return 0;
	if (strncmp(name, "cblas_", 6) == 0)
		name += 6;
	else if (strncmp(name, "LAPACKE_", 8) == 0)
		name += 8;
	if (name[0] == 'i' && (p = strchr(precs, name[1])) && name[1])	/* idamax_ */
		name++;
	if (!name[0] || !(p = strchr(precs, name[0])))
		return -1;
	len = strlen(name + 1);
	if (len && name[len] == '_')		/* Fortran's trailing underscore */
		len--;
	k->prec = (enum dev_prec)(p - precs);
	k->unit = in(level3, name + 1, len) ? UNIT_MATRIX : UNIT_VECTOR;
	k->level = k->unit == UNIT_MATRIX ? 3 : in(level2, name + 1, len) ? 2
		   : in(level1, name + 1, len) ? 1 : 0;
	return k->level ? 0 : -1;
}
