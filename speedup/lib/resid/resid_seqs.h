/* resid_seqs.h - building the seq index of resid_events (resid_seqs.c), for resid_load. */
#ifndef SPEEDUP_RESID_SEQS_H
#define SPEEDUP_RESID_SEQS_H

#include <stdint.h>

struct resid_events;

/* SEQ was read (a row, a record, the end).  0, or -1 out of memory. */
int resid_seqs_add(struct resid_events *ev, uint64_t seq);
/* The runs sorted, merged and given their first slots; returns the number of slots. */
uint64_t resid_seqs_finish(struct resid_events *ev);

#endif
