/* select.h - the K-th smallest of an array of times, and their median, by selection
 * (Hoare's quickselect: linear on average) rather than by sorting: dyl-model's samples and
 * dyl-trace's summary take a median of every group. */
#ifndef SPEEDUP_SELECT_H
#define SPEEDUP_SELECT_H

#include <stddef.h>
#include <stdint.h>

/* Puts the K-th smallest of V[0..N) (K < N) at V[K], smaller ones before it, larger ones
 * after it, and returns it. */
int64_t select_kth(int64_t *v, size_t n, size_t k);

/* The median of V[0..N) (V reordered); of an even count, the mean of the two middle
 * ones.  -1 when N is 0. */
double select_median(int64_t *v, size_t n);

#endif
