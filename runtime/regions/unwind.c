/* unwind.c - libunwind, loaded by the features that walk stacks.
 *
 * Linked into the runtime, libunwind and liblzma were loaded into every process the
 * wrapper is preloaded into, and set up in the runtime's constructor: about 130 system
 * calls and a dozen pages' first touches, a millisecond here, for a time-and-trace
 * wrapper that never walks a stack.  Now the set-up of std.regions, std.diff and
 * std.flow (their dyl_*_setup or dyl_regions_check_allocator, from the wrapper's
 * constructor) loads it with dlopen, and every walk goes through dyl_unw.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "unwind.h"

struct dyl_unw dyl_unw;

#define NAME_(x) #x
#define NAME(x) NAME_(x)	/* the macro's expansion: libunwind's real symbol */

/* libunwind sets itself up at its first use (unw_init_local), with a once-flag that two
 * threads unwinding for the first time together race on (TSan says so): done once,
 * here, before the program's threads.  Costs a few us.
 *
 * That set-up opens a pipe of libunwind's own (it checks addresses by writing from
 * them), at the two lowest free descriptors: the program's first open() returned 5
 * instead of 3.  So the free descriptors below PIPE_FLOOR are held for that moment and
 * given back: the pipe lands above them, and the program's first descriptors are
 * numbered as without the wrapper.  About two system calls a descriptor held, once.
 * (Closing or moving the pipe afterwards is no answer: libunwind closes those numbers
 * again when it finds its pipe broken, and they may be the program's by then.) */
#define PIPE_FLOOR 64
static void warm(void)
{
	unw_context_t uc;
	unw_cursor_t cur;
	int held[PIPE_FLOOR], n = 0;

	while (n < PIPE_FLOOR) {
		int fd = (int)syscall(SYS_openat, AT_FDCWD, "/", O_PATH | O_CLOEXEC);
		if (fd < 0)
			break;
		if (fd >= PIPE_FLOOR) {
			syscall(SYS_close, fd);
			break;
		}
		held[n++] = fd;
	}
	(void)DYL_UNW_START(&uc, &cur);
	while (n > 0)
		syscall(SYS_close, held[--n]);
}

void dyl_unwind_on(void)
{
	static int tried;
	struct dyl_unw u;

	if (__atomic_exchange_n(&tried, 1, __ATOMIC_ACQ_REL))
		return;
	dyl_busy++;	/* its calls into libc (a wrapped libc) are not the program's */
	/* (its own dependencies, liblzma, come with it; RTLD_LOCAL: its names stay its own) */
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		u.getcontext = (__typeof__(u.getcontext))dlsym(h, NAME(unw_tdep_getcontext));
		u.init_local = (__typeof__(u.init_local))dlsym(h, NAME(unw_init_local));
		u.step = (__typeof__(u.step))dlsym(h, NAME(unw_step));
		u.get_reg = (__typeof__(u.get_reg))dlsym(h, NAME(unw_get_reg));
		u.get_save_loc = (__typeof__(u.get_save_loc))dlsym(h, NAME(unw_get_save_loc));
		if (u.getcontext && u.init_local && u.step && u.get_reg && u.get_save_loc) {
			dyl_unw.getcontext = u.getcontext;
			dyl_unw.step = u.step;
			dyl_unw.get_reg = u.get_reg;
			dyl_unw.get_save_loc = u.get_save_loc;
			/* last: DYL_UNW_START tests it */
			__atomic_store_n(&dyl_unw.init_local, u.init_local, __ATOMIC_RELEASE);
			warm();
		}
	}
	if (!dyl_unw.init_local)
		dyl_warn_once("unwind", "libunwind.so.8 cannot be loaded (%s): pointers into the "
			      "stack are charged to the whole stack", h ? "a symbol is missing" : dlerror());
	dyl_busy--;
}
