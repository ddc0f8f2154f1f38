/* spool.h - traces of processes that did not finish, read from their spool. */
#ifndef SPEEDUP_SPOOL_H
#define SPEEDUP_SPOOL_H

#include "input.h"

/* F is what a trace argument held: when it is a spool, or a trace without footer with
 * its spool beside it, F's bytes become the CSV the spool stands for.  0 (F changed or
 * not), or -1 after one message. */
int spool_recover(struct input_file *f);

#endif
