/* columns.h - checks of a CSV header's column names shared by the trace and model
 * readers. */
#ifndef DYL_READ_COLUMNS_H
#define DYL_READ_COLUMNS_H

#include "input.h"

/* A header that names a column twice (t_ns,t_ns) is an error: which one a reader takes
 * would be a guess.  Returns 0, or -1 after one message naming PATH, LINENO and the
 * column. */
int columns_check(const char *path, unsigned long lineno, const struct csv_field *fld, int n);

#endif
