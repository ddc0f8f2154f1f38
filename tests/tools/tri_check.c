/* tri_check.c - speedup/lib/model/tri.c's triangulations checked whole, on point sets
 * made to be awkward (grids: four points on a circle everywhere; curves that are straight
 * lines in logarithms, like the samples of square matrix products; duplicates; random
 * points):
 *   - every triangle turns left, and its neighbours are mutual across the same edge;
 *   - the triangles tile the convex hull: their areas add up to the hull's (no overlap,
 *     no hole), up to what the flat triangles (thin) may leave;
 *   - every edge between two triangles is Delaunay (the two angles facing it sum to at
 *     most pi, with a little slack for rounding);
 *   - at every point, tri_eval gives the point's own value, at distance 0.
 * Built and run by tests/tools/test_model_bytes.py:  tri_check SEED... ; prints "ok N" per seed.
 */
#include "../../speedup/lib/util/grow.c"
#include "../../speedup/lib/model/tri.c"
#include <stdio.h>

static unsigned long long rng;

static double uniform(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static double cross(double ax, double ay, double bx, double by, double cx, double cy)
{
	return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

static int by_xy_d(const void *pa, const void *pb)
{
	const double *a = pa, *b = pb;

	return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] != b[1] ? (a[1] < b[1] ? -1 : 1) : 0;
}

/* Twice the area of the convex hull (Andrew's monotone chain). */
static double hull_area2(const double *x, const double *y, size_t n)
{
	double (*p)[2] = malloc(n * sizeof(*p)), (*h)[2] = malloc((2 * n + 1) * sizeof(*h)), a = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		p[i][0] = x[i], p[i][1] = y[i];
	qsort(p, n, sizeof(*p), by_xy_d);
	for (size_t i = 0; i < n; i++) {
		while (k >= 2 && cross(h[k - 2][0], h[k - 2][1], h[k - 1][0], h[k - 1][1], p[i][0], p[i][1]) <= 0)
			k--;
		h[k][0] = p[i][0], h[k++][1] = p[i][1];
	}
	for (size_t i = n - 1, t = k + 1; i-- > 0;) {
		while (k >= t && cross(h[k - 2][0], h[k - 2][1], h[k - 1][0], h[k - 1][1], p[i][0], p[i][1]) <= 0)
			k--;
		h[k][0] = p[i][0], h[k++][1] = p[i][1];
	}
	for (size_t i = 0; i + 1 < k; i++)
		a += h[i][0] * h[i + 1][1] - h[i + 1][0] * h[i][1];
	free(p);
	free(h);
	return a;
}

static int fail(unsigned long seed, const char *what, long a, long b)
{
	printf("seed %lu: %s (%ld, %ld)\n", seed, what, a, b);
	return 1;
}

static int check(unsigned long seed)
{
	size_t n = 0, room = 4096;
	double *x = malloc(room * sizeof(double)), *y = malloc(room * sizeof(double));
	double *z = malloc(room * sizeof(double));
	struct tri_mesh m;
	int kind = (int)(seed % 4);

	rng = seed * 7919 + 1;
#define ADD(w, b) do { x[n] = log1p(w); y[n] = log1p(b); z[n] = uniform(); n++; } while (0)
	if (kind == 0)		/* a grid in logarithms */
		for (int i = 1; i <= 8; i++)
			for (int j = 1; j <= 8; j++)
				ADD(pow(10, i), pow(10, j));
	if (kind == 1)		/* squares and thin products of dgemm_ */
		for (int s = 2; s <= 2048; s = s * 5 / 4 + 1) {
			ADD(2.0 * s * s * s, 32.0 * s * s);
			for (int nv = 8; nv <= 128; nv *= 4)
				ADD(2.0 * s * s * nv, 8.0 * (s * (double)s + 3.0 * s * nv));
		}
	if (kind == 2)		/* exactly collinear runs in three directions */
		for (int i = 0; i < 30; i++) {
			ADD(pow(2, i), pow(2, i));
			ADD(pow(2, i), 5);
			ADD(7, pow(3, i / 2.0));
		}
	for (int i = 0, r = (int)(uniform() * 200); i < r; i++)	/* random, a few twice */
		ADD(floor(pow(10, 9 * uniform())), floor(pow(10, 9 * uniform())));
	for (int i = 0, r = (int)(uniform() * 5); i < r && n > 0; i++) {
		size_t j = (size_t)(uniform() * (double)n);
		x[n] = x[j], y[n] = y[j], z[n] = z[j], n++;
	}
	if (tri_build(&m, x, y, z, n) != 0)
		return fail(seed, "out of memory", 0, 0);

	double area = 0, thin_area = 0;
	for (size_t t = 0; t < m.nt; t++) {
		double a = orient3(&m, m.v[t][0], m.v[t][1], m.v[t][2]);
		if (a < 0)
			return fail(seed, "a triangle turns right", (long)t, 0);
		area += a;
		if (m.thin[t])
			thin_area += a;
		for (int i = 0; i < 3; i++) {
			int u = m.nb[t][i], a1 = m.v[t][(i + 1) % 3], b1 = m.v[t][(i + 2) % 3], j, found = 0;
			if (u < 0)
				continue;
			for (j = 0; j < 3; j++)
				if (m.nb[u][j] == (int)t) {
					int a2 = m.v[u][(j + 1) % 3], b2 = m.v[u][(j + 2) % 3];
					found = a2 == b1 && b2 == a1;
				}
			if (!found)
				return fail(seed, "neighbours not mutual", (long)t, u);
			for (j = 0; m.nb[u][j] != (int)t; j++)
				;
			int A = m.v[t][i], D = m.v[u][j];
			double abx = m.x[a1] - m.x[A], aby = m.y[a1] - m.y[A], acx = m.x[b1] - m.x[A], acy = m.y[b1] - m.y[A];
			double dbx = m.x[a1] - m.x[D], dby = m.y[a1] - m.y[D], dcx = m.x[b1] - m.x[D], dcy = m.y[b1] - m.y[D];
			double angles = atan2(fabs(abx * acy - aby * acx), abx * acx + aby * acy) +
					atan2(fabs(dbx * dcy - dby * dcx), dbx * dcx + dby * dcy);
			if (!m.thin[t] && !m.thin[u] && angles > M_PI + 1e-9)
				return fail(seed, "an edge is not Delaunay", (long)t, u);
		}
	}
	double hull = m.nt ? hull_area2(m.x, m.y, m.n) : 0;
	if (fabs(area - hull) > 1e-9 * hull + thin_area)
		return fail(seed, "the triangles do not tile the hull", (long)(area * 1e6), (long)(hull * 1e6));
	for (size_t i = 0; i < m.n; i++) {
		double d, v = tri_eval(&m, m.x[i], m.y[i], &d);
		if (fabs(v - m.z[i]) > 1e-9 || d > 1e-12)
			return fail(seed, "a sample's own value is not given back", (long)i, 0);
	}
	printf("ok %lu: %zu points, %zu triangles\n", seed, m.n, m.nt);
	tri_free(&m);
	free(x);
	free(y);
	free(z);
	return 0;
}

int main(int argc, char **argv)
{
	int bad = 0;

	for (int i = 1; i < argc; i++)
		bad |= check(strtoul(argv[i], NULL, 10));
	return bad;
}
