/* tri.h - piecewise-linear interpolation over scattered points of the plane: the Delaunay
 * triangulation of the points (x, y), and at any (x, y) the value z of the triangle that
 * holds it (barycentric), or outside the triangles the value along the nearest edge.
 *
 * The model of a function keyed on two sizes (model2d.c) is such a surface, in logarithms.
 * Nothing here knows about models: points in, values out. */
#ifndef SPEEDUP_TRI_H
#define SPEEDUP_TRI_H

#include <stddef.h>

/* A point within this distance of the triangles counts as inside them (the distance is
 * in the units of x and y: model2d.c's natural logarithms, so 0.01 is 1 % of the work or
 * the bytes).  Samples of one family of shapes lie on a curve, and a call of that family
 * between two samples lies off the chord between them by up to a few 0.1 % when they are
 * a factor 2 to 4 apart: outside the triangles when the curve bulges out of the hull, but
 * interpolated along the family all the same. */
#define TRI_NEAR 1e-2

struct tri_mesh {
	size_t n;		/* distinct points */
	double *x, *y, *z;
	size_t nt;		/* triangles, counter-clockwise */
	int (*v)[3];		/* their corners */
	int (*nb)[3];		/* the triangle across the edge opposite v[i]; -1: the hull */
	unsigned char *thin;	/* no area to speak of: values come from an edge instead */
	size_t ne;		/* every edge once (the chain of the points when they are collinear) */
	int (*e)[2];
	int last;		/* the triangle the last lookup ended in: the next walk starts there */
	double eps_orient;	/* below this |orientation|, three points are collinear */
};

/* Triangulates the N points (X[i], Y[i]) with values Z[i], copied.  Points at the same
 * (x, y) are one point with the mean of their values.  0, or -1 when out of memory. */
int tri_build(struct tri_mesh *m, const double *x, const double *y, const double *z, size_t n);

/* The value at (X, Y).  *DIST: how far (X, Y) is from the triangles (0 inside them, or
 * for collinear points from their chain): beyond TRI_NEAR it is an extrapolation, along
 * the nearest edge.  N == 0 is not allowed. */
double tri_eval(struct tri_mesh *m, double x, double y, double *dist);

void tri_free(struct tri_mesh *m);

#endif
