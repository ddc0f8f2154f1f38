/* device_sweep.c - a device's kernel written as a model file, so that it can be read,
 * edited and compared with a measured one.  A model file keys on work alone, and the
 * device's time depends on the bytes too: the rows follow one shape of call per kind,
 * the typical one (square matrices, vectors of one length), with the bytes the trace
 * would record for it (examples/blas.defs).  Calls of that shape get from the file what
 * --device gives them; others differ where memory bounds them. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include "device.h"
#include "device_sweep.h"
#include "input.h"

/* Work (flops) and bytes of K's typical call of size N; E the element's bytes. */
static void shape(const struct dev_kernel *k, double n, double e, double *work, double *bytes)
{
	switch (k->level) {
	case 3:	/* C = A B: A and B read, C written (beta 0) */
		*work = 2 * n * n * n, *bytes = 3 * n * n * e;
		break;
	case 2:	/* y = A x: A and x read, y written */
		*work = 2 * n * n, *bytes = (n * n + 2 * n) * e;
		break;
	case 1:	/* y = a x + y: x and y read, y written */
		*work = 2 * n, *bytes = 3 * n * e;
		break;
	default:	/* a complex FFT of N points: 5 N log2 N flops, in and out */
		*work = 5 * n * log2(n), *bytes = 2 * n * e;
	}
}

static const char *const shape_text[] = { "", "y = a x + y over n elements (work 2n, bytes 3n e)",
	"y = A x, A n x n (work 2n^2, bytes (n^2 + 2n) e)",
	"C = A B, all n x n, beta 0 (work 2n^3, bytes 3n^2 e)",
	"a complex FFT of n points (work 5 n log2 n, bytes 2n e)" };

static void sweep_one(FILE *out, const struct device *d, const char *func,
		      const struct dev_kernel *k)
{
	static const double esize[PRECS] = { 4, 8, 8, 16 };
	static const int top[5] = { 0, 28, 16, 15, 26 };	/* the largest n, log2 */
	double last = 0;

	fprintf(out, "# %s on %s: t_ns = launch + max(work / (peak x eff(work)), bytes / "
		"(bandwidth x mem_eff(bytes))), along %s, e = %g bytes\n", func, d->name,
		shape_text[k->level], esize[k->prec]);
	for (int q = 16; q <= 4 * top[k->level]; q++) {	/* n = 2^(q/4), from 16 */
		double n = round(pow(2, q / 4.0)), work, bytes;
		enum dev_bound b;
		if (n == last)
			continue;
		last = n;
		shape(k, n, esize[k->prec], &work, &bytes);
		work = round(work);
		fprintf(out, "%s,%.0f,%.3f\n", func, work, device_time(d, k, work, bytes, &b));
	}
}

int device_sweep(FILE *out, const char *name, const char *const *funcs, int nfuncs)
{
	struct device d;
	struct dev_kernel k;
	int rc = device_load(name, &d);

	if (rc == 1)
		device_unknown(name);
	if (rc != 0)
		return 2;
	if (nfuncs == 0) {
		input_error(NULL, 0, "--device: name the functions with -f FUNC");
		return 2;
	}
	for (int i = 0; i < nfuncs; i++)
		if (dev_kernel_of(funcs[i], &k) != 0) {
			input_error(NULL, 0, "--device %s: '%s' is not among the functions its libraries "
				    "provide (doc/devices.md)", d.name, funcs[i]);
			return 2;
		}
	fprintf(out, "# Model of device %s (%s), from %s: its published figures and their\n"
		"# sources are in that file; written by dyl-model --device (doc/devices.md).\n",
		d.name, d.title, d.path);
	if (d.link[0])
		fprintf(out, "# Link: models/%s.csv.\n", d.link);
	else
		fputs("# Link: none (a host device: its data does not move).\n", out);
	fputs("func,work,t_ns\n", out);
	for (int i = 0; i < nfuncs; i++) {
		dev_kernel_of(funcs[i], &k);
		sweep_one(out, &d, funcs[i], &k);
	}
	return 0;
}
