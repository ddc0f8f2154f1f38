/* stackframe.c - stack regions: the calling thread's stack bounds, the frame a stack
 * pointer lies in, and every thread's stack for pointers from the other threads.
 *
 * The paper took the whole stack as one region, so a pointer to a 60-byte array was
 * charged all the stack above it.  Here libunwind walks the caller frames (their stack
 * pointers; optimised code keeps no frame pointer, but its .eh_frame says where each
 * frame ends), and a pointer is charged up to the end of the data of the frame holding
 * it: the frame of function F is [F's SP, its caller's SP), and its data ends below the
 * lowest of the slots where F saved its caller's registers and the return address
 * (.eh_frame says where those are too).  Those slots are no data of the program's: they
 * change from call to call with the callers' registers, and no function is given them.
 * Walking costs microseconds, so it is done at most once per call and only when an
 * argument points into the stack.
 *
 * Another thread's stack (the main thread hands an array on its stack to a worker that
 * calls the library): that thread's frames cannot be unwound from here (its registers
 * are its own, and it runs on while we look), so the frame holding the pointer is
 * unknown.  The bound used is the top of that thread's frames: the pointer is charged
 * from itself up to where the thread's outermost frame ends, that is the frame holding
 * it and all its callers' frames (the paper's whole-stack bound, without what lies above
 * the frames).  The top is found by the thread itself when it registers: for the main
 * thread __libc_stack_end (argc's place: above are argv, the environment and the
 * auxiliary vector, kilobytes), for another thread the stack pointer of its outermost
 * frame, by one unwind (above are its thread descriptor and static TLS, libdylrt's 8 KiB
 * scratch among them).  A pointer above the frames (an argv string, a TLS variable) is
 * charged up to the stack's end.  Each thread registers at its first dyl_stack_bounds
 * (its first charge); the main thread also from the constructor, as it often never
 * charges itself.  A thread that never charged is not known (its stack counts nothing).
 * A thread leaves the list at its exit (a pthread key's destructor), before glibc can
 * give its stack to a new thread.  The bound is an upper one: a frame of the other
 * thread that has returned since the pointer was taken still counts (it cannot be told).
 *
 * The list is sorted by address and read without a lock (a sequence count: a reader
 * retries if a change overlapped its read); changes (thread start and exit) take a spin
 * lock.  It is consulted only for pointers in no other region, O(log threads).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "regions.h"
#include "unwind.h"

extern void *__libc_stack_end;	/* ld.so's: the main thread's stack pointer at entry */

static TLS uintptr_t stack_lo, stack_hi;	/* cached per thread; 0: not known yet */
static TLS uintptr_t stack_top;		/* the top of the thread's frames */
static TLS int listed;			/* 0: not yet in the list, 1: in it (or never:
					 * no room), 2: leaving (its key's destructor ran) */
static TLS int changing;		/* this thread is changing the list */
static uintptr_t main_lo, main_hi, main_end;	/* the main thread's (list_main) */

struct tstack {
	uintptr_t lo, top, hi;	/* frames in [lo, top), the rest of the stack [top, hi) */
};
#define MAX_STACKS 16384	/* 384 KiB of address space, touched as threads come */
static struct tstack *stacks;	/* mapped at the first registration, never unmapped */
static uint32_t nstacks;
static unsigned stacks_seq;	/* odd while the list changes */
static int stacks_lock;
static pthread_key_t exit_key;
static int have_key;

/* The sequence count without fences (TSan does not model them): entries are stored
 * with release and loaded with acquire, so a reader that sees any entry a change wrote
 * also sees the count that change made odd. */
static void change_begin(void)
{
	changing = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	dyl_spin_lock(&stacks_lock);
	__atomic_store_n(&stacks_seq, __atomic_load_n(&stacks_seq, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

static void change_end(void)
{
	__atomic_store_n(&stacks_seq, __atomic_load_n(&stacks_seq, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELEASE);
	dyl_spin_unlock(&stacks_lock);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	changing = 0;
}

static void put_at(uint32_t i, const struct tstack *t)
{
	__atomic_store_n(&stacks[i].lo, t->lo, __ATOMIC_RELEASE);
	__atomic_store_n(&stacks[i].top, t->top, __ATOMIC_RELEASE);
	__atomic_store_n(&stacks[i].hi, t->hi, __ATOMIC_RELEASE);
}

static struct tstack get_at(uint32_t i)
{
	return (struct tstack){ __atomic_load_n(&stacks[i].lo, __ATOMIC_ACQUIRE),
				__atomic_load_n(&stacks[i].top, __ATOMIC_ACQUIRE),
				__atomic_load_n(&stacks[i].hi, __ATOMIC_ACQUIRE) };
}

/* list lock held: drops the entries overlapping [LO, HI) */
static void drop_locked(uintptr_t lo, uintptr_t hi)
{
	uint32_t n = __atomic_load_n(&nstacks, __ATOMIC_RELAXED), m = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct tstack t = get_at(i);
		if (t.lo < hi && lo < t.hi)
			continue;
		if (m != i)
			put_at(m, &t);
		m++;
	}
	__atomic_store_n(&nstacks, m, __ATOMIC_RELAXED);
}

/* puts T in the list (replacing a stale entry over the same memory); 0: no room */
static int list_add(const struct tstack *t)
{
	int ok = 0;

	if (!__atomic_load_n(&stacks, __ATOMIC_ACQUIRE)) {
		struct tstack *v = dyl_raw_map(MAX_STACKS * sizeof(*v));
		struct tstack *expected = NULL;
		if (!v)
			return 0;
		if (!__atomic_compare_exchange_n(&stacks, &expected, v, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			dyl_raw_unmap(v, MAX_STACKS * sizeof(*v));
	}
	change_begin();
	drop_locked(t->lo, t->hi);
	uint32_t n = __atomic_load_n(&nstacks, __ATOMIC_RELAXED);
	if (n < MAX_STACKS) {
		uint32_t i = n;
		for (; i > 0; i--) {
			struct tstack u = get_at(i - 1);
			if (u.lo < t->lo)
				break;
			put_at(i, &u);
		}
		put_at(i, t);
		__atomic_store_n(&nstacks, n + 1, __ATOMIC_RELEASE);
		ok = 1;
	}
	change_end();
	return ok;
}

static void list_drop(uintptr_t lo, uintptr_t hi)
{
	if (!__atomic_load_n(&stacks, __ATOMIC_ACQUIRE))
		return;
	change_begin();
	drop_locked(lo, hi);
	change_end();
}

int dyl_stack_other(uintptr_t p, struct dyl_region *r)
{
	struct tstack *v = __atomic_load_n(&stacks, __ATOMIC_ACQUIRE);

	if (!v)
		return 0;
	if (changing)
		return -1;	/* a handler interrupted this thread's change: it cannot wait */
	for (unsigned spins = 0;; spins++) {
		unsigned s = __atomic_load_n(&stacks_seq, __ATOMIC_ACQUIRE);
		if (s & 1) {
			if (spins > 64)
				sched_yield();
			continue;
		}
		uint32_t lo = 0, hi = __atomic_load_n(&nstacks, __ATOMIC_ACQUIRE);
		if (hi > MAX_STACKS)
			continue;
		while (lo < hi) {	/* the last stack starting at or below p */
			uint32_t mid = lo + (hi - lo) / 2;
			if (__atomic_load_n(&v[mid].lo, __ATOMIC_ACQUIRE) <= p)
				lo = mid + 1;
			else
				hi = mid;
		}
		struct tstack t = lo > 0 ? get_at(lo - 1) : (struct tstack){ 0, 0, 0 };
		if (__atomic_load_n(&stacks_seq, __ATOMIC_RELAXED) != s)
			continue;	/* changed meanwhile: again */
		if (!(t.lo <= p && p < t.hi))
			return 0;
		if (p < t.top)
			*r = (struct dyl_region){ t.lo, t.top, DYL_REGION_STACK, 0, 0 };
		else
			*r = (struct dyl_region){ t.top, t.hi, DYL_REGION_STACK, 0, 0 };
		return 1;
	}
}

/* the stack pointer of the outermost frame libunwind reaches from here */
static __attribute__((noinline)) uintptr_t outermost_sp(void)
{
	unw_context_t uc;
	unw_cursor_t cur;
	uintptr_t last = 0;

	__atomic_fetch_add(&dyl_reg.unwinds, 1, __ATOMIC_RELAXED);
	if (DYL_UNW_START(&uc, &cur) != 0)
		return 0;
	for (int i = 0; i < 100000; i++) {
		unw_word_t sp;
		if (dyl_unw.get_reg(&cur, UNW_REG_SP, &sp) != 0 || sp <= last)
			break;
		last = sp;
		if (dyl_unw.step(&cur) <= 0)
			break;
	}
	return last;
}

/* the calling thread's bounds are known: into the list, with the top of its frames */
static void list_self(void)
{
	uintptr_t top = (uintptr_t)__libc_stack_end;

	if (changing)
		return;		/* a handler interrupted this thread's change: later */
	if (!(stack_lo <= top && top < stack_hi)) {	/* not the main thread */
		if (!have_key) {
			listed = 1;	/* its exit could not be seen: never listed */
			return;
		}
		top = outermost_sp();
	}
	if (!(stack_lo < top && top <= stack_hi))
		top = stack_hi;	/* no unwinding: the frames may reach the top */
	stack_top = top;
	/* the main thread's argv and environment are part of its stack for the others */
	struct tstack t = { stack_lo, top, top == (uintptr_t)__libc_stack_end && main_end > stack_hi
				? main_end : stack_hi };
	if (list_add(&t) && have_key)
		pthread_setspecific(exit_key, (void *)1);
	listed = 1;
}

int dyl_stack_bounds(uintptr_t *lo, uintptr_t *hi)
{
	if (dyl_unlikely(listed != 1)) {
		/* once per thread: glibc's calls (and libunwind's) are not the program's, nor
		 * the errno they leave */
		int e = errno;
		dyl_busy++;
		uintptr_t here = (uintptr_t)__builtin_frame_address(0);
		if (!stack_hi && main_lo <= here && here < main_hi) {	/* the main thread */
			stack_lo = main_lo;
			stack_hi = main_hi;
		}
		if (!stack_hi) {	/* (glibc mallocs here) */
			pthread_attr_t a;
			void *addr;
			size_t size;
			int ok = pthread_getattr_np(pthread_self(), &a) == 0;
			if (ok) {
				ok = pthread_attr_getstack(&a, &addr, &size) == 0;
				pthread_attr_destroy(&a);
			}
			if (ok) {
				stack_lo = (uintptr_t)addr;
				stack_hi = (uintptr_t)addr + size;
			}
		}
		if (stack_hi && !listed)
			list_self();
		dyl_busy--;
		errno = e;
		if (!stack_hi)
			return 0;
	}
	*lo = stack_lo;
	*hi = stack_hi;
	return 1;
}

/* where the data of the frame [LO, HI) ends: below the lowest slot in it that holds a
 * register value or the return address of its caller, the frame CUR is at */
static uintptr_t data_end(unw_cursor_t *cur, uintptr_t lo, uintptr_t hi)
{
#if defined(__x86_64__)
	static const int regs[] = { UNW_X86_64_RBX, UNW_X86_64_RBP, UNW_X86_64_R12, UNW_X86_64_R13,
				    UNW_X86_64_R14, UNW_X86_64_R15, UNW_X86_64_RIP };
	uintptr_t end = hi;

	for (unsigned i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		unw_save_loc_t loc;
		if (dyl_unw.get_save_loc(cur, regs[i], &loc) == 0 && loc.type == UNW_SLT_MEMORY &&
		    loc.u.addr >= lo && loc.u.addr < end)
			end = loc.u.addr;
	}
	return end;
#else
	(void)cur;
	(void)lo;
	return hi;
#endif
}

/* the stack pointers of this function's callers, innermost first, up to the first frame
 * that lies wholly above MAXP, and where their data ends */
static __attribute__((noinline)) void unwind(struct dyl_frames *fr, uintptr_t maxp)
{
	unw_context_t uc;
	unw_cursor_t cur;
	const int cap = (int)(sizeof(fr->sp) / sizeof(fr->sp[0]));

	fr->n = 0;
	__atomic_fetch_add(&dyl_reg.unwinds, 1, __ATOMIC_RELAXED);
	if (DYL_UNW_START(&uc, &cur) != 0)
		return;
	do {
		unw_word_t sp, ip;
		if (dyl_unw.get_reg(&cur, UNW_REG_SP, &sp) != 0 || dyl_unw.get_reg(&cur, UNW_REG_IP, &ip) != 0)
			break;
		if (fr->n > 0 && sp <= fr->sp[fr->n - 1])
			break;	/* a confused unwind: the stack grows down, SPs only go up */
		/* the caller's registers, as the frame below saved them: in that frame */
		if (fr->n > 0)
			fr->data_end[fr->n - 1] = data_end(&cur, fr->sp[fr->n - 1], sp);
		fr->ip[fr->n] = ip;
		fr->sp[fr->n++] = sp;
		if (sp > maxp)
			return;
	} while (fr->n < cap && dyl_unw.step(&cur) > 0);
	fr->complete = 1;
}

/* The frames of this call: the last call's again when they are the same, else unwound.
 * A program calls from the same places over and over, and a walk costs microseconds
 * (libunwind reads each frame's CFI and blocks signals around dl_iterate_phdr at each
 * step).  The frames are the same when the walk starts at the same place and every
 * frame's return address slot (just below its caller's stack pointer) still holds the
 * caller's address found then: a frame's size and where it saves registers follow
 * from its code address, so the same chain of return addresses at the same places is
 * the same chain of frames (a frame of another size, alloca's, would move every frame
 * below it, and the walk's start).  Checking costs a load per frame. */
static __attribute__((noinline)) void frames(struct dyl_frames *fr, uintptr_t maxp)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	int same = fr->n > 1 && fr->here == here && (fr->complete || fr->sp[fr->n - 1] > maxp);

	/* frame 0 is unwind()'s, gone: its caller, this function, is frame 1 */
	for (int i = 1; same && i + 1 < fr->n; i++)
		same = *(const uintptr_t *)(fr->sp[i + 1] - sizeof(uintptr_t)) == fr->ip[i + 1];
	if (same)
		return;
	fr->complete = 0;
	unwind(fr, maxp);
	fr->here = here;
}

int dyl_stack_frame(uintptr_t p, uintptr_t maxp, struct dyl_frames *fr, struct dyl_region *r)
{
	uintptr_t lo, hi;

	if (!dyl_stack_bounds(&lo, &hi) || p < lo || p >= hi)
		return 0;
	if (!fr->checked) {
		dyl_busy++;	/* libunwind's calls into a wrapped libc are not the program's */
		frames(fr, maxp);
		dyl_busy--;
		fr->checked = 1;
	}
	for (int i = 0; i + 1 < fr->n; i++)
		if (fr->sp[i] <= p && p < fr->sp[i + 1]) {
			uintptr_t e = fr->data_end[i], vlo, vhi, glo = 0, ghi = UINTPTR_MAX;
			int f64 = 0;
			/* with debug information, the variable: one of the frame's function, or a
			 * stack-passed parameter of the function it called (at that one's CFA);
			 * else the room between the variables it names */
			int v = dyl_stack_var(fr->ip[i], fr->sp[i + 1], p, &vlo, &vhi, &f64);
			if (v == 2) {
				glo = vlo;
				ghi = vhi;
			}
			if (v != 1 && i > 0 && dyl_stack_var(fr->ip[i - 1], fr->sp[i], p, &vlo, &vhi, &f64) == 1)
				v = 1;
			if (v == 1) {
				*r = (struct dyl_region){ vlo, vhi, DYL_REGION_STACK, 0,
							  f64 ? DYL_REGION_F64 : 0 };
				return 1;
			}
			if (p < e && (glo > fr->sp[i] || ghi < e)) {
				*r = (struct dyl_region){ glo > fr->sp[i] ? glo : fr->sp[i], ghi < e ? ghi : e,
							  DYL_REGION_STACK, 0, 0 };
				return 1;
			}
			/* no variable known around P: the frame's data, a guess that charge.c's
			 * frame_end cuts at the call's next argument above P (a room between
			 * named variables is left whole: debug information bounds it already)
			 * (a pointer to the saved registers: those, as a region of their own) */
			*r = p < e ? (struct dyl_region){ fr->sp[i], e, DYL_REGION_STACK, 0, DYL_REGION_GUESS }
				   : (struct dyl_region){ e, fr->sp[i + 1], DYL_REGION_STACK, 0, 0 };
			return 1;
		}
	if (fr->n > 0 && p >= fr->sp[fr->n - 1]) {
		/* above the frames unwound (the walk stopped early): up to the stack's top */
		*r = (struct dyl_region){ fr->sp[fr->n - 1], hi, DYL_REGION_STACK, 0, 0 };
		return 1;
	}
	if (fr->n == 0) {	/* no unwinding at all: the paper's whole stack */
		*r = (struct dyl_region){ lo, hi, DYL_REGION_STACK, 0, 0 };
		return 1;
	}
	return 0;	/* below the innermost frame: no live buffer */
}

/* the thread ends: its stack leaves the list (before glibc gives it to a new thread) */
static void thread_gone(void *arg)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);

	if (!changing)	/* the entry holding this frame: listed here or by the constructor */
		list_drop(here, here + 1);
	listed = 2;	/* a wrapped call in a later destructor does not list it again */
}

/* fork: the child has one thread, this one */
static void before_fork(void)
{
	changing++;
	dyl_spin_lock(&stacks_lock);
}

static void parent_after_fork(void)
{
	dyl_spin_unlock(&stacks_lock);
	changing--;
}

static void child_after_fork(void)
{
	if (stacks) {
		__atomic_store_n(&nstacks, 0, __ATOMIC_RELAXED);
		if (listed == 1 && stack_hi && stack_top) {
			struct tstack t = { stack_lo, stack_top, stack_hi };
			put_at(0, &t);
			__atomic_store_n(&nstacks, 1, __ATOMIC_RELAXED);
		}
	}
	dyl_spin_unlock(&stacks_lock);
	changing--;
}

/* The main thread's stack, from the constructor, with no call into libc but system
 * calls (this runs before the wrappers have their originals; and a first charge from a
 * signal handler must not read /proc/self/maps with stdio, as pthread_getattr_np does
 * for the main thread).  The frames end at __libc_stack_end (argc's place); the stack's
 * mapping ends at the page past the program's file name (AT_EXECFN: the last string the
 * kernel put on it).  The thread's own bounds are glibc's: up to the page above
 * __libc_stack_end, down to RLIMIT_STACK below the mapping's end (1 GiB if unlimited). */
static void list_main(void)
{
	uintptr_t *sp = __libc_stack_end;

	if (!sp || syscall(SYS_gettid) != getpid())
		return;		/* loaded later, by another thread */
	char **envp = (char **)(sp + 1 + sp[0] + 1);
	while (*envp)
		envp++;
	const char *execfn = NULL;
	uintptr_t page = 4096;
	for (ElfW(auxv_t) *av = (ElfW(auxv_t) *)(envp + 1); av->a_type != AT_NULL; av++)
		if (av->a_type == AT_EXECFN)
			execfn = (const char *)av->a_un.a_val;
		else if (av->a_type == AT_PAGESZ && av->a_un.a_val)
			page = av->a_un.a_val;
	if (!execfn || (uintptr_t)execfn < (uintptr_t)sp)
		return;
	const char *e = execfn;
	while (*e)
		e++;
	uintptr_t end = ((uintptr_t)e + 1 + sizeof(void *) + page - 1) & -page;
	uintptr_t hi = ((uintptr_t)sp & -page) + page;
	struct rlimit rl;
	uint64_t lim = 1ull << 30;
	if (syscall(SYS_prlimit64, 0, RLIMIT_STACK, NULL, &rl) == 0 && rl.rlim_cur < lim)
		lim = rl.rlim_cur;
	if (hi > end || lim <= end - hi || ((lim - (end - hi)) & -page) > hi)
		return;
	main_lo = hi - ((lim - (end - hi)) & -page);
	main_hi = hi;
	main_end = end;
	struct tstack t = { main_lo, (uintptr_t)sp, main_end };
	if (list_add(&t) && have_key)
		pthread_setspecific(exit_key, (void *)1);
}

/* at start-up, in the order start.c gives */
void dyl_stacks_start(void)
{
	dyl_busy++;
	have_key = pthread_key_create(&exit_key, thread_gone) == 0;
	pthread_atfork(before_fork, parent_after_fork, child_after_fork);
	list_main();
	dyl_busy--;
}
