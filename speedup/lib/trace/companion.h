/* companion.h - files that travel with a trace and are named on a command line by a glob.
 *
 * `dyl-trace chrome run.csv*` also catches run.csv.flow, std.flow's file beside the trace.
 * The tools find it themselves from the trace's name, so they pass over it. */
#ifndef SPEEDUP_COMPANION_H
#define SPEEDUP_COMPANION_H

/* 1 when PATH is TRACE.flow and TRACE is one of the ARGC strings of ARGV (the command
 * line): it is read with TRACE, not as a file of its own. */
int companion_of_given(const char *path, int argc, char **argv);

#endif
