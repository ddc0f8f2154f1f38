/* model2d.c - f(work, bytes): the samples in logarithms, triangulated once (tri.c), and
 * the call shapes met so far with their f, so that a trace of 10^7 calls of a few shapes
 * costs a hash probe per call, not a walk through the triangles.
 *
 * Logarithms: sizes and times span six decades and more, and what matters is their
 * ratios (a sample at 2x the work is as near as one at 0.5x); in plain units the
 * triangles at small sizes would be slivers.  ln(1 + v) rather than ln v, so that a call
 * of work 0 or a model time of 0 is a point like any other; for the sizes and times of
 * real calls (hundreds and more) the difference is nil.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "model.h"
#include "model2d.h"
#include "slots.h"
#include "tri.h"

struct shape {
	int64_t w, b;
	double f;
	int out_of_range;
	int bound;		/* a computed model's (eval2): what bounds it */
};

struct model2d {
	struct tri_mesh mesh;
	struct shape *shapes;
	size_t n, room;
	uint32_t *slots;	/* shape index + 1 by hash of (w, b); open addressing */
	size_t nslots;
	size_t last;		/* the shape of the previous call: runs of one shape are common */
};

void model2d_free(struct model *m)
{
	if (!m->twod)
		return;
	tri_free(&m->twod->mesh);
	free(m->twod->shapes);
	free(m->twod->slots);
	free(m->twod);
	m->twod = NULL;
}

int model2d_build(struct model *m)
{
	if (m->eval2)	/* computed: the cache of shapes alone, no samples to triangulate */
		return (m->twod = calloc(1, sizeof(*m->twod))) ? 0 : -1;

	double *x = malloc(m->n * sizeof(double)), *y = malloc(m->n * sizeof(double));
	double *z = malloc(m->n * sizeof(double));
	int rc = -1;

	m->twod = calloc(1, sizeof(*m->twod));
	if (x && y && z && m->twod) {
		for (size_t i = 0; i < m->n; i++) {
			x[i] = log1p(m->w[i]);
			y[i] = log1p(m->b[i]);
			z[i] = log1p(m->t[i]);
		}
		rc = tri_build(&m->twod->mesh, x, y, z, m->n);
	}
	free(x);
	free(y);
	free(z);
	return rc;
}

double model2d_eval(struct model *m, double work, double bytes, int *out_of_range)
{
	double dist, z = tri_eval(&m->twod->mesh, log1p(work), log1p(bytes), &dist);
	double t = expm1(z);

	*out_of_range = dist > TRI_NEAR;
	return t > 0 ? t : 0;
}

static inline size_t hash(int64_t w, int64_t b)
{
	uint64_t h = ((uint64_t)w * UINT64_C(0x9e3779b97f4a7c15)) ^
		     ((uint64_t)b * UINT64_C(0xc2b2ae3d27d4eb4f));
	return (size_t)(h ^ (h >> 29));
}

static size_t hash_at(const void *ctx, size_t i)
{
	const struct shape *sh = &((const struct model2d *)ctx)->shapes[i];

	return hash(sh->w, sh->b);
}

int64_t model2d_shape(struct model *m, int64_t work, int64_t bytes)
{
	struct model2d *s = m->twod;
	size_t j;

	if (s->n > s->last && s->shapes[s->last].w == work && s->shapes[s->last].b == bytes)
		return (int64_t)s->last;
	if (2 * (s->n + 1) > s->nslots && slots_grow(&s->slots, &s->nslots, 256, s->n, hash_at, s) != 0)
		return -1;
	for (j = hash(work, bytes) & (s->nslots - 1); s->slots[j]; j = (j + 1) & (s->nslots - 1)) {
		const struct shape *sh = &s->shapes[s->slots[j] - 1];
		if (sh->w == work && sh->b == bytes)
			return (int64_t)(s->last = s->slots[j] - 1);
	}
	if (grow(&s->shapes, sizeof(*s->shapes), s->n, &s->room, 64))
		return -1;
	struct shape *sh = &s->shapes[s->n];
	sh->w = work;
	sh->b = bytes;
	sh->bound = 0;
	if (m->eval2) {
		sh->f = m->eval2(m, (double)work, (double)bytes, &sh->bound);
		sh->out_of_range = 0;
	} else
		sh->f = model2d_eval(m, (double)work, (double)bytes, &sh->out_of_range);
	s->slots[j] = (uint32_t)s->n + 1;
	s->last = s->n;
	return (int64_t)s->n++;
}

double model2d_f(const struct model *m, int64_t i, int *out_of_range)
{
	const struct shape *sh = &m->twod->shapes[i];

	*out_of_range = sh->out_of_range;
	return sh->f;
}

int model2d_bound(const struct model *m, int64_t i)
{
	return m->twod->shapes[i].bound;
}

size_t model2d_count(const struct model *m)
{
	return m->twod ? m->twod->n : 0;
}

void model2d_sizes(const struct model *m, int64_t i, int64_t *work, int64_t *bytes)
{
	*work = m->twod->shapes[i].w;
	*bytes = m->twod->shapes[i].b;
}
