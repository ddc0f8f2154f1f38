/* model2d.h - a model keyed on two sizes of a call: its work and the bytes it moves
 * (in_bytes + out_bytes).  Time that depends on the shape of the data, not on one number
 * (a 2000 x 2000 matrix times 8 vectors moves 10 times the bytes of a square product of
 * the same flops, and is memory-bound), needs both.
 *
 * f(work, bytes) is piecewise linear over the Delaunay triangulation of the samples in
 * (ln(1 + work), ln(1 + bytes)), interpolating ln(1 + t): exact for t = c work^a bytes^b,
 * which is what the time of a kernel looks like over a range of sizes, where a linear
 * interpolation of t between samples a factor 2 apart would be up to 6 % high.  Outside
 * the triangles: along the nearest edge (extrapolated along it beyond its ends), reported
 * as out of range. */
#ifndef SPEEDUP_MODEL2D_H
#define SPEEDUP_MODEL2D_H

#include <stdint.h>

struct model;

/* Triangulates M's samples (w, b, t; M->b set).  0, or -1 when out of memory. */
int model2d_build(struct model *m);
/* Frees what model2d_build made (M->twod); nothing when there is none. */
void model2d_free(struct model *m);

/* The index of the call shape (WORK, BYTES) among those M has met: f is computed the
 * first time a shape is met (traces repeat a few shapes millions of times).  -1 when out
 * of memory. */
int64_t model2d_shape(struct model *m, int64_t work, int64_t bytes);

/* f of the shape with index I; *OUT_OF_RANGE: it lies outside the samples. */
double model2d_f(const struct model *m, int64_t i, int *out_of_range);

/* What bounds the shape with index I, for a computed model (M->eval2); 0 otherwise. */
int model2d_bound(const struct model *m, int64_t i);

/* The shapes M has met: how many, and shape I's work and bytes. */
size_t model2d_count(const struct model *m);
void model2d_sizes(const struct model *m, int64_t i, int64_t *work, int64_t *bytes);

/* f(WORK, BYTES) computed afresh. */
double model2d_eval(struct model *m, double work, double bytes, int *out_of_range);

#endif
