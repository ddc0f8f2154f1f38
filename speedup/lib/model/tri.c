/* tri.c - the Delaunay triangulation of scattered points, and interpolation over it.
 *
 * Built in two steps, both simple enough to trust: a sweep (points in (x, y) order, each
 * joined to the hull edges it sees: always a valid triangulation of the convex hull),
 * then Lawson's edge flips until every edge is locally Delaunay (the triangulation that
 * avoids thin triangles where it can).  Models have tens to thousands of samples and are
 * built once, so the flips' quadratic worst case does not matter.
 *
 * Samples often lie on curves that are straight lines in logarithms (square matrices:
 * bytes ~ work^(2/3)), so three of them may be collinear to the last bit, or nearly:
 * - "collinear" is decided with a tolerance (eps_orient, relative to the extent of the
 *   points), so the sweep makes no triangle of three points on a line;
 * - the triangles that are still nearly flat are marked thin and never used for
 *   barycentric weights (which they would make noise of); a point in one, or outside
 *   every triangle, takes its value along the nearest edge, which is the interpolation
 *   along the curve the samples lie on.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "tri.h"

/* 2 x the signed area of (a, b, p): > 0 when p is left of a->b (counter-clockwise). */
static double orient(const struct tri_mesh *m, int a, int b, double px, double py)
{
	return (m->x[b] - m->x[a]) * (py - m->y[a]) - (m->y[b] - m->y[a]) * (px - m->x[a]);
}

static double orient3(const struct tri_mesh *m, int a, int b, int c)
{
	return orient(m, a, b, m->x[c], m->y[c]);
}

static const struct tri_mesh *sort_mesh;	/* qsort has no context argument */

static int by_xy(const void *pa, const void *pb)
{
	const double *x = sort_mesh->x, *y = sort_mesh->y;
	int a = *(const int *)pa, b = *(const int *)pb;

	if (x[a] != x[b])
		return x[a] < x[b] ? -1 : 1;
	if (y[a] != y[b])
		return y[a] < y[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Copies the points in (x, y) order, one per distinct (x, y), with the mean z. */
static int copy_points(struct tri_mesh *m, const double *x, const double *y, const double *z,
		       size_t n)
{
	int *idx = malloc(n * sizeof(*idx));
	double *sx = malloc(n * sizeof(double)), *sy = malloc(n * sizeof(double));
	double *sz = malloc(n * sizeof(double));

	if (!idx || !sx || !sy || !sz) {
		free(idx);
		free(sx);
		free(sy);
		free(sz);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = (int)i;
	m->x = (double *)x;
	m->y = (double *)y;
	sort_mesh = m;
	qsort(idx, n, sizeof(*idx), by_xy);
	m->n = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		double sum = z[idx[i]];
		while (j < n && x[idx[j]] == x[idx[i]] && y[idx[j]] == y[idx[i]])
			sum += z[idx[j++]];
		sx[m->n] = x[idx[i]];
		sy[m->n] = y[idx[i]];
		sz[m->n] = sum / (double)(j - i);
		m->n++;
		i = j;
	}
	free(idx);
	m->x = sx;
	m->y = sy;
	m->z = sz;
	return 0;
}

/* In triangle T, the neighbour across the edge {A, B} becomes U. */
static void set_nb(struct tri_mesh *m, int t, int a, int b, int u)
{
	for (int i = 0; i < 3; i++) {
		int p = m->v[t][(i + 1) % 3], q = m->v[t][(i + 2) % 3];
		if ((p == a && q == b) || (p == b && q == a)) {
			m->nb[t][i] = u;
			return;
		}
	}
}

static void replace_nb(struct tri_mesh *m, int t, int from, int to)
{
	if (t < 0)
		return;
	for (int i = 0; i < 3; i++)
		if (m->nb[t][i] == from)
			m->nb[t][i] = to;
}

static int new_tri(struct tri_mesh *m, int a, int b, int c)
{
	int t = (int)m->nt++;

	m->v[t][0] = a;
	m->v[t][1] = b;
	m->v[t][2] = c;
	m->nb[t][0] = m->nb[t][1] = m->nb[t][2] = -1;
	return t;
}

/* The hull while sweeping, counter-clockwise: next, prev, and the triangle that has the
 * directed edge v -> next[v]. */
struct hull {
	int *next, *prev, *tri;
};

/* The first triangles: the collinear points 0..K-1 fanned to point K. */
static void first_fan(struct tri_mesh *m, struct hull *h, int k)
{
	int left = orient3(m, 0, k - 1, k) > 0;

	for (int i = 0; i + 1 < k; i++) {
		int t = left ? new_tri(m, i, i + 1, k) : new_tri(m, i + 1, i, k);
		/* fan neighbours: T_i shares the edge (i+1, k) with T_(i+1) */
		if (i > 0) {
			m->nb[t][left ? 1 : 0] = t - 1;
			m->nb[t - 1][left ? 0 : 1] = t;
		}
	}
	if (left) {	/* 0 -> 1 -> ... -> k-1 -> k -> 0 */
		for (int i = 0; i + 1 < k; i++) {
			h->next[i] = i + 1;
			h->tri[i] = i;
		}
		h->next[k - 1] = k;
		h->tri[k - 1] = k - 2;
		h->next[k] = 0;
		h->tri[k] = 0;
	} else {	/* 0 -> k -> k-1 -> ... -> 1 -> 0 */
		h->next[0] = k;
		h->tri[0] = 0;
		h->next[k] = k - 1;
		h->tri[k] = k - 2;
		for (int i = 1; i < k; i++) {
			h->next[i] = i - 1;
			h->tri[i] = i - 1;
		}
	}
	for (int i = 0; i <= k; i++)
		h->prev[h->next[i]] = i;
}

/* Joins point P (right of every point so far) to the hull edges it sees from outside,
 * starting from Q, the point added before it (always on the hull, and next to what P
 * sees).  Returns 0, or -1 when P sees no edge (it is collinear with the hull at Q). */
static int add_point(struct tri_mesh *m, struct hull *h, int p, int q, double eps)
{
	double px = m->x[p], py = m->y[p];
	int lo = q, hi = q, first = -1, prev = -1;

	for (size_t guard = 0; orient(m, h->prev[lo], lo, px, py) < -eps && guard < m->n; guard++)
		lo = h->prev[lo];
	for (size_t guard = 0; orient(m, hi, h->next[hi], px, py) < -eps && guard < m->n; guard++)
		hi = h->next[hi];
	if (lo == hi)
		return -1;
	for (int a = lo; a != hi;) {
		int b = h->next[a];
		int t = new_tri(m, b, a, p);	/* a -> b is seen from p: (b, a, p) turns left */
		int old = h->tri[a];
		m->nb[t][2] = old;		/* across (b, a) */
		set_nb(m, old, a, b, t);
		if (prev >= 0) {		/* across (a, p): the previous new triangle */
			m->nb[t][0] = prev;
			m->nb[prev][1] = t;
		}
		if (first < 0)
			first = t;
		prev = t;
		a = b;
	}
	h->next[lo] = p;
	h->prev[p] = lo;
	h->next[p] = hi;
	h->prev[hi] = p;
	h->tri[lo] = first;
	h->tri[p] = prev;
	return 0;
}

/* Is the edge opposite corner I of T (shared with its neighbour) not Delaunay?  The sum
 * of the two angles facing it exceeds pi: sin(alpha + delta) < 0, in a form free of
 * scale (the four lengths divide out). */
static int illegal(const struct tri_mesh *m, int a, int b, int c, int d)
{
	double abx = m->x[b] - m->x[a], aby = m->y[b] - m->y[a];
	double acx = m->x[c] - m->x[a], acy = m->y[c] - m->y[a];
	double dbx = m->x[b] - m->x[d], dby = m->y[b] - m->y[d];
	double dcx = m->x[c] - m->x[d], dcy = m->y[c] - m->y[d];
	double sa = fabs(abx * acy - aby * acx), ca = abx * acx + aby * acy;
	double sd = fabs(dcx * dby - dcy * dbx), cd = dbx * dcx + dby * dcy;
	double norm = hypot(abx, aby) * hypot(acx, acy) * hypot(dbx, dby) * hypot(dcx, dcy);

	return norm > 0 && (sa * cd + ca * sd) / norm < -1e-12;
}

/* Lawson's flips: each edge on the stack is checked; a flip puts the four outer edges of
 * its quadrilateral back on it.  Ends when every edge is locally Delaunay. */
static int flip_all(struct tri_mesh *m)
{
	size_t room = 3 * m->nt + 16, top = 0;
	int (*st)[2] = malloc(room * sizeof(*st));

	if (!st)
		return -1;
	for (size_t t = 0; t < m->nt; t++)
		for (int i = 0; i < 3; i++) {
			st[top][0] = (int)t;
			st[top++][1] = i;
		}
	while (top > 0) {
		int t, i, u, j;
		top--;
		t = st[top][0];
		i = st[top][1];
		u = m->nb[t][i];
		if (u < 0)
			continue;
		int A = m->v[t][i], B = m->v[t][(i + 1) % 3], C = m->v[t][(i + 2) % 3];
		for (j = 0; j < 3 && m->nb[u][j] != t; j++)
			;
		if (j == 3)
			continue;	/* cannot happen: neighbours are mutual */
		int D = m->v[u][j];
		if (!illegal(m, A, B, C, D) || orient3(m, A, B, D) <= m->eps_orient ||
		    orient3(m, A, D, C) <= m->eps_orient)
			continue;
		int tAB = m->nb[t][(i + 2) % 3], tCA = m->nb[t][(i + 1) % 3];
		int uBD = m->nb[u][(j + 1) % 3], uDC = m->nb[u][(j + 2) % 3];
		/* (A, B, C) + (D, C, B) -> (A, B, D) + (A, D, C) */
		m->v[t][0] = A, m->v[t][1] = B, m->v[t][2] = D;
		m->nb[t][0] = uBD, m->nb[t][1] = u, m->nb[t][2] = tAB;
		m->v[u][0] = A, m->v[u][1] = D, m->v[u][2] = C;
		m->nb[u][0] = uDC, m->nb[u][1] = tCA, m->nb[u][2] = t;
		replace_nb(m, uBD, u, t);
		replace_nb(m, tCA, t, u);
		if (grow_to(&st, sizeof(*st), top + 4, &room, 16) != 0) {
			free(st);
			return -1;
		}
		st[top][0] = t, st[top++][1] = 0;
		st[top][0] = t, st[top++][1] = 2;
		st[top][0] = u, st[top++][1] = 0;
		st[top][0] = u, st[top++][1] = 1;
	}
	free(st);
	return 0;
}

/* Every edge once; flat triangles marked thin. */
static int list_edges(struct tri_mesh *m)
{
	m->e = malloc((3 * m->nt + 1) * sizeof(*m->e));
	m->thin = calloc(m->nt + 1, 1);
	if (!m->e || !m->thin)
		return -1;
	for (size_t t = 0; t < m->nt; t++) {
		double longest = 0;
		for (int i = 0; i < 3; i++) {
			int a = m->v[t][(i + 1) % 3], b = m->v[t][(i + 2) % 3], u = m->nb[t][i];
			double dx = m->x[b] - m->x[a], dy = m->y[b] - m->y[a];
			if (dx * dx + dy * dy > longest)
				longest = dx * dx + dy * dy;
			if (u < 0 || (int)t < u) {
				m->e[m->ne][0] = a;
				m->e[m->ne++][1] = b;
			}
		}
		/* height below 1e-9 of the longest side: barycentric weights would be noise */
		m->thin[t] = orient3(m, m->v[t][0], m->v[t][1], m->v[t][2]) <= 1e-9 * longest;
	}
	return 0;
}

int tri_build(struct tri_mesh *m, const double *x, const double *y, const double *z, size_t n)
{
	struct hull h = { 0 };
	double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY, ext;
	size_t k;

	memset(m, 0, sizeof(*m));
	if (n == 0 || copy_points(m, x, y, z, n) != 0)
		return n == 0 ? 0 : -1;
	for (size_t i = 0; i < m->n; i++) {
		x0 = fmin(x0, m->x[i]), x1 = fmax(x1, m->x[i]);
		y0 = fmin(y0, m->y[i]), y1 = fmax(y1, m->y[i]);
	}
	ext = fmax(x1 - x0, y1 - y0);
	m->eps_orient = 1e-12 * ext * ext;
	/* the first point off the line of the points before it */
	for (k = 2; k < m->n && fabs(orient3(m, 0, (int)k - 1, (int)k)) <= m->eps_orient; k++)
		;
	if (k >= m->n) {
		/* all on one line (or one or two points): the chain is the model */
		m->e = malloc(m->n * sizeof(*m->e));
		if (!m->e)
			return -1;
		for (size_t i = 0; i + 1 < m->n; i++) {
			m->e[m->ne][0] = (int)i;
			m->e[m->ne++][1] = (int)i + 1;
		}
		return 0;
	}
	m->v = malloc(2 * m->n * sizeof(*m->v));
	m->nb = malloc(2 * m->n * sizeof(*m->nb));
	h.next = malloc(m->n * sizeof(int));
	h.prev = malloc(m->n * sizeof(int));
	h.tri = malloc(m->n * sizeof(int));
	if (!m->v || !m->nb || !h.next || !h.prev || !h.tri)
		goto oom;
	first_fan(m, &h, (int)k);
	for (size_t i = k + 1, q = k; i < m->n; i++) {
		/* nearly collinear with the hull at q: try once more without the tolerance; a
		 * point no edge sees at all is left to the edges around it */
		if (add_point(m, &h, (int)i, (int)q, m->eps_orient) == 0 ||
		    add_point(m, &h, (int)i, (int)q, 0) == 0)
			q = i;
	}
	free(h.next);
	free(h.prev);
	free(h.tri);
	if (flip_all(m) != 0 || list_edges(m) != 0)
		return -1;
	return 0;
oom:
	free(h.next);
	free(h.prev);
	free(h.tri);
	return -1;
}

/* The value along the nearest edge (its line beyond its ends): the nearest edge by
 * distance to the segment; of edges equally near (a shared corner), the one whose line
 * passes nearest, so that a point beyond the last sample of a curve continues the curve. */
static double along_nearest_edge(const struct tri_mesh *m, double px, double py, double *dist)
{
	double best = INFINITY, best_line = INFINITY, s_best = 0;
	int a_best = 0, b_best = 0;

	if (m->ne == 0) {	/* one point: a constant */
		*dist = hypot(px - m->x[0], py - m->y[0]);
		return m->z[0];
	}
	for (size_t i = 0; i < m->ne; i++) {
		int a = m->e[i][0], b = m->e[i][1];
		double dx = m->x[b] - m->x[a], dy = m->y[b] - m->y[a], l2 = dx * dx + dy * dy;
		double s = ((px - m->x[a]) * dx + (py - m->y[a]) * dy) / l2;
		double sc = s < 0 ? 0 : s > 1 ? 1 : s;
		double d = hypot(px - (m->x[a] + sc * dx), py - (m->y[a] + sc * dy));
		double line = fabs(dx * (py - m->y[a]) - dy * (px - m->x[a])) / sqrt(l2);
		if (d < best - 1e-9 || (d <= best + 1e-9 && line < best_line)) {
			best = fmin(best, d);
			best_line = line;
			s_best = s;
			a_best = a;
			b_best = b;
		}
	}
	*dist = best;
	return m->z[a_best] + s_best * (m->z[b_best] - m->z[a_best]);
}

/* Is (px, py) in triangle T (on its sides counts)?  Else the side it is beyond. */
static int outside_side(const struct tri_mesh *m, int t, double px, double py, int from)
{
	for (int k = 0; k < 3; k++) {
		int i = (k + from) % 3;
		if (orient(m, m->v[t][(i + 1) % 3], m->v[t][(i + 2) % 3], px, py) < -m->eps_orient)
			return i;
	}
	return -1;
}

/* The triangle that holds the point, by walking towards it from the last one found
 * (a few steps when lookups come in order); -1 outside every triangle. */
static int locate(struct tri_mesh *m, double px, double py)
{
	int t = m->last >= 0 && (size_t)m->last < m->nt ? m->last : 0;

	for (size_t step = 0; step < 2 * m->nt + 8; step++) {
		int i = outside_side(m, t, px, py, (int)(step % 3));
		if (i < 0)
			return t;
		if (m->nb[t][i] < 0)
			return -1;	/* beyond a side of the hull */
		t = m->nb[t][i];
	}
	/* a walk that does not end (flat triangles can turn it round): look at them all */
	for (size_t u = 0; u < m->nt; u++)
		if (outside_side(m, (int)u, px, py, 0) < 0)
			return (int)u;
	return -1;
}

double tri_eval(struct tri_mesh *m, double px, double py, double *dist)
{
	int t = m->nt ? locate(m, px, py) : -1;

	if (t >= 0)
		m->last = t;
	if (t < 0 || m->thin[t])
		return along_nearest_edge(m, px, py, dist);
	/* barycentric: each corner's weight is the area of the triangle opposite it */
	double z = 0, sum = 0, w[3];
	for (int i = 0; i < 3; i++) {
		w[i] = orient(m, m->v[t][(i + 1) % 3], m->v[t][(i + 2) % 3], px, py);
		w[i] = w[i] > 0 ? w[i] : 0;	/* on a side: rounding may make it -0.0001 ulp */
		sum += w[i];
	}
	for (int i = 0; i < 3; i++)
		z += w[i] / sum * m->z[m->v[t][i]];
	*dist = 0;
	return z;
}

void tri_free(struct tri_mesh *m)
{
	free(m->x);
	free(m->y);
	free(m->z);
	free(m->v);
	free(m->nb);
	free(m->thin);
	free(m->e);
	memset(m, 0, sizeof(*m));
}
