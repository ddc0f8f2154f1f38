/* csvconv.c - a spool's rows as the trace's CSV, in large blocks (dyl_csv.h): the
 * conversion the runtime makes at exit, `dyl-trace convert` later, bench/spool/ alone.
 *
 * The usual rows come as runs of plain records (dyl_conv_plain): decoded a run at a
 * time into a small array, then formatted in one loop with nothing asked per row but
 * what changes (dyl_csv_plain); the others one at a time (dyl_conv_next, dyl_csv_row).
 * The bytes are the same either way.
 */
#include "dyl_csv.h"

#define RUN 64	/* rows decoded at a time: 1.5 KiB of stack (the runtime converts on the
		 * thread that exits, whose stack may be small); 256 were no faster */

uint64_t dyl_csv_convert(struct dyl_conv *c, char *buf, size_t size,
			 int (*put)(void *arg, const char *data, size_t len), void *arg)
{
	struct dyl_csv_writer w = { 0 };
	struct dyl_plain run[RUN];
	struct dyl_row row;
	unsigned ncol = dyl_conv_ncolumns(c);
	char *p = buf, *end = buf + size;
	uint64_t rows = 0, seq;
	int32_t tid;

	for (;;) {
		size_t n = dyl_conv_plain(c, run, RUN, &tid, &seq), done;
		for (size_t k = 0; k < n; k += done) {
			p = dyl_csv_plain(&w, p, end, c, tid, seq + k, run + k, n - k, ncol, &done);
			if (k + done < n) {	/* full */
				if (put(arg, buf, (size_t)(p - buf)) != 0)
					return rows + k + done;
				p = buf;
			}
		}
		rows += n;
		if (n)
			continue;
		if (!dyl_conv_next(c, &row))
			break;
		if (end - p < DYL_ROW_MAX) {
			if (put(arg, buf, (size_t)(p - buf)) != 0)
				return rows;
			p = buf;
		}
		p += dyl_csv_row(&w, p, DYL_ROW_MAX, &row, ncol);
		rows++;
	}
	if (p > buf)
		put(arg, buf, (size_t)(p - buf));
	return rows;
}
