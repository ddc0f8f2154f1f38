/* flow_ivmap.c - see flow_ivmap.h. */
#include <stdlib.h>
#include <string.h>
#include "flow_ivmap.h"
#include "grow.h"

uint32_t ivmap_find(const struct ivmap *m, uint64_t x)
{
	uint32_t a = 0, b = m->n;

	while (a < b) {
		uint32_t mid = a + (b - a) / 2;
		if (m->seg[mid].hi <= x)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

/* Room for one more segment at index I (the ones from I on move up). */
static int open_at(struct ivmap *m, uint32_t i)
{
	size_t room = m->room;

	if (grow(&m->seg, sizeof(*m->seg), m->n, &room, 4) != 0)
		return -1;
	m->room = (uint32_t)room;
	memmove(m->seg + i + 1, m->seg + i, (m->n - i) * sizeof(*m->seg));
	m->n++;
	return 0;
}

int64_t ivmap_cut(struct ivmap *m, uint64_t x)
{
	uint32_t i = ivmap_find(m, x);

	if (i == m->n || m->seg[i].lo >= x)
		return i;
	/* seg[i] holds x inside: cut it there */
	if (open_at(m, i + 1) != 0)
		return -1;
	m->seg[i + 1] = m->seg[i];
	m->seg[i].hi = x;
	m->seg[i + 1].lo = x;
	return i + 1;
}

static int same(const struct ivseg *a, uint64_t who, uint64_t when)
{
	return a->who == who && a->when == when;
}

int ivmap_set(struct ivmap *m, uint64_t lo, uint64_t hi, uint64_t who, uint64_t when)
{
	int64_t i, j;

	if (lo >= hi)
		return 0;
	/* the common case: the range covers every segment (a buffer written whole) */
	if (m->n == 0 || (lo <= m->seg[0].lo && hi >= m->seg[m->n - 1].hi)) {
		if (m->n == 0 && open_at(m, 0) != 0)
			return -1;
		m->n = 1;
		m->seg[0] = (struct ivseg){ lo, hi, who, when };
		return 0;
	}
	/* inside one segment with the same numbers: nothing changes (a pair's unique
	 * bytes, read again) */
	i = ivmap_find(m, lo);
	if (i < m->n && m->seg[i].lo <= lo && m->seg[i].hi >= hi && same(&m->seg[i], who, when))
		return 0;
	if ((i = ivmap_cut(m, lo)) < 0 || (j = ivmap_cut(m, hi)) < 0)
		return -1;
	if (i > 0 && m->seg[i - 1].hi == lo && same(&m->seg[i - 1], who, when)) {
		i--;
		lo = m->seg[i].lo;
	}
	if (j < m->n && m->seg[j].lo == hi && same(&m->seg[j], who, when)) {
		hi = m->seg[j].hi;
		j++;
	}
	if (i == j && open_at(m, (uint32_t)i) != 0)
		return -1;
	if (i == j)
		j++;
	/* segments [i, j) become one, at i */
	m->seg[i] = (struct ivseg){ lo, hi, who, when };
	memmove(m->seg + i + 1, m->seg + j, (m->n - (uint32_t)j) * sizeof(*m->seg));
	m->n -= (uint32_t)(j - i - 1);
	return 0;
}

uint64_t ivmap_covered(const struct ivmap *m)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < m->n; i++)
		n += m->seg[i].hi - m->seg[i].lo;
	return n;
}

uint64_t ivmap_truncate(struct ivmap *m, uint64_t size)
{
	uint64_t dropped = 0;
	uint32_t i = ivmap_find(m, size);

	for (uint32_t k = i; k < m->n; k++) {
		uint64_t lo = m->seg[k].lo > size ? m->seg[k].lo : size;
		dropped += m->seg[k].hi - lo;
	}
	if (i < m->n && m->seg[i].lo < size) {
		m->seg[i].hi = size;
		i++;
	}
	m->n = i;
	return dropped;
}

void ivmap_free(struct ivmap *m)
{
	free(m->seg);
	m->seg = NULL;
	m->n = m->room = 0;
}
