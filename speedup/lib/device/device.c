/* device.c - reads a device description (models/devices/NAME.csv, doc/devices.md) and
 * gives a kernel's time on it.  The file's sources stay in the file: the tools need only
 * the numbers. */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "device.h"
#include "input.h"

const char *const dev_bound_name[BOUNDS] = { "compute", "memory", "launch" };

const char *device_dir(void)
{
	/* beside the command in the tree (bin/), or where make install puts them */
	static const char *const beside[] = { "/../models/devices",
		"/../lib/dyliberator/models/devices" };
	static char dir[PATH_MAX], real[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 64);

	if (n <= 0)
		return "models/devices";
	dir[n] = '\0';
	char *slash = strrchr(dir, '/');
	if (!slash)
		return "models/devices";
	for (int i = 0; i < 2; i++) {
		strcpy(slash, beside[i]);
		if (realpath(dir, real))
			return real;
	}
	strcpy(slash, beside[0]);
	return dir;
}

static int csv_only(const struct dirent *e)
{
	size_t len = strlen(e->d_name);

	return len > 4 && strcmp(e->d_name + len - 4, ".csv") == 0;
}

void device_unknown(const char *name)
{
	struct dirent **e = NULL;
	int n = scandir(device_dir(), &e, csv_only, alphasort);
	char list[2048] = "";
	size_t o = 0;

	for (int i = 0; i < n; i++) {
		if (o < sizeof(list) - 1)
			o += (size_t)snprintf(list + o, sizeof(list) - o, " %.*s",
					      (int)strlen(e[i]->d_name) - 4, e[i]->d_name);
		free(e[i]);
	}
	free(e);
	fprintf(stderr, "%s: unknown device '%s'; known devices:%s\n", input_prog, name,
		o ? list : " none");
}

const char *device_link_path(const struct device *d, char *buf, size_t size)
{
	const char *slash = strrchr(d->path, '/');
	int dirlen = slash ? (int)(slash - d->path) : 1;

	char real[PATH_MAX];

	snprintf(buf, size, "%.*s/../%s.csv", dirlen, slash ? d->path : ".", d->link);
	/* shown without the "/..": the file as a user would name it */
	if (realpath(buf, real) && strlen(real) < size)
		memcpy(buf, real, strlen(real) + 1);
	return buf;
}

/* Linear in ln(size) between the curve's points; its end values beyond them. */
static double curve_at(const struct dev_curve *c, double size)
{
	if (c->n == 0)
		return 1;
	if (size <= c->size[0])
		return c->frac[0];
	for (int i = 1; i < c->n; i++)
		if (size <= c->size[i]) {
			double a = log(size / c->size[i - 1]) / log(c->size[i] / c->size[i - 1]);
			return c->frac[i - 1] + a * (c->frac[i] - c->frac[i - 1]);
		}
	return c->frac[c->n - 1];
}

double device_time(const struct device *d, const struct dev_kernel *k, double work,
		   double bytes, enum dev_bound *bound)
{
	int p = k->prec == PREC_D || k->prec == PREC_Z;
	double peak = d->peak[p][k->unit];
	double compute = work > 0 ? work / (peak * curve_at(&d->eff[p][k->unit], work)) * 1e9 : 0;
	double memory = bytes > 0 ? bytes / (d->bandwidth * curve_at(&d->mem_eff, bytes)) * 1e9 : 0;
	double busy = compute > memory ? compute : memory;

	*bound = d->launch_ns > busy ? BOUND_LAUNCH : compute >= memory ? BOUND_COMPUTE
									 : BOUND_MEMORY;
	return d->launch_ns + busy;
}
