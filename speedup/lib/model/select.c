/* select.c - see select.h. */
#include "select.h"

int64_t select_kth(int64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		int64_t pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				int64_t x = v[i];
				v[i] = v[j];
				v[j] = x;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		/* now v[lo..j] <= pivot <= v[i..hi], and j < i */
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;	/* between j and i: equal to the pivot, in place */
	}
	return v[k];
}

double select_median(int64_t *v, size_t n)
{
	int64_t hi, lo;

	if (n == 0)
		return -1;
	hi = select_kth(v, n, n / 2);
	if (n % 2)
		return (double)hi;
	/* even: the largest of the lower half, which select_kth left before n/2, is the
	 * other middle one */
	lo = v[0];
	for (size_t i = 1; i < n / 2; i++)
		if (v[i] > lo)
			lo = v[i];
	return ((double)lo + (double)hi) / 2;
}
