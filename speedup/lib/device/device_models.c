/* device_models.c - a device's kernels made into models when a trace first names them. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "device_models.h"
#include "grow.h"
#include "input.h"
#include "model.h"
#include "model2d.h"

static double dev_eval(const struct model *m, double work, double bytes, int *bound)
{
	const struct dev_class *c = m->ctx;
	enum dev_bound b;
	double t = device_time(c->d, &c->k, work, bytes, &b);

	*bound = (int)b;
	return t;
}

/* One sample at 0 in each array: the readers see a model keyed on work and bytes. */
static int dev_model(struct device_models *dm, struct models *ms, const char *name,
		     const struct dev_kernel *k)
{
	struct model *m = models_new(ms, name, dm->dev.path);

	if (!m)
		return -1;
	m->w = calloc(1, sizeof(double));
	m->t = calloc(1, sizeof(double));
	m->b = calloc(1, sizeof(double));
	m->n = m->room = 1;
	m->keyed = 2;
	m->eval2 = dev_eval;
	m->ctx = &dm->cls[k->prec][k->level];
	dm->cls[k->prec][k->level] = (struct dev_class){ &dm->dev, *k };
	if (!m->w || !m->t || !m->b || model2d_build(m) != 0)
		return -1;
	return ms->n - 1;
}

static int provide(struct models *ms, const char *name)
{
	struct device_models *dm = ms->provide_ctx;
	struct dev_kernel k;

	if (name[0] != MODEL_LINK_PREFIX && dev_kernel_of(name, &k) == 0)
		return dev_model(dm, ms, name, &k);
	if (grow(&dm->missing, sizeof(*dm->missing), (size_t)dm->nmissing, &dm->room, 8) == 0)
		dm->missing[dm->nmissing++] = name;
	return -1;
}

int device_models_attach(struct device_models *dm, struct models *ms, const char *name,
			 int no_link)
{
	struct input_file f;
	int rc;

	memset(dm, 0, sizeof(*dm));
	rc = device_load(name, &dm->dev);
	if (rc == 1)
		device_unknown(name);
	if (rc != 0)
		return rc;
	ms->provide = provide;
	ms->provide_ctx = dm;
	if ((dm->linkless = !dm->dev.link[0]))
		return 0;
	device_link_path(&dm->dev, dm->link_path, sizeof(dm->link_path));
	if ((dm->no_link = no_link))
		return 0;
	if (input_open(&f, dm->link_path) != 0)
		return -1;
	rc = models_load(ms, &f);
	input_close(&f);
	return rc;
}

void device_models_free(struct device_models *dm)
{
	free(dm->missing);
	dm->missing = NULL;
}
