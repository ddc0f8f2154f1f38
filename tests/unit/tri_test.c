/* sources: speedup/lib/model/tri.c speedup/lib/util/grow.c */
/* tri_test.c - tri.c: a triangulation reproduces a linear surface exactly at
 * and between the points; outside them the value continues along the nearest edge, with
 * the distance reported; points at the same place are one point with their mean value;
 * collinear points are a chain; the triangles of scattered points are Delaunay (no point
 * inside a triangle's circumcircle) and cover the points' hull. */
#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "tri.h"

static double plane(double x, double y)
{
	return 2 * x + 3 * y + 1;
}

static void check_grid(void)
{
	double x[16], y[16], z[16], d;
	struct tri_mesh m;
	int n = 0;

	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++, n++) {
			x[n] = i;
			y[n] = j;
			z[n] = plane(i, j);
		}
	CHECK(tri_build(&m, x, y, z, 16) == 0);
	CHECK(m.n == 16);
	CHECK(m.nt == 18);	/* 9 squares, 2 triangles each */
	for (int i = 0; i < 16; i++) {
		CHECK_NEAR(tri_eval(&m, x[i], y[i], &d), z[i], 1e-9);
		CHECK(d == 0);
	}
	/* between the points: the plane itself */
	CHECK_NEAR(tri_eval(&m, 1.5, 2.25, &d), plane(1.5, 2.25), 1e-9);
	CHECK(d == 0);
	CHECK_NEAR(tri_eval(&m, 0.1, 2.9, &d), plane(0.1, 2.9), 1e-9);
	CHECK(d == 0);
	CHECK_NEAR(tri_eval(&m, 3, 0.5, &d), plane(3, 0.5), 1e-9);	/* on the hull */
	CHECK(d == 0);
	/* outside: along the nearest edge's line, at the point nearest */
	CHECK_NEAR(tri_eval(&m, 5, 1.5, &d), plane(3, 1.5), 1e-9);
	CHECK_NEAR(d, 2, 1e-12);
	CHECK_NEAR(tri_eval(&m, 1.25, -0.5, &d), plane(1.25, 0), 1e-9);
	CHECK_NEAR(d, 0.5, 1e-12);
	CHECK(d > TRI_NEAR);
	tri_free(&m);
}

static void check_duplicates_and_chains(void)
{
	struct tri_mesh m;
	double d;

	/* the same place twice: one point, the mean of the values */
	double x1[] = { 0, 0, 1, 0 }, y1[] = { 0, 0, 0, 1 }, z1[] = { 1, 3, 0, 0 };
	CHECK(tri_build(&m, x1, y1, z1, 4) == 0);
	CHECK(m.n == 3 && m.nt == 1);
	CHECK_NEAR(tri_eval(&m, 0, 0, &d), 2, 1e-12);
	CHECK_NEAR(tri_eval(&m, 0.25, 0.25, &d), 1, 1e-12);	/* 2 * (1 - 0.25 - 0.25) */
	tri_free(&m);

	/* collinear: no triangle, the chain of the points */
	double x2[] = { 2, 0, 1 }, y2[] = { 2, 0, 1 }, z2[] = { 4, 0, 2 };
	CHECK(tri_build(&m, x2, y2, z2, 3) == 0);
	CHECK(m.ne == 2);
	CHECK_NEAR(tri_eval(&m, 1.5, 1.5, &d), 3, 1e-12);
	CHECK_NEAR(d, 0, 1e-12);
	CHECK_NEAR(tri_eval(&m, 3, 3, &d), 6, 1e-12);	/* beyond the last: continued */
	CHECK_NEAR(d, sqrt(2), 1e-12);
	CHECK_NEAR(tri_eval(&m, 0, 2, &d), 2, 1e-12);	/* beside the middle */
	CHECK_NEAR(d, sqrt(2), 1e-12);
	tri_free(&m);

	/* one point: a constant */
	double x3[] = { 1 }, y3[] = { 1 }, z3[] = { 7 };
	CHECK(tri_build(&m, x3, y3, z3, 1) == 0);
	CHECK_NEAR(tri_eval(&m, 4, 5, &d), 7, 0);
	CHECK_NEAR(d, 5, 1e-12);
	tri_free(&m);
}

/* a fixed sequence in [0, 1) (the same on every machine) */
static double next(unsigned long long *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*s >> 11) / 9007199254740992.0;
}

static void check_scattered(void)
{
	enum { N = 300 };
	double x[N], y[N], z[N], d;
	unsigned long long seed = 20261126;
	struct tri_mesh m;
	int bad_circle = 0, bad_value = 0;

	for (int i = 0; i < N; i++) {
		x[i] = 10 * next(&seed);
		y[i] = 10 * next(&seed);
		z[i] = plane(x[i], y[i]);
	}
	CHECK(tri_build(&m, x, y, z, N) == 0);
	CHECK(m.n == N);
	for (size_t t = 0; t < m.nt; t++) {
		int *v = m.v[t];
		double ax = m.x[v[0]], ay = m.y[v[0]], bx = m.x[v[1]], by = m.y[v[1]];
		double cx = m.x[v[2]], cy = m.y[v[2]];
		/* counter-clockwise */
		CHECK((bx - ax) * (cy - ay) - (by - ay) * (cx - ax) > 0);
		/* the centroid is inside: the plane there */
		double gx = (ax + bx + cx) / 3, gy = (ay + by + cy) / 3;
		double g = tri_eval(&m, gx, gy, &d);
		bad_value += fabs(g - plane(gx, gy)) > 1e-9 || d != 0;
		/* Delaunay: no point strictly inside the circumcircle */
		for (size_t p = 0; p < m.n; p++) {
			double adx = ax - m.x[p], ady = ay - m.y[p], bdx = bx - m.x[p];
			double bdy = by - m.y[p], cdx = cx - m.x[p], cdy = cy - m.y[p];
			double det = (adx * adx + ady * ady) * (bdx * cdy - cdx * bdy) -
				     (bdx * bdx + bdy * bdy) * (adx * cdy - cdx * ady) +
				     (cdx * cdx + cdy * cdy) * (adx * bdy - bdx * ady);
			bad_circle += det > 1e-9;
		}
	}
	CHECK(bad_value == 0);
	CHECK(bad_circle == 0);
	/* Euler: 2n - 2 - (points on the hull) triangles, so between n and 2n - 5 */
	CHECK(m.nt >= N && m.nt <= 2 * N - 5);
	tri_free(&m);
}

int main(void)
{
	check_grid();
	check_duplicates_and_chains();
	check_scattered();
	return CHECK_DONE();
}
