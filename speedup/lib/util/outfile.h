/* outfile.h - a tool's '-o FILE', written so that what FILE held is never damaged: the
 * output goes to a new file beside it, which replaces FILE only once all is written
 * (INTERFACE.md, "Safety of the files the tools write"). */
#ifndef SPEEDUP_OUTFILE_H
#define SPEEDUP_OUTFILE_H

#include <stdio.h>

struct outfile {
	const char *path;	/* FILE as given */
	char *tmp;		/* the new file beside it, NULL once renamed or removed */
	FILE *f;
};

/* Opens the new file for PATH.  Refuses (one line on stderr, -1) a PATH that is one of
 * the N files INPUTS ("-": standard input), or a folder it cannot create a file in. */
int outfile_open(struct outfile *o, const char *path, char *const *inputs, int n);
/* Ends the output: OK, it is flushed, synced and renamed over PATH; else (or if that
 * fails: a message, -1) the new file is removed and PATH is left as it was.  (A PATH
 * that is no regular file, /dev/null or a FIFO, was written directly.) */
int outfile_close(struct outfile *o, int ok);

#endif
