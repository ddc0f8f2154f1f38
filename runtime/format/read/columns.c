/* columns.c - see columns.h.  Headers have a few dozen columns at most: pairs are
 * compared directly. */
#include <string.h>
#include "columns.h"
#include "shown.h"

int columns_check(const char *path, unsigned long lineno, const struct csv_field *fld, int n)
{
	for (int i = 1; i < n; i++) {
		if (fld[i].len == 0)
			continue;	/* unnamed columns are not read by name */
		for (int j = 0; j < i; j++)
			if (fld[j].len == fld[i].len && !memcmp(fld[j].s, fld[i].s, fld[i].len)) {
				char name[80];
				input_error(path, lineno, "column %d repeats column %d's name, '%s'",
					    i + 1, j + 1, shown(fld[i].s, fld[i].len, name, sizeof(name)));
				return -1;
			}
	}
	return 0;
}
