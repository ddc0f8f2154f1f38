/* model.h - accelerator models: per function (or shell wildcard), samples (work, t_ns) of
 * the accelerated implementation's time, and the piecewise-linear f_k(w) through them;
 * or, when the file has a bytes column, samples (work, bytes, t_ns) and f_k(w, b) over
 * their triangulation (model2d.h). */
#ifndef SPEEDUP_MODEL_H
#define SPEEDUP_MODEL_H

#include <stddef.h>
#include "input.h"

#define MODEL_HEADER "func,work,t_ns"
/* An optional column after t_ns, found by its name: in_bytes + out_bytes of the call */
#define MODEL_BYTES "bytes"

struct model {
	char *pattern;		/* the func column: a name or an fnmatch(3) wildcard */
	const char *shown;	/* the pattern for people (shown.h) */
	const char *file;
	unsigned long line;	/* where the pattern first appears */
	double *w, *t;		/* samples, sorted by w, one per distinct w */
	double *b;		/* keyed on bytes too: each sample's bytes (sorted by w, then b;
				 * one sample per distinct (w, b)); NULL: keyed on work alone */
	struct model2d *twod;	/* with b: the triangulation and the call shapes met */
	size_t n, room;
	int keyed;		/* while loading: 0 no sample yet, 1 work, 2 work and bytes */
	unsigned long keyed_line;	/* the first sample, which decided it */
	unsigned long *lines;	/* the sample's line, while loading (duplicate warnings) */
	int used;		/* it is the model of at least one traced function */
	int shadowed_by;	/* an earlier model (its index in struct models) that took a
				 * function this one matches, or -1 */
	const char *shadowed_func;	/* that function */
	/* its file's '# setup_ns=N': a cost paid once by a process that uses the file's
	 * models (loading the accelerator's library); 0 when none */
	double setup_ns;
	int file_id;		/* which file, in the order given */
	/* a link row's model (func @h2d or @d2h: work = bytes of one transfer, t_ns its
	 * time; doc/residency.md), not a kernel's: MODEL_H2D, MODEL_D2H; 0 a kernel */
	int link;
	/* a computed model (a device's kernel, device.h), keyed on work and bytes: its time
	 * for a call, and in *BOUND what bounds it (an index the computer names); NULL for
	 * a model read from a file */
	double (*eval2)(const struct model *m, double work, double bytes, int *bound);
	const void *ctx;	/* eval2's */
};

#define MODEL_H2D 1
#define MODEL_D2H 2
#define MODEL_LINK_PREFIX '@'	/* funcs starting with it are the link's, not kernels */

/* The models of a command, in the order given: the loader fills it, the readers and the
 * prediction take it.  Zeroed before the first file. */
struct models {
	struct model *m;
	int n;
	size_t room;
	int nfiles;		/* model files loaded */
	/* func_names.h ids below this have been matched (their func's model is an index into
	 * m): each name is matched once, when first met (trace.c) */
	int matched;
	/* called for a name no model matches (--device): may append a model for it and
	 * return its index, or -1; NULL: none */
	int (*provide)(struct models *ms, const char *name);
	void *provide_ctx;
};

/* Reads a model file (its header already recognised) and appends its models to MS.
 * Returns 0, or -1 after printing the error. */
int models_load(struct models *ms, const struct input_file *f);
/* Appends an empty model of PATTERN (copied) read from FILE, or NULL when out of memory:
 * for models made, not read (a device's). */
struct model *models_new(struct models *ms, const char *pattern, const char *file);
/* Frees every model of MS and zeroes it (a long-lived reader, a fuzz target). */
void models_free(struct models *ms);
/* The first model of MS whose pattern matches NAME, in the order the models were given;
 * -1 if none.  Records the match in the models (NAME must outlive them). */
int models_match(struct models *ms, const char *name);

/* The link model of direction DIR (MODEL_H2D, MODEL_D2H): the first one given (marked
 * used); NULL when the files have none. */
const struct model *models_link(struct models *ms, int dir);

/* f_k(w) of a model keyed on work alone (M->b NULL).  *OUT_OF_RANGE is set when W lies
 * outside the samples (extrapolated).  Keyed on bytes too: model2d.h. */
double model_eval(const struct model *m, double w, int *out_of_range);

#endif
