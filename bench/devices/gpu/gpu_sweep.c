/* gpu_sweep - times cuBLAS, cuSOLVER and cuFFT kernels on device-resident data and writes
 * them as a model CSV (func,work,t_ns,samples,bytes,shape; doc/model-format.md).
 *
 *   gpu_sweep [-r REPS] [--quick] [--dry-run] [--command TEXT] > models/measured/DEVICE-DATE.csv
 *
 * --dry-run lists the calls (func, work, bytes, shape) with t_ns 0, without CUDA.
 *
 * The CUDA libraries are dlopen()ed from /usr/local/cuda, so this file compiles on a
 * machine without CUDA headers (the tests do: cc -c).  Each kernel runs twice as warm-up,
 * then REPS times (default 15), each call between two CUDA events on the default stream;
 * the row's t_ns is the median.  work and bytes are what the wrapper records for the same
 * Fortran call (microgens/profiles/blas/, lapack/; FFT: 5 n log2 n, as dyl-model --device),
 * so the file is a model of the kernels alone (no transfers: see bench/devices/gpu/). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Declared here, not from the CUDA headers.  Handles are opaque pointers; cufftHandle is
 * an int; every status is an int whose 0 means success. */
typedef void *cuda_event;
typedef void *blas_handle;
typedef void *solver_handle;
typedef int fft_handle;

/* cudaMemcpyKind: CUDA Runtime API, "Data types used by CUDA Runtime", enum cudaMemcpyKind
 * (cudaMemcpyHostToHost 0, HostToDevice 1, DeviceToHost 2, DeviceToDevice 3). */
enum { H2D = 1, D2D = 3 };
/* cublasOperation_t: cuBLAS library, "cublasOperation_t" (CUBLAS_OP_N 0, _T 1, _C 2). */
enum { OP_N = 0 };
/* cublasFillMode_t: cuBLAS library, "cublasFillMode_t" (CUBLAS_FILL_MODE_LOWER 0, UPPER 1). */
enum { FILL_LOWER = 0 };
/* cufftType: cuFFT API reference, "cufftType" (CUFFT_Z2Z 0x69, double complex to complex);
 * direction: "cufftExecC2C() and cufftExecZ2Z()" (CUFFT_FORWARD -1). */
enum { FFT_Z2Z = 0x69, FFT_FORWARD = -1 };

/* The entry points used, each with its documented prototype. */
struct api {
	/* CUDA Runtime API: 6.1 Device Management, 6.9 Memory Management, 6.6 Event Management */
	int (*get_props)(void *prop, int dev);	/* cudaGetDeviceProperties(_v2): name[256] first */
	int (*driver_version)(int *v);		/* cudaDriverGetVersion */
	int (*runtime_version)(int *v);		/* cudaRuntimeGetVersion */
	int (*malloc_)(void **p, size_t n);	/* cudaMalloc */
	int (*free_)(void *p);			/* cudaFree */
	int (*memcpy_)(void *d, const void *s, size_t n, int kind);	/* cudaMemcpy */
	int (*sync)(void);			/* cudaDeviceSynchronize */
	int (*event_create)(cuda_event *e);	/* cudaEventCreate */
	int (*event_record)(cuda_event e, void *stream);	/* cudaEventRecord */
	int (*event_sync)(cuda_event e);	/* cudaEventSynchronize */
	int (*elapsed)(float *ms, cuda_event a, cuda_event b);	/* cudaEventElapsedTime(_v2) */
	/* cuBLAS: 2.4 cuBLAS Helper Function Reference; 2.6.8 cublas<t>gemv; 2.7.1 cublas<t>gemm */
	int (*blas_create)(blas_handle *h);	/* cublasCreate_v2 */
	int (*dgemm)(blas_handle, int ta, int tb, int m, int n, int k, const double *alpha,
		     const double *a, int lda, const double *b, int ldb, const double *beta,
		     double *c, int ldc);	/* cublasDgemm_v2 */
	int (*sgemm)(blas_handle, int ta, int tb, int m, int n, int k, const float *alpha,
		     const float *a, int lda, const float *b, int ldb, const float *beta,
		     float *c, int ldc);	/* cublasSgemm_v2 */
	int (*dgemv)(blas_handle, int t, int m, int n, const double *alpha, const double *a,
		     int lda, const double *x, int incx, const double *beta, double *y,
		     int incy);			/* cublasDgemv_v2 */
	/* cuSOLVER: 2.4 Dense LAPACK Function Reference, cusolverDn<t>getrf, getrs, potrf */
	int (*solver_create)(solver_handle *h);	/* cusolverDnCreate */
	int (*getrf_size)(solver_handle, int m, int n, double *a, int lda, int *lwork);
	int (*getrf)(solver_handle, int m, int n, double *a, int lda, double *work, int *ipiv,
		     int *info);		/* cusolverDnDgetrf */
	int (*getrs)(solver_handle, int trans, int n, int nrhs, const double *a, int lda,
		     const int *ipiv, double *b, int ldb, int *info);	/* cusolverDnDgetrs */
	int (*potrf_size)(solver_handle, int uplo, int n, double *a, int lda, int *lwork);
	int (*potrf)(solver_handle, int uplo, int n, double *a, int lda, double *work,
		     int lwork, int *info);	/* cusolverDnDpotrf */
	/* cuFFT: 3.2 cuFFT Plans (cufftPlan1d), 3.9 cuFFT Execution (cufftExecZ2Z) */
	int (*plan1d)(fft_handle *p, int nx, int type, int batch);
	int (*exec_z2z)(fft_handle p, void *in, void *out, int direction);
	int (*fft_destroy)(fft_handle p);	/* cufftDestroy */
};

/* The run's state: the API, its handles, the two timing events, the options. */
struct sweep {
	struct api a;
	blas_handle blas;
	solver_handle solver;
	cuda_event start, stop;
	int reps, quick, dry;	/* dry: --dry-run, the rows without a GPU (t_ns 0) */
	const char *command;
	double *host;		/* scratch host buffer for the inputs */
};

/* One library from /usr/local/cuda: the development name first, then the sonames of CUDA
 * 13, 12 and 11. */
static void *open_lib(const char *name)
{
	static const char *dirs[] = {"/usr/local/cuda/lib64/", "/usr/local/cuda/lib/",
				     "/usr/local/cuda/targets/x86_64-linux/lib/", ""};
	static const char *ver[] = {"", ".13", ".12", ".11"};
	char path[512];

	for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++)
		for (size_t v = 0; v < sizeof ver / sizeof *ver; v++) {
			snprintf(path, sizeof path, "%slib%s.so%s", dirs[d], name, ver[v]);
			void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
			if (h)
				return h;
		}
	fprintf(stderr, "gpu_sweep: cannot load lib%s.so from /usr/local/cuda: %s\n", name, dlerror());
	return NULL;
}

/* dlsym of the first name that exists (the _v2 forms of newer CUDA first). */
static int sym(void *lib, void *fn, const char *name, const char *alt)
{
	void *p = dlsym(lib, name);
	if (!p && alt)
		p = dlsym(lib, alt);
	if (!p) {
		fprintf(stderr, "gpu_sweep: symbol %s not found\n", name);
		return -1;
	}
	memcpy(fn, &p, sizeof p);
	return 0;
}

static int load(struct api *a)
{
	void *rt = open_lib("cudart"), *bl = open_lib("cublas"), *so = open_lib("cusolver"),
	     *ff = open_lib("cufft");
	if (!rt || !bl || !so || !ff)
		return -1;
	return sym(rt, &a->get_props, "cudaGetDeviceProperties_v2", "cudaGetDeviceProperties") |
	       sym(rt, &a->driver_version, "cudaDriverGetVersion", NULL) |
	       sym(rt, &a->runtime_version, "cudaRuntimeGetVersion", NULL) |
	       sym(rt, &a->malloc_, "cudaMalloc", NULL) | sym(rt, &a->free_, "cudaFree", NULL) |
	       sym(rt, &a->memcpy_, "cudaMemcpy", NULL) |
	       sym(rt, &a->sync, "cudaDeviceSynchronize", NULL) |
	       sym(rt, &a->event_create, "cudaEventCreate", NULL) |
	       sym(rt, &a->event_record, "cudaEventRecord", NULL) |
	       sym(rt, &a->event_sync, "cudaEventSynchronize", NULL) |
	       sym(rt, &a->elapsed, "cudaEventElapsedTime_v2", "cudaEventElapsedTime") |
	       sym(bl, &a->blas_create, "cublasCreate_v2", NULL) |
	       sym(bl, &a->dgemm, "cublasDgemm_v2", NULL) | sym(bl, &a->sgemm, "cublasSgemm_v2", NULL) |
	       sym(bl, &a->dgemv, "cublasDgemv_v2", NULL) |
	       sym(so, &a->solver_create, "cusolverDnCreate", NULL) |
	       sym(so, &a->getrf_size, "cusolverDnDgetrf_bufferSize", NULL) |
	       sym(so, &a->getrf, "cusolverDnDgetrf", NULL) | sym(so, &a->getrs, "cusolverDnDgetrs", NULL) |
	       sym(so, &a->potrf_size, "cusolverDnDpotrf_bufferSize", NULL) |
	       sym(so, &a->potrf, "cusolverDnDpotrf", NULL) |
	       sym(ff, &a->plan1d, "cufftPlan1d", NULL) | sym(ff, &a->exec_z2z, "cufftExecZ2Z", NULL) |
	       sym(ff, &a->fft_destroy, "cufftDestroy", NULL);
}

static int check(int status, const char *what)
{
	if (status)
		fprintf(stderr, "gpu_sweep: %s failed (status %d)\n", what, status);
	return status;
}

/* A device buffer of n doubles (n floats when single): random values in [-0.5, 0.5),
 * plus diag on the diagonal of an n x n (ld = rows) matrix when rows > 0, symmetric when
 * symm (for potrf). */
static void *device_buffer(struct sweep *s, size_t n, size_t rows, double diag, int symm,
			   int single)
{
	unsigned seed = 12345;
	void *d = NULL;
	size_t e = single ? sizeof(float) : sizeof(double);

	if (s->dry)
		return NULL;

	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		double v = (double)(seed >> 16 & 0x7fff) / 32768.0 - 0.5;
		if (single)
			((float *)s->host)[i] = (float)v;
		else
			s->host[i] = v;
	}
	for (size_t j = 0; rows && j < rows; j++) {
		for (size_t i = 0; symm && i < j; i++)
			s->host[j + i * rows] = s->host[i + j * rows];
		s->host[j + j * rows] += diag;
	}
	if (check(s->a.malloc_(&d, n * e + 64), "cudaMalloc") ||
	    check(s->a.memcpy_(d, s->host, n * e, H2D), "cudaMemcpy")) {
		fprintf(stderr, "gpu_sweep: a buffer of %zu bytes\n", n * e);
		exit(1);
	}
	return d;
}

static void release(struct sweep *s, void *p)
{
	if (!s->dry)
		s->a.free_(p);
}

static void *device_matrix(struct sweep *s, size_t n, size_t rows, double diag, int symm)
{
	return device_buffer(s, n, rows, diag, symm, 0);
}

/* One timed kernel: what to run, and the copy that restores its input first (untimed). */
struct job {
	int (*run)(struct sweep *, struct job *);
	void *restore_to, *restore_from;
	size_t restore_bytes;
	int m, n, k, lwork;
	void *a, *b, *c, *work;
	int *ipiv, *info;
	fft_handle plan;
};

static int cmp_float(const void *x, const void *y)
{
	float a = *(const float *)x, b = *(const float *)y;
	return (a > b) - (a < b);
}

/* Two warm-up calls, then REPS calls between events: the median in ns, or -1. */
static double median_ns(struct sweep *s, struct job *j)
{
	float ms[256];
	int reps = s->reps < 256 ? s->reps : 256;

	if (s->dry)
		return 0;

	for (int r = -2; r < reps; r++) {
		if (j->restore_bytes && check(s->a.memcpy_(j->restore_to, j->restore_from,
							  j->restore_bytes, D2D), "restore"))
			return -1;
		if (check(s->a.event_record(s->start, NULL), "cudaEventRecord") ||
		    check(j->run(s, j), "kernel") ||
		    check(s->a.event_record(s->stop, NULL), "cudaEventRecord") ||
		    check(s->a.event_sync(s->stop), "cudaEventSynchronize"))
			return -1;
		if (r >= 0 && check(s->a.elapsed(&ms[r], s->start, s->stop), "cudaEventElapsedTime"))
			return -1;
	}
	qsort(ms, (size_t)reps, sizeof *ms, cmp_float);
	double mid = reps % 2 ? ms[reps / 2] : (ms[reps / 2 - 1] + ms[reps / 2]) / 2.0;
	return mid * 1e6;
}

/* One CSV row; shape says the call in words (m x n x k, n, n points). */
static void row(struct sweep *s, const char *func, double work, double t_ns, double bytes,
		const char *shape)
{
	if (t_ns < 0) {
		fprintf(stderr, "gpu_sweep: %s at work %.0f: no time, row left out\n", func, work);
		return;
	}
	printf("%s,%.0f,%.3f,%d,%.0f,%s\n", func, work, t_ns, s->reps, bytes, shape);
	fflush(stdout);
}

static int run_dgemm(struct sweep *s, struct job *j)
{
	const double one = 1.0, zero = 0.0;
	return s->a.dgemm(s->blas, OP_N, OP_N, j->m, j->n, j->k, &one, j->a, j->m, j->b, j->k,
			  &zero, j->c, j->m);
}

static int run_sgemm(struct sweep *s, struct job *j)
{
	const float one = 1.0f, zero = 0.0f;
	return s->a.sgemm(s->blas, OP_N, OP_N, j->m, j->n, j->k, &one, j->a, j->m, j->b, j->k,
			  &zero, j->c, j->m);
}

/* C = A B, A m x k, B k x n, beta 0: work 2mnk, bytes e (mk + kn + mn) (blas.defs). */
static void gemm(struct sweep *s, int dbl, int m, int n, int k)
{
	size_t e = dbl ? 8 : 4;
	struct job j = {.run = dbl ? run_dgemm : run_sgemm, .m = m, .n = n, .k = k};
	j.a = device_buffer(s, (size_t)m * k, 0, 0, 0, !dbl);
	j.b = device_buffer(s, (size_t)k * n, 0, 0, 0, !dbl);
	j.c = device_buffer(s, (size_t)m * n, 0, 0, 0, !dbl);
	char shape[64];
	snprintf(shape, sizeof shape, "%dx%dx%d", m, n, k);
	row(s, dbl ? "dgemm_" : "sgemm_", 2.0 * m * n * k, median_ns(s, &j),
	    (double)e * ((double)m * k + (double)k * n + (double)m * n), shape);
	release(s, j.a), release(s, j.b), release(s, j.c);
}

static int run_dgemv(struct sweep *s, struct job *j)
{
	const double one = 1.0, zero = 0.0;
	return s->a.dgemv(s->blas, OP_N, j->n, j->n, &one, j->a, j->n, j->b, 1, &zero, j->c, 1);
}

/* y = A x, A n x n, beta 0: work 2n^2, bytes 8 (n^2 + n) in + 8 n out (blas.defs). */
static void gemv(struct sweep *s, int n)
{
	struct job j = {.run = run_dgemv, .n = n};
	j.a = device_matrix(s, (size_t)n * n, 0, 0, 0);
	j.b = device_matrix(s, (size_t)n, 0, 0, 0);
	j.c = device_matrix(s, (size_t)n, 0, 0, 0);
	char shape[32];
	snprintf(shape, sizeof shape, "%dx%d", n, n);
	row(s, "dgemv_", 2.0 * n * n, median_ns(s, &j), 8.0 * ((double)n * n + 2.0 * n), shape);
	release(s, j.a), release(s, j.b), release(s, j.c);
}

static int run_getrf(struct sweep *s, struct job *j)
{
	return s->a.getrf(s->solver, j->n, j->n, j->a, j->n, j->work, j->ipiv, j->info);
}

static int run_getrs(struct sweep *s, struct job *j)
{
	return s->a.getrs(s->solver, OP_N, j->n, j->k, j->a, j->n, j->ipiv, j->b, j->n, j->info);
}

static int run_potrf(struct sweep *s, struct job *j)
{
	return s->a.potrf(s->solver, FILL_LOWER, j->n, j->a, j->n, j->work, j->lwork, j->info);
}

/* dgetrf_ of an n x n matrix (restored before each call), then dgetrs_ of one right-hand
 * side on its factors; work and bytes as lapack.defs counts them (m = n, nrhs 1). */
static void lu(struct sweep *s, int n)
{
	double nn = n, r = 1;
	struct job j = {.run = run_getrf, .n = n, .k = 1};
	void *pristine = device_matrix(s, (size_t)n * n, (size_t)n, nn, 0);
	j.a = device_matrix(s, (size_t)n * n, 0, 0, 0);
	j.b = device_matrix(s, (size_t)n, 0, 0, 0);
	j.restore_to = j.a, j.restore_from = pristine, j.restore_bytes = (size_t)n * n * 8;
	if (!s->dry && (check(s->a.getrf_size(s->solver, n, n, j.a, n, &j.lwork), "getrf_bufferSize") ||
	    check(s->a.malloc_(&j.work, (size_t)j.lwork * 8 + 64), "cudaMalloc") ||
	    check(s->a.malloc_((void **)&j.ipiv, (size_t)n * 4 + 64), "cudaMalloc") ||
	    check(s->a.malloc_((void **)&j.info, 64), "cudaMalloc")))
		exit(1);
	double fm = 0.5 * nn * nn * nn - nn * nn * nn / 6 + 0.5 * nn * nn - 0.5 * nn * nn + 2 * nn / 3;
	double fa = 0.5 * nn * nn * nn - nn * nn * nn / 6 - 0.5 * nn * nn + nn / 6;
	char shape[32];
	snprintf(shape, sizeof shape, "%dx%d", n, n);
	row(s, "dgetrf_", floor(fm + fa + 0.5), median_ns(s, &j), 16.0 * nn * nn + 4.0 * nn, shape);
	j.run = run_getrs, j.restore_bytes = 0;
	row(s, "dgetrs_", floor(r * nn * nn + r * nn * (nn - 1) + 0.5), median_ns(s, &j),
	    8.0 * (nn * nn + 2 * nn * r) + 4.0 * nn, shape);
	release(s, pristine), release(s, j.a), release(s, j.b), release(s, j.work);
	release(s, j.ipiv), release(s, j.info);
}

/* dpotrf_ (lower) of a symmetric, diagonally dominant n x n matrix, restored before each
 * call: work n^3/3 + n^2/2 + n/6, bytes 2 x 8 n (n + 1) / 2 (lapack.defs). */
static void cholesky(struct sweep *s, int n)
{
	double nn = n;
	struct job j = {.run = run_potrf, .n = n};
	void *pristine = device_matrix(s, (size_t)n * n, (size_t)n, nn, 1);
	j.a = device_matrix(s, (size_t)n * n, 0, 0, 0);
	j.restore_to = j.a, j.restore_from = pristine, j.restore_bytes = (size_t)n * n * 8;
	if (!s->dry && (check(s->a.potrf_size(s->solver, FILL_LOWER, n, j.a, n, &j.lwork), "potrf_bufferSize") ||
	    check(s->a.malloc_(&j.work, (size_t)j.lwork * 8 + 64), "cudaMalloc") ||
	    check(s->a.malloc_((void **)&j.info, 64), "cudaMalloc")))
		exit(1);
	double fm = nn * nn * nn / 6 + 0.5 * nn * nn + nn / 3, fa = nn * nn * nn / 6 - nn / 6;
	char shape[32];
	snprintf(shape, sizeof shape, "%dx%d", n, n);
	row(s, "dpotrf_", floor(fm + fa + 0.5), median_ns(s, &j), 8.0 * nn * (nn + 1), shape);
	release(s, pristine), release(s, j.a), release(s, j.work), release(s, j.info);
}

static int run_fft(struct sweep *s, struct job *j)
{
	return s->a.exec_z2z(j->plan, j->a, j->b, FFT_FORWARD);
}

/* A 1-D complex FFT of n points, out of place: work 5 n log2 n, bytes 16 n in + 16 n out
 * (the typical call of dyl-model --device; FFTW's own count is lower on SIMD builds). */
static void fft(struct sweep *s, int log2n)
{
	int n = 1 << log2n;
	struct job j = {.run = run_fft, .n = n};
	j.a = device_matrix(s, 2 * (size_t)n, 0, 0, 0);
	j.b = device_matrix(s, 2 * (size_t)n, 0, 0, 0);
	if (!s->dry && check(s->a.plan1d(&j.plan, n, FFT_Z2Z, 1), "cufftPlan1d"))
		exit(1);
	char shape[32];
	snprintf(shape, sizeof shape, "2^%d", log2n);
	row(s, "fftw_execute", 5.0 * n * log2n, median_ns(s, &j), 32.0 * n, shape);
	if (!s->dry)
		s->a.fft_destroy(j.plan);
	release(s, j.a), release(s, j.b);
}

/* The '#' lines: device, versions, date, command; then the header. */
static int header(struct sweep *s)
{
	static char prop[16384];	/* cudaDeviceProp is about 1 KiB; room for growth */
	int drv = 0, rt = 0;
	char date[32];
	time_t now = time(NULL);

	if (check(s->a.get_props(prop, 0), "cudaGetDeviceProperties"))
		return -1;
	prop[255] = 0;
	s->a.driver_version(&drv), s->a.runtime_version(&rt);
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	printf("# MEASURED model: cuBLAS, cuSOLVER and cuFFT kernels on device-resident data\n"
	       "# (no transfers), median of %d calls timed with CUDA events after 2 warm-up calls.\n"
	       "# device: %s\n# driver: CUDA %d.%d; runtime: CUDA %d.%d\n# date: %s\n"
	       "# command: %s\n# work, bytes: as the wrapper records the Fortran call\n"
	       "# (microgens/profiles/blas, lapack; fftw_execute: 5 n log2 n, 32 n bytes).\n"
	       "func,work,t_ns,samples,bytes,shape\n",
	       s->reps, prop, drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10, date,
	       s->command);
	return 0;
}

static void sweep_all(struct sweep *s)
{
	static const int thin[][3] = {{2048, 8, 2048}, {2048, 32, 2048}, {2048, 128, 2048},
				      {8192, 8, 8192}, {8192, 32, 8192}, {8192, 128, 8192}};
	int top = s->quick ? 256 : 8192;

	for (int dbl = 1; dbl >= 0; dbl--) {
		for (int n = 64; n <= top; n *= 2)
			gemm(s, dbl, n, n, n);
		for (size_t t = 0; !s->quick && t < sizeof thin / sizeof *thin; t++)
			gemm(s, dbl, thin[t][0], thin[t][1], thin[t][2]);
	}
	for (int n = 256; n <= (s->quick ? 512 : 16384); n *= 2)
		gemv(s, n);
	for (int n = 128; n <= top; n *= 2)
		lu(s, n), cholesky(s, n);
	for (int q = 8; q <= (s->quick ? 10 : 22); q++)
		fft(s, q);
}

int main(int argc, char **argv)
{
	struct sweep s = {.reps = 15, .command = "bench/devices/gpu/gpu_sweep"};

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-r") && i + 1 < argc)
			s.reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--quick"))
			s.quick = 1;
		else if (!strcmp(argv[i], "--dry-run"))
			s.dry = 1;
		else if (!strcmp(argv[i], "--command") && i + 1 < argc)
			s.command = argv[++i];
		else {
			fprintf(stderr, "usage: gpu_sweep [-r REPS] [--quick] [--dry-run] [--command TEXT] > out.csv\n");
			return 2;
		}
	}
	if (s.reps < 1 || s.reps > 256) {
		fprintf(stderr, "gpu_sweep: -r must be 1..256\n");
		return 2;
	}
	if (s.dry) {	/* the sizes and their work and bytes, t_ns 0: no CUDA needed */
		printf("func,work,t_ns,samples,bytes,shape\n");
		s.reps = 0;
		sweep_all(&s);
		return 0;
	}
	s.host = malloc(sizeof(double) * 16384 * 16384);	/* the largest input: dgemv 16384 */
	if (!s.host || load(&s.a) || header(&s) ||
	    check(s.a.blas_create(&s.blas), "cublasCreate") ||
	    check(s.a.solver_create(&s.solver), "cusolverDnCreate") ||
	    check(s.a.event_create(&s.start), "cudaEventCreate") ||
	    check(s.a.event_create(&s.stop), "cudaEventCreate"))
		return 1;
	sweep_all(&s);
	return check(s.a.sync(), "cudaDeviceSynchronize") ? 1 : 0;
}
