/* stackframe.c - stack regions: the calling thread's stack bounds, and the frame a stack
 * pointer lies in.
 *
 * The paper took the whole stack as one region, so a pointer to a 60-byte array was
 * charged all the stack above it.  Here libunwind walks the caller frames (their stack
 * pointers; optimised code keeps no frame pointer, but its .eh_frame says where each
 * frame ends), and a pointer is charged up to the end of the frame holding it: the
 * frame of function F is [F's SP, its caller's SP).  Walking costs microseconds, so it
 * is done at most once per call and only when an argument points into the stack.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <pthread.h>
#include "regions.h"

static TLS uintptr_t stack_lo, stack_hi;	/* cached per thread; 0: not known yet */

int dyl_stack_bounds(uintptr_t *lo, uintptr_t *hi)
{
	if (dyl_unlikely(!stack_hi)) {
		pthread_attr_t a;
		void *addr;
		size_t size;
		if (pthread_getattr_np(pthread_self(), &a) != 0)
			return 0;
		int ok = pthread_attr_getstack(&a, &addr, &size) == 0;
		pthread_attr_destroy(&a);
		if (!ok)
			return 0;
		stack_lo = (uintptr_t)addr;
		stack_hi = (uintptr_t)addr + size;
	}
	*lo = stack_lo;
	*hi = stack_hi;
	return 1;
}

/* the stack pointers of this function's callers, innermost first, up to the first frame
 * that lies wholly above MAXP */
static __attribute__((noinline)) void unwind(struct dyl_frames *fr, uintptr_t maxp)
{
	unw_context_t uc;
	unw_cursor_t cur;
	const int cap = (int)(sizeof(fr->sp) / sizeof(fr->sp[0]));

	fr->n = 0;
	__atomic_fetch_add(&dyl_reg.unwinds, 1, __ATOMIC_RELAXED);
	if (unw_getcontext(&uc) != 0 || unw_init_local(&cur, &uc) != 0)
		return;
	do {
		unw_word_t sp;
		if (unw_get_reg(&cur, UNW_REG_SP, &sp) != 0)
			break;
		if (fr->n > 0 && sp <= fr->sp[fr->n - 1])
			break;	/* a confused unwind: the stack grows down, SPs only go up */
		fr->sp[fr->n++] = sp;
		if (sp > maxp)
			break;
	} while (fr->n < cap && unw_step(&cur) > 0);
}

/* libunwind sets itself up at its first use (unw_init_local), with a once-flag that two
 * threads unwinding for the first time together race on (TSan says so): done once,
 * before the program's threads, from the runtime's constructor.  Costs a few us. */
void dyl_unwind_warm(void)
{
	unw_context_t uc;
	unw_cursor_t cur;

	dyl_busy++;	/* its calls into libc (a wrapped libc) are not the program's */
	if (unw_getcontext(&uc) == 0)
		unw_init_local(&cur, &uc);
	dyl_busy--;
}

int dyl_stack_frame(uintptr_t p, uintptr_t maxp, struct dyl_frames *fr, struct dyl_region *r)
{
	uintptr_t lo, hi;

	if (!dyl_stack_bounds(&lo, &hi) || p < lo || p >= hi)
		return 0;
	if (fr->n < 0) {
		dyl_busy++;	/* libunwind's calls into a wrapped libc are not the program's */
		unwind(fr, maxp);
		dyl_busy--;
	}
	for (int i = 0; i + 1 < fr->n; i++)
		if (fr->sp[i] <= p && p < fr->sp[i + 1]) {
			*r = (struct dyl_region){ fr->sp[i], fr->sp[i + 1], DYL_REGION_STACK, 0 };
			return 1;
		}
	if (fr->n > 0 && p >= fr->sp[fr->n - 1]) {
		/* above the frames unwound (the walk stopped early): up to the stack's top */
		*r = (struct dyl_region){ fr->sp[fr->n - 1], hi, DYL_REGION_STACK, 0 };
		return 1;
	}
	if (fr->n == 0) {	/* no unwinding at all: the paper's whole stack */
		*r = (struct dyl_region){ lo, hi, DYL_REGION_STACK, 0 };
		return 1;
	}
	return 0;	/* below the innermost frame: no live buffer */
}
