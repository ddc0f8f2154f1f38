/* device_models.h - a device's kernels as models (model.h): each traced function the
 * device's libraries provide gets a computed model, keyed on work and bytes, when first
 * met; the device's link model (models/link-*.csv) is loaded beside them, so the
 * residency simulation adds the transfers.  Functions not provided stay on the host. */
#ifndef SPEEDUP_DEVICE_MODELS_H
#define SPEEDUP_DEVICE_MODELS_H

#include "device.h"

struct models;

struct dev_class {
	const struct device *d;
	struct dev_kernel k;
};

struct device_models {
	struct device dev;
	char link_path[4200];	/* its link model's file (the link models name it) */
	struct dev_class cls[PRECS][5];	/* a model's context: by precision and level */
	const char **missing;	/* traced functions the device does not provide */
	int nmissing;
	size_t room;
	int no_link;		/* the link model was not loaded: a trace has no TRACE.flow */
	int linkless;		/* the device has no link (the host): no transfers */
};

/* Loads device NAME into DM and attaches it to MS: its link model (unless NO_LINK: the
 * residency simulation needs every trace's TRACE.flow), and the hook that makes the
 * kernels' models.  A device without a link (the host) loads none.  0; 1 unknown device (the known ones listed); -1 after a message. */
int device_models_attach(struct device_models *dm, struct models *ms, const char *name,
			 int no_link);
/* Frees what DM holds (not the models: models_free). */
void device_models_free(struct device_models *dm);

#endif
