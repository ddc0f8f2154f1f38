/* convert.h - dyl-trace convert (convert.c). */
#ifndef DYL_TRACE_CONVERT_H
#define DYL_TRACE_CONVERT_H

/* Writes the CSV of each of the N traces FILES whose rows are in its spool
 * (DYL_CONVERT=later) at the trace's path and removes the spool; with OUTPATH, of the
 * one trace (or finished spool) FILES[0] to OUTPATH, leaving both as they are.  The exit
 * status: 0, or 2 after a message for each file that could not be converted. */
int cmd_convert(char **files, int n, const char *outpath);

#endif
