/* report_xfer.h - the transfers in dyl-speedup's report, with link rows (transfers.h,
 * doc/residency.md).  Each prints nothing for a prediction without them. */
#ifndef SPEEDUP_REPORT_XFER_H
#define SPEEDUP_REPORT_XFER_H

#include <stdio.h>
#include "report.h"

/* The "Transfers" section: per kernel (KERN, W: a name's width) and the three figures. */
void xfer_table(FILE *out, const struct report *r, const int *kern, int nkern, int w);
/* ', "h2d_bytes": ..., "residency_mode": ..., "bounds": {...}' for P's JSON object. */
void xfer_json(FILE *out, const struct prediction *p);
/* ', "h2d_bytes": ...' for kernel K's JSON object in P. */
void xfer_json_kernel(FILE *out, const struct prediction *p, const struct kernel *k);

#endif
