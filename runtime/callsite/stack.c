/* stack.c - the frames above a call site, for std.callsite's depth=N.
 *
 * libunwind's unw_backtrace, from the DWARF call-frame information (Debian's programs
 * are built without frame pointers), loaded with the region table's libunwind
 * (regions/unwind.h) by dyl_callsite_setup when depth > 0.  Its fast path caches each
 * return address's frame: a fraction of glibc's backtrace(), whose libgcc unwinder
 * looks each frame's object up again, and of a walk with unw_step, which reads the
 * call-frame information at each step (bench/percall/callsite.sh).  Without libunwind
 * the wrapper falls back to backtrace().
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "internal.h"
#include "../regions/unwind.h"
#include "callsite.h"

#define NAME_(x) #x
#define NAME(x) NAME_(x)	/* the macro's expansion: libunwind's real symbol */
#define WALK 16		/* frames walked at most: this one, the wrapper's, RA's, then N */

static int (*backtrace_fn)(void **buf, int size);

/* after dyl_unwind_on: libunwind is loaded (or not: then the pointer stays NULL) */
void dyl_callsite_stack_on(void)
{
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);

	if (h)
		__atomic_store_n(&backtrace_fn, (__typeof__(backtrace_fn))dlsym(h, NAME(unw_backtrace)),
				 __ATOMIC_RELEASE);
}

int dyl_callsite_stack(uintptr_t ra, int64_t *out, int n)
{
	int (*bt)(void **, int) = __atomic_load_n(&backtrace_fn, __ATOMIC_ACQUIRE);
	void *b[WALK];
	int k, i = 0, m = 0;

	if (!bt)
		return -1;
	dyl_busy++;	/* (libunwind's calls into libc are not the program's) */
	k = bt(b, n + 5 < WALK ? n + 5 : WALK);
	dyl_busy--;
	while (i < k && (uintptr_t)b[i] != ra)
		i++;
	for (i++; i < k && m < n; i++)
		out[m++] = (int64_t)(uintptr_t)b[i];
	return m;
}
