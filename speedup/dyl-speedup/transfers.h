/* transfers.h - link rows in the models (@h2d, @d2h; doc/residency.md): the kernel
 * models are then the compute alone, and each process's transfers are found by the
 * residency simulation (speedup/lib/resid/resid.h) over its TRACE.flow and added to T'. */
#ifndef SPEEDUP_TRANSFERS_H
#define SPEEDUP_TRANSFERS_H

#include "predict.h"
#include "resid.h"
#include "tl_build.h"
#include "trace_read.h"

/* --residency MODE: the mode of the top-level figures; -1: the default (exact where
 * host reads were recorded, else optimistic). */
extern int transfers_mode;

/* 1 when the models MS have link rows (then every trace needs its TRACE.flow). */
int transfers_wanted(struct models *ms);

/* P's process (trace TR, its replaced calls RC per thread, as tl_predict takes them):
 * loads its flow, simulates the three modes with the replaced calls accelerated over
 * MS's link rows, fills P's transfer figures and its kernels' and adds each call's
 * transfer time to RC (an accelerated call's f; a host call's: a call of t 0 at its
 * start).  0, or -1 after one message (no TRACE.flow: exit 2). */
int transfers_predict(struct prediction *p, const struct trace *tr, struct models *ms,
		      struct tl_calls *rc);

/* What a process's prediction keeps (P->resid): its events, loaded once, and the calls
 * the prediction replaced (ACCEL[seq]), for more resid_simulate runs. */
struct transfers_state {
	struct resid_events ev;
	unsigned char *accel;	/* [ev.nseq + 1] */
	struct link_model link;
};
void transfers_free(struct prediction *p);

/* P's per-mode T' and S_G from its top-level T' (predict_finish). */
void transfers_finish(struct prediction *p);
/* Adds process P's transfer figures to the run RUN. */
void transfers_add(struct prediction *run, const struct prediction *p);

#endif
