/* tl_build.h - a process's timeline (timeline.h) from its trace: the threads and joins
 * of its footer (thread_events.h), the calls the prediction replaced. */
#ifndef SPEEDUP_TL_BUILD_H
#define SPEEDUP_TL_BUILD_H

#include "predict.h"
#include "timeline.h"
#include "trace_read.h"

/* The replaced calls of one thread, in start order. */
struct tl_calls {
	struct tl_call *c;
	size_t n, room;
	int64_t t_sum;
	double f_sum;
};

/* Predicts P's process from its threads' timelines, with RC[i] the replaced calls of
 * TR's i-th thread (tids.h order; taken over by P->tl and zeroed), DEVICES calls at once
 * (0: unlimited).  A trace that did not record its threads (or whose T is CPU time) keeps
 * Amdahl's answer: P->no_timeline says why.  0, or -1 out of memory (message printed). */
int tl_predict(struct prediction *p, const struct trace *tr, struct tl_calls *rc, int devices);
/* Frees what tl_predict put in P->tl. */
void tl_release(struct timeline *tl);

#endif
