/* notes.c - what the trace's header says beyond its fixed columns: the columns a
 * micro-generator adds (PAPI's events) and the '# key=value' notes, kept in dyl_meta until
 * the header is written (trace.c), and copied into the spool when they change after it
 * was made (spool.c).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include "internal.h"

/* Columns or notes added after the spool was made (a wrapper's constructor that runs
 * after the first recorded call): the spool's copy of the header follows. */
static void respool_meta(void)
{
	if (__atomic_load_n(&dyl_out.fd, __ATOMIC_ACQUIRE) < 0)
		return;
	dyl_io_lock();
	if (!dyl_out.header_done)
		dyl_spool_meta();
	dyl_io_unlock();
}

int dyl_add_columns(const char *const *names, unsigned n)
{
	int first = -1;

	dyl_init();
	DYL_BUSY_IN();
	pthread_mutex_lock(&dyl_meta.lock);
	if (!dyl_out.header_done && dyl_meta.ncolumns + n <= DYL_MAX_COLUMNS) {
		first = (int)dyl_meta.ncolumns;
		for (unsigned i = 0; i < n; i++)
			dyl_meta.columns[dyl_meta.ncolumns++] = names[i];
	}
	pthread_mutex_unlock(&dyl_meta.lock);
	respool_meta();
	DYL_BUSY_OUT();
	return first;
}

void dyl_note(const char *key, const char *value)
{
	size_t used;

	dyl_init();
	DYL_BUSY_IN();
	pthread_mutex_lock(&dyl_meta.lock);
	if (!strcmp(key, DYL_KEY_TIME_CLOCK))
		__atomic_store_n(&dyl_costs.cpu, !strcmp(value, DYL_TIME_CLOCK_THREAD),
				 __ATOMIC_RELAXED);
	used = strlen(dyl_meta.notes);
	if (!dyl_out.header_done)
		snprintf(dyl_meta.notes + used, sizeof(dyl_meta.notes) - used,
			 DYL_KEY_LINE("%s") "%s\n", key, value);
	pthread_mutex_unlock(&dyl_meta.lock);
	respool_meta();
	DYL_BUSY_OUT();
}
