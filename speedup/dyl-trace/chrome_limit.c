/* chrome_limit.c - see chrome_limit.h.  A min-heap of the MAX longest calls met so far,
 * in one pass over each trace's rows: memory for MAX calls, whatever the trace's size. */
#include <stdlib.h>
#include "chrome_limit.h"
#include "filter.h"
#include "input.h"

struct cand {
	int64_t t_ns;
	int trace;
	size_t idx;	/* in the trace's seq order */
};

/* Does A rank below B (shorter, or as long and later)?  The heap's root is the lowest. */
static int lower(const struct cand *a, const struct cand *b)
{
	if (a->t_ns != b->t_ns)
		return a->t_ns < b->t_ns;
	if (a->trace != b->trace)
		return a->trace > b->trace;
	return a->idx > b->idx;
}

static void sift_down(struct cand *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && lower(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && lower(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct cand t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void sift_up(struct cand *h, size_t i)
{
	while (i > 0 && lower(&h[i], &h[(i - 1) / 2])) {
		struct cand t = h[i];
		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/* Trace T's calls into the heap H (*HN of MAX). */
static int scan(struct trace_src *src, int t, struct row_filter *filter, struct cand *h,
		size_t *hn, uint64_t max, uint64_t *total, struct chrome_keep *k)
{
	size_t n;
	uint64_t *order = rows_by_seq(src, &n);
	struct trace_row r;

	if (!order)
		return -1;
	k->order = order;
	k->norder = n;
	for (size_t i = 0; i < n; i++) {
		if (rows_at(src, order[i], &r) != 0)
			return -1;
		if (r.t_start == ROWS_NONE || (filter && !filter_keep(filter, r.func, r.t_start)))
			continue;
		(*total)++;
		struct cand c = { r.t_ns, t, i };
		if (*hn < max) {
			h[*hn] = c;
			sift_up(h, (*hn)++);
		} else if (max && lower(&h[0], &c)) {
			h[0] = c;
			sift_down(h, *hn, 0);
		}
	}
	return 0;
}

static int by_idx(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	return (a > b) - (a < b);
}

int chrome_longest(struct trace_src *srcs, int n, uint64_t max, struct row_filter *filter,
		   struct chrome_keep *keep, uint64_t *total)
{
	struct cand *h = malloc((max ? max : 1) * sizeof(*h));
	size_t hn = 0;

	*total = 0;
	if (!h) {
		input_error(NULL, 0, "out of memory (--max-events %llu)", (unsigned long long)max);
		return -1;
	}
	for (int t = 0; t < n; t++)
		if (scan(&srcs[t], t, filter, h, &hn, max, total, &keep[t]) != 0) {
			free(h);
			return -1;
		}
	for (size_t i = 0; i < hn; i++)
		keep[h[i].trace].n++;
	for (int t = 0; t < n; t++) {
		keep[t].idx = malloc((keep[t].n ? keep[t].n : 1) * sizeof(size_t));
		if (!keep[t].idx) {
			free(h);
			input_error(NULL, 0, "out of memory");
			return -1;
		}
		keep[t].n = 0;
	}
	for (size_t i = 0; i < hn; i++)
		keep[h[i].trace].idx[keep[h[i].trace].n++] = h[i].idx;
	for (int t = 0; t < n; t++)
		qsort(keep[t].idx, keep[t].n, sizeof(size_t), by_idx);
	free(h);
	return 0;
}

int chrome_kept(struct chrome_keep *k, size_t i)
{
	while (k->next < k->n && k->idx[k->next] < i)
		k->next++;
	return k->next < k->n && k->idx[k->next] == i;
}

void chrome_keep_free(struct chrome_keep *keep, int n)
{
	for (int t = 0; keep && t < n; t++) {
		free(keep[t].idx);
		free(keep[t].order);
	}
	free(keep);
}
