/* many.h - one call reaching many heap blocks through an array of pointers (std.flow's
 * region cap: test_many_regions.py) */
#ifndef MANY_H
#define MANY_H
void fill_rows(double **rows, int n);
#endif
