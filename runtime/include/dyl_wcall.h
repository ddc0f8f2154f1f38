/* dyl_wcall.h - the steps of a call that every wrapper of std.loader, std.trace and
 * std.time shares (the default), written once here rather than in each wrapper's body.
 *
 * A wrapper keeps only what its prototype decides: its descriptor (struct dyl_wsym), the
 * call of the original with its arguments, and the code of the micro-generators between
 * std.trace and std.time (std.regions, std.args...).  Less C a function: a wrapper of
 * 1,000 functions compiles in about half the CPU (bench/wrapsize).  In a wrapper of one
 * unit (-O2) these are inlined and the descriptor's fields folded: the code of a call is
 * what it was.  Included by the generated wrapper after the micro-generators' file parts
 * (it uses std.loader's dyl_load and std.time's dyl_time_start and dyl_time_stop).
 */
#ifndef DYL_WCALL_H
#define DYL_WCALL_H

#include <errno.h>
#include "dyl.h"

/* Optimized in a unit built at -O0 too (dyl_wrap.h) */
#ifdef DYL_UNOPTIMIZED
#pragma GCC push_options
#pragma GCC optimize("O2", "inline")	/* (-O0 implies -fno-inline) */
#endif

/* What a wrapper's steps need to know of it: where its original is kept and how to look
 * it up (std.loader), and its trace descriptor (std.trace) */
struct dyl_wsym {
	struct dyl_lib *lib;
	const char *name, *version;
	void **slot;		/* the original, once found */
	const void *self;	/* the wrapper itself (the loader must not return it) */
	struct dyl_func *func;
};

/* The original of S: its slot's, or looked up (std.loader's dyl_load, out of line).
 * CALLER: the wrapper's return address. */
static inline __attribute__((always_inline)) void *dyl_wfn(const struct dyl_wsym *s,
							    const void *caller)
{
	void *fn = __atomic_load_n(s->slot, __ATOMIC_ACQUIRE);
	if (dyl_unlikely(fn == NULL))
		fn = dyl_load(s->lib, s->name, s->version, s->slot, s->self, caller);
	return fn;
}

/* errno as the program left it, kept across the wrapper's own work, and its address,
 * taken once a call (at -O0 each errno is a call of __errno_location) */
struct dyl_werr {
	int *p;
	int v;
};

/* Before the micro-generators between std.trace and std.time: errno kept in E, the
 * original found, the call entered.  A call not recorded (dyl_enter refused it) gets
 * C->func NULL and errno back: the wrapper forwards it and returns. */
static inline void *dyl_wopen(struct dyl_call *c, const struct dyl_wsym *s,
			      struct dyl_werr *e, const void *caller)
{
	e->p = &errno;
	e->v = *e->p;
	void *fn = dyl_wfn(s, caller);
	if (dyl_unlikely(!dyl_enter(c, s->func))) {
		c->func = NULL;
		*e->p = e->v;
	}
	return fn;
}

/* Just before the original: the clock read, errno given back */
static inline void dyl_wstart(struct dyl_call *c, const struct dyl_werr *e)
{
	c->t_start = dyl_time_start(c);
	*e->p = e->v;
}

/* Just after it: errno kept, the clock read */
static inline void dyl_wstop(struct dyl_call *c, struct dyl_werr *e)
{
	e->v = *e->p;
	dyl_time_stop(c);
}

/* The call's end: its row, errno given back */
static inline void dyl_wclose(struct dyl_call *c, const struct dyl_werr *e)
{
	dyl_leave(c);
	*e->p = e->v;
}

/* A wrapper with nothing between std.trace and std.time: dyl_wopen and dyl_wstart */
static inline void *dyl_wbegin(struct dyl_call *c, const struct dyl_wsym *s,
			       struct dyl_werr *e, const void *caller)
{
	e->p = &errno;
	e->v = *e->p;
	void *fn = dyl_wfn(s, caller);
	if (dyl_likely(dyl_enter(c, s->func)))
		c->t_start = dyl_time_start(c);
	else
		c->func = NULL;
	*e->p = e->v;
	return fn;
}

/* And its end: dyl_wstop and dyl_wclose, for a recorded call only */
static inline void dyl_wend(struct dyl_call *c, struct dyl_werr *e)
{
	if (dyl_unlikely(c->func == NULL))
		return;
	e->v = *e->p;
	dyl_time_stop(c);
	dyl_leave(c);
	*e->p = e->v;
}

#ifdef DYL_UNOPTIMIZED
#pragma GCC pop_options
#endif

#endif
